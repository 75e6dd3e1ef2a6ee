/* Transport selection and the clock (see tp.h). */
#include "tp.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

int64_t tp_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

tp *tp_new(const char *name, const tp_cfg *cfg, inj_trace *trace, char *err, size_t errlen)
{
    if (!name || !strcmp(name, "socket"))
        return tp_sock_new(cfg, trace, err, errlen);
    if (!strcmp(name, "raw"))
        return tp_raw_new(cfg, trace, err, errlen);
    snprintf(err, errlen, "unknown transport \"%s\" (socket or raw)", name);
    return NULL;
}
