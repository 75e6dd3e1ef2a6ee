/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Minimal unit-test harness shared by every test program.
 *
 * Each check counts as one test; a program ends with
 *   "<name>: N passed, N failed"
 * and exits non-zero when anything failed.  t_guard() places a copy of
 * an input right before a PROT_NONE page so that a one-octet over-read
 * faults even without ASan (the picohttpparser trick).
 */
#ifndef MPA_TEST_T_H
#define MPA_TEST_T_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static unsigned t_pass, t_fail;
static const char *t_name = "test";

#define T_CHECK(cond, ...)                                                   \
    do {                                                                     \
        if (cond) {                                                          \
            t_pass++;                                                        \
        } else {                                                             \
            t_fail++;                                                        \
            fprintf(stderr, "%s:%d: FAIL: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                    \
            fputc('\n', stderr);                                             \
        }                                                                    \
    } while (0)

#define T_EQ(a, b)                                                           \
    T_CHECK((unsigned long long)(a) == (unsigned long long)(b),              \
            "%s = %llu (0x%llx), expected %s = %llu (0x%llx)", #a,           \
            (unsigned long long)(a), (unsigned long long)(a), #b,            \
            (unsigned long long)(b), (unsigned long long)(b))

#define T_STREQ(a, b)                                                        \
    T_CHECK(strcmp((a), (b)) == 0, "\"%s\" != \"%s\"", (a), (b))

#define T_MEMEQ(a, b, n) T_CHECK(memcmp((a), (b), (n)) == 0, "memory differs")

/* A page-guarded copy of buf[0..len): the octet after the copy is
 * unmapped.  Returns a pointer valid until t_guard_free(). */
static void *t_guard_base;
static size_t t_guard_size;

static inline const uint8_t *t_guard(const void *buf, size_t len)
{
    long pg = sysconf(_SC_PAGESIZE);
    size_t data_pages = (len + (size_t)pg - 1) / (size_t)pg;
    if (data_pages == 0)
        data_pages = 1;
    size_t total = (data_pages + 1) * (size_t)pg;
    if (t_guard_base)
        munmap(t_guard_base, t_guard_size);
    uint8_t *m = mmap(NULL, total, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        perror("mmap");
        exit(2);
    }
    mprotect(m + data_pages * (size_t)pg, (size_t)pg, PROT_NONE);
    t_guard_base = m;
    t_guard_size = total;
    uint8_t *dst = m + data_pages * (size_t)pg - len;
    if (len)
        memcpy(dst, buf, len);
    return dst;
}

static inline int t_done(void)
{
    if (t_guard_base)
        munmap(t_guard_base, t_guard_size);
    printf("%s: %u passed, %u failed\n", t_name, t_pass, t_fail);
    return t_fail ? 1 : 0;
}

#endif
