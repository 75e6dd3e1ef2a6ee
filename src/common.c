/* libmpa common helpers: library status names. */
#include "mpa/common.h"

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
