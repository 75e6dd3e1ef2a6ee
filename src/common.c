/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libmpa common helpers: library status names, the version. */
#include "mpa/common.h"

/* The Makefile takes it from the VERSION file. */
#ifndef MPA_VERSION
#error "MPA_VERSION is defined by the build from the VERSION file"
#endif

const char *mpa_version(void) { return MPA_VERSION; }

const char *mpa_status_str(mpa_status st)
{
    switch (st) {
    case MPA_OK: return "ok";
    case MPA_NEED_MORE: return "need more input";
    case MPA_E_INVALID: return "invalid input";
    case MPA_E_ARG: return "invalid argument";
    case MPA_E_NOSPACE: return "output buffer too small";
    default: return "unknown status";
    }
}
