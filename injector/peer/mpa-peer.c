/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-peer: the reference MPA endpoint (RFC 5044 7.1, RFC 6581) over
 * kernel TCP sockets, either role, with fault modes that each break one
 * rule.  See docs/mpa-peer.1.  The options are read in options.c, the
 * connections served in serve.c, the protocol is conn.c's (peer.h).
 */
#include "peer.h"
#include "prog.h"

int main(int argc, char **argv)
{
    peer_cfg cfg;
    prog_init("mpa-peer");
    peer_options(argc, argv, &cfg);
    return peer_serve(&cfg);
}
