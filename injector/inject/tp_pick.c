/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Choosing a transport by name (see tp_pick.h). */
#include "tp_pick.h"

#include <stdio.h>
#include <string.h>

#include "tp_raw.h"
#include "tp_sock.h"

tp *tp_new(const char *name, const tp_cfg *cfg, inj_trace *trace, char *err, size_t errlen)
{
    if (!name || !strcmp(name, "socket"))
        return tp_sock_new(cfg, trace, err, errlen);
    if (!strcmp(name, "raw"))
        return tp_raw_new(cfg, trace, err, errlen);
    snprintf(err, errlen, "unknown transport \"%s\" (socket or raw)", name);
    return NULL;
}
