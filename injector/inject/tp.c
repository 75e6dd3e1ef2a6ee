/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The transports' clock (see tp.h). */
#include "tp.h"

#include <time.h>

int64_t tp_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
