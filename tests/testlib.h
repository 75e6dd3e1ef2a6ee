/* Shared helpers for unit tests (beyond the harness in t.h). */
#ifndef MPA_TESTLIB_H
#define MPA_TESTLIB_H
#include "t.h"
#endif
