/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The plugin's entry points (doc/README.plugins of Wireshark): the
 * version it was built for, what it is (plugin_describe: 4.2 and later,
 * 4.0 does not install wsutil/plugins.h), and the
 * protocols it registers.
 */
#define WS_BUILD_DLL
#include <wireshark.h>

#include <epan/proto.h>
#include <ws_version.h>

#include "ws-compat.h"
#if IW_WS_AT_LEAST(4, 2)
#include <wsutil/plugins.h>
#endif


/* The toolkit's version (the VERSION file), from the build. */
#ifndef IWMPA_VERSION
#error "IWMPA_VERSION is defined by the build from the VERSION file"
#endif

WS_DLL_PUBLIC_DEF const gchar plugin_version[] = IWMPA_VERSION;
WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;

WS_DLL_PUBLIC void plugin_register(void);

#if IW_WS_AT_LEAST(4, 2)
WS_DLL_PUBLIC uint32_t plugin_describe(void);

uint32_t plugin_describe(void)
{
    return WS_PLUGIN_DESC_DISSECTOR;
}
#endif

void proto_register_iwmpa(void);
void proto_reg_handoff_iwmpa(void);

void plugin_register(void)
{
    static proto_plugin plug;
    plug.register_protoinfo = proto_register_iwmpa;
    plug.register_handoff = proto_reg_handoff_iwmpa;
    proto_register_plugin(&plug);
}
