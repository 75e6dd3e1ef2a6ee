/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What differs between the Wireshark releases the plugin builds against
 * (4.0, 4.4, 4.6: Debian 12, 13 and unstable; scripts/plugin-matrix.sh
 * builds and tests each), decided by epan's version macros
 * (ws_version.h) or by the macro itself where one was renamed.
 *
 *  - The field-type tests IS_FT_UINT32/IS_FT_UINT64 became
 *    FT_IS_UINT32/FT_IS_UINT64 (4.2).
 *  - field_info.value is an fvalue_t * since 4.2 (an fvalue_t before).
 *  - Boolean preferences are C bools since 4.4 (gboolean before), and so
 *    is what a heuristic dissector returns (heur_dissector_t).
 *  - wmem_packet_scope() is gone in 4.6: the code uses pinfo->pool (there
 *    since 3.6) everywhere, so it needs no macro here.
 */
#ifndef IWMPA_WS_COMPAT_H
#define IWMPA_WS_COMPAT_H

#include <stdbool.h>
#include <ws_version.h>
#include <epan/ftypes/ftypes.h>

#define IW_WS_AT_LEAST(maj, min) \
    (WIRESHARK_VERSION_MAJOR > (maj) || (WIRESHARK_VERSION_MAJOR == (maj) && WIRESHARK_VERSION_MINOR >= (min)))

#ifdef FT_IS_UINT32
#define IW_FT_IS_UINT32(t) FT_IS_UINT32(t)
#define IW_FT_IS_UINT64(t) FT_IS_UINT64(t)
#else
#define IW_FT_IS_UINT32(t) IS_FT_UINT32(t)
#define IW_FT_IS_UINT64(t) IS_FT_UINT64(t)
#endif

#if IW_WS_AT_LEAST(4, 2)
#define IW_FI_VALUE(fi) ((fi)->value)
#else
#define IW_FI_VALUE(fi) (&(fi)->value)
#endif

#if IW_WS_AT_LEAST(4, 4)
typedef bool iw_pref_bool;
typedef bool iw_heur_ret;
#else
typedef gboolean iw_pref_bool;
typedef gboolean iw_heur_ret;
#endif

#endif
