/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libmpa common definitions: library status codes.
 *
 * A status says whether the library could decode something; it never
 * says whether the peer conformed.  Non-conformance is a finding
 * (mpa/findings.h) carrying a requirement id.  The protocol's own wire
 * error codes (TERMINATE Layer/EType/ErrorCode) are a third thing and live
 * in mpa/ddp.h.
 */
#ifndef MPA_COMMON_H
#define MPA_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mpa_status {
    MPA_OK = 0,          /* decoded / encoded                               */
    MPA_NEED_MORE = 1,   /* input ends early: *need says how many more      */
    MPA_E_INVALID = -1,  /* input cannot be decoded as this structure       */
    MPA_E_ARG = -2,      /* caller error: NULL pointer, bad parameter       */
    MPA_E_NOSPACE = -3,  /* encoder: output buffer too small                */
} mpa_status;

/* Static, never NULL. */
const char *mpa_status_str(mpa_status st);

/* The library's version, "MAJOR.MINOR.PATCH" (static).  The toolkit has
 * one version: every program reports this one. */
const char *mpa_version(void);

#ifdef __cplusplus
}
#endif
#endif
