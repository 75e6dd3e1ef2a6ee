/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One-line descriptions of frames, DDP/RDMAP headers and stream events,
 * shared by the programs (Info columns, logs, golden test files) so every
 * front end tells the same story.
 *
 * All functions write a NUL-terminated string into buf[0..cap) (cap > 0;
 * truncated if needed) and return the length they wanted to write, like
 * snprintf.
 */
#ifndef MPA_DESCRIBE_H
#define MPA_DESCRIBE_H

#include "mpa/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "MPA Request Rev 2 M=0 C=1 p2p IRD 16 ORD 16 RTR write,read PD 4" */
size_t mpa_frame_summary(const mpa_frame *f, char *buf, size_t cap);

/* "Send MSN 1 QN 0 24 bytes", "RDMA Write STag 0x1234 TO 0x0 0 bytes",
 * "TERMINATE LLP/MPA No matching RTR option"; st is mpa_ddp_decode's
 * status for d. */
size_t mpa_ddp_summary(const mpa_ddp *d, mpa_status st, char *buf, size_t cap);

/* "d0 @52 FPDU #0 len 42 crc good markers 1 | Send MSN 1 ..."; the
 * format of mpa-decode's output and of the unit tests' event logs. */
size_t mpa_event_format(const mpa_event *ev, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
