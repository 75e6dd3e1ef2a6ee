/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The plugin's entry points (doc/README.plugins of Wireshark 4.0): the
 * version it was built for, and the protocols it registers.
 */
#define WS_BUILD_DLL
#include <wireshark.h>

#include <epan/proto.h>
#include <ws_version.h>


/* The toolkit's version (the VERSION file), from the build. */
#ifndef IWMPA_VERSION
#error "IWMPA_VERSION is defined by the build from the VERSION file"
#endif

WS_DLL_PUBLIC_DEF const gchar plugin_version[] = IWMPA_VERSION;
WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;

WS_DLL_PUBLIC void plugin_register(void);

void proto_register_iwmpa(void);
void proto_reg_handoff_iwmpa(void);

void plugin_register(void)
{
    static proto_plugin plug;
    plug.register_protoinfo = proto_register_iwmpa;
    plug.register_handoff = proto_reg_handoff_iwmpa;
    proto_register_plugin(&plug);
}
