/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * CRC32C (Castagnoli) for the MPA FPDU CRC.
 *
 * RFC 5044 section 4.4 protects each FPDU (ULPDU_Length, ULPDU, pad and
 * any markers inside it) with the CRC32c of RFC 3385 / RFC 3720 B.4:
 * reflected polynomial 0x82F63B78, initial value 0xFFFFFFFF, final xor
 * 0xFFFFFFFF.  These functions compute the 32-bit value only; placing it
 * on the wire (RFC 5044 sends the standard CRC32C value least significant
 * octet first) is the caller's business.
 *
 * The streaming form exists because an MPA receiver sees an FPDU in
 * pieces: markers every 512 stream octets and TCP segment boundaries split
 * it, and the decoder feeds each run of octets as it arrives:
 *
 *     uint32_t s = MPA_CRC32C_INIT;
 *     s = mpa_crc32c_update(s, part1, len1);
 *     s = mpa_crc32c_update(s, part2, len2);
 *     uint32_t crc = mpa_crc32c_final(s);
 *
 * None of these functions allocates, keeps a pointer to its input, or
 * fails.  They are safe to call from several threads at once;
 * mpa_crc32c_force_portable() changes a process-wide setting.
 */
#ifndef MPA_CRC32C_H
#define MPA_CRC32C_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Raw state to start a CRC with. */
#define MPA_CRC32C_INIT 0xFFFFFFFFu

/*
 * Feeds buf[0..len) into a running CRC.  state is MPA_CRC32C_INIT or a
 * value previously returned by this function (or by
 * mpa_crc32c_portable_update(): the two share one state format).  Returns
 * the new raw state, without the final xor.  buf may be at any alignment;
 * it is only read, and not kept.  buf may be NULL when len == 0, in which
 * case state is returned unchanged.
 *
 * Splitting is free: update(update(s, a), b) equals update(s, a || b).
 */
uint32_t mpa_crc32c_update(uint32_t state, const void *buf, size_t len);

/* Turns a raw state into the CRC32C value. */
static inline uint32_t mpa_crc32c_final(uint32_t state)
{
    return state ^ 0xFFFFFFFFu;
}

/* One-shot CRC32C of buf[0..len): mpa_crc32c_final(mpa_crc32c_update(
 * MPA_CRC32C_INIT, buf, len)).  buf may be NULL when len == 0 (result 0). */
uint32_t mpa_crc32c(const void *buf, size_t len);

/* As mpa_crc32c_update(), but always the table-driven code that runs on
 * any CPU.  For tests and benchmarks comparing the two paths; the results
 * are identical for every input. */
uint32_t mpa_crc32c_portable_update(uint32_t state, const void *buf,
                                    size_t len);

/* Which code mpa_crc32c_update() uses at the moment: "sse4.2" (the x86-64
 * crc32 instruction) or "portable".  Static string, never NULL. */
const char *mpa_crc32c_impl(void);

/* For tests and benchmarks: on != 0 makes mpa_crc32c_update() use the
 * portable code from now on; on == 0 returns to the fastest code this CPU
 * supports.  Results never change, only speed. */
void mpa_crc32c_force_portable(int on);

#ifdef __cplusplus
}
#endif
#endif
