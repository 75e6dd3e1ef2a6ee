/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-inject: plays scripted MPA startup sequences (and FPDUs) against a
 * device under test and says exactly where the device deviated.
 * See docs/mpa-inject.1 and docs/mpa-inject-scenarios.md.  The options
 * are read here; the work is libinject's (batch.h).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "netns.h"
#include "prog.h"


static void usage(FILE *f)
{
    fputs("usage: mpa-inject [OPTIONS] SCENARIO.json...\n"
          "Play MPA scenarios against a device under test; exit 0 when every\n"
          "scenario passes, 1 when the device deviated, 2 on an error.\n"
          "\n"
          "The device:\n"
          "  -t, --target HOST:PORT   the device listens there (scenarios with \"device\": \"responder\")\n"
          "  -l, --listen [ADDR:]PORT the device connects to us there (\"device\": \"initiator\")\n"
          "  -4, -6                   IPv4 or IPv6 only\n"
          "      --bind ADDR          local address for connecting (socket transport)\n"
          "      --lab COMMAND        build a lab of two network namespaces joined by a veth\n"
          "                           pair, run COMMAND in the device's namespace as the device\n"
          "                           ({addr}: the device's address, {peer}: ours, {port}: the\n"
          "                           port) and play the scenarios against it; needs root\n"
          "      --lab-clean          remove the labs of mpa-inject runs that were killed, then exit\n"
          "      --spawn COMMAND      run COMMAND (sh -c) here as the device, afresh for each\n"
          "                           scenario, with {addr} {peer} {port} as for --lab; with\n"
          "                           --listen PORT 0 the chosen port is {port}\n"
          "Transport:\n"
          "      --transport socket|raw   kernel TCP (default) or libnet/libpcap with a\n"
          "                               userspace TCP (exact segments; reorder, duplicate,\n"
          "                               reseg); raw needs --iface and --src, or --lab\n"
          "      --iface IF           raw: the interface\n"
          "      --src ADDR           raw: our address (one the kernel does not own)\n"
          "      --src-port N         raw: our port (default random)\n"
          "      --gw-mac MAC         raw: next-hop MAC (default: ARP / neighbour discovery)\n"
          "      --mss N              raw: MSS we announce\n"
          "Output:\n"
          "  -w, --trace FILE         write the pcapng trace to FILE (one scenario)\n"
          "      --trace-dir DIR      write one trace per scenario, DIR/NAME.pcapng (--trace-dir .\n"
          "                           for the current folder); without -w or --trace-dir no\n"
          "                           trace is written\n"
          "      --no-trace           write no trace (the default; undoes -w and --trace-dir)\n"
          "      --json FILE          a JSON report (- for stdout)\n"
          "  -q, --quiet              only the verdicts\n"
          "  -v, --verbose            also every octet count and finding as it happens\n"
          "Scripts:\n"
          "      --check              check the scripts, send nothing\n"
          "      --set NAME=VALUE     a variable for the scripts (\"$NAME\")\n"
          "  -h, --help               this text\n"
          "      --version            the version\n",
          f);
}

enum {
    O_BIND = 256, O_LAB, O_TRANSPORT, O_IFACE, O_SRC, O_SRC_PORT, O_GW_MAC, O_MSS, O_TRACE_DIR, O_NO_TRACE,
    O_JSON, O_CHECK, O_SET, O_VERSION, O_SPAWN, O_LAB_CLEAN,
};

/* A usage error: one line, and where the options are. */
static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "mpa-inject: %s%s\n(mpa-inject --help for the options)\n", what, arg);
    return 2;
}

/* The --set values (main's, freed at exit whichever way it returns). */
static const char **g_defs;

static void free_defs(void)
{
    free(g_defs);
    g_defs = NULL;
}

int main(int argc, char **argv)
{
    prog_init("mpa-inject");
    static const struct option lo[] = {
        {"target", required_argument, NULL, 't'}, {"listen", required_argument, NULL, 'l'},
        {"bind", required_argument, NULL, O_BIND}, {"lab", required_argument, NULL, O_LAB},
        {"spawn", required_argument, NULL, O_SPAWN}, {"lab-clean", no_argument, NULL, O_LAB_CLEAN},
        {"transport", required_argument, NULL, O_TRANSPORT}, {"iface", required_argument, NULL, O_IFACE},
        {"src", required_argument, NULL, O_SRC}, {"src-port", required_argument, NULL, O_SRC_PORT},
        {"gw-mac", required_argument, NULL, O_GW_MAC}, {"mss", required_argument, NULL, O_MSS},
        {"trace", required_argument, NULL, 'w'}, {"trace-dir", required_argument, NULL, O_TRACE_DIR},
        {"no-trace", no_argument, NULL, O_NO_TRACE}, {"json", required_argument, NULL, O_JSON},
        {"quiet", no_argument, NULL, 'q'}, {"verbose", no_argument, NULL, 'v'},
        {"check", no_argument, NULL, O_CHECK}, {"set", required_argument, NULL, O_SET},
        {"help", no_argument, NULL, 'h'}, {"version", no_argument, NULL, O_VERSION}, {NULL, 0, NULL, 0},
    };
    batch_cfg b;
    memset(&b, 0, sizeof b);
    b.prog = "mpa-inject";
    play_cfg *pc = &b.play;
    pc->transport = "socket";
    long src_port = 0, mss = 0;
    const char **defs = calloc((size_t)argc + 1, sizeof *defs);
    g_defs = defs;
    atexit(free_defs);
    int c;
    opterr = 0; /* said here, in one line */
    while ((c = getopt_long(argc, argv, ":t:l:46w:qvh", lo, NULL)) != -1) {
        switch (c) {
        case 't': pc->target = optarg; break;
        case 'l': pc->listen_at = optarg; break;
        case '4': pc->family = 4; break;
        case '6': pc->family = 6; break;
        case O_BIND: pc->bind = optarg; break;
        case O_LAB: pc->lab_cmd = optarg; break;
        case O_SPAWN: pc->spawn_cmd = optarg; break;
        case O_LAB_CLEAN: return netns_lab_clean(stdout) >= 0 ? 0 : 2;
        case O_TRANSPORT: pc->transport = optarg; break;
        case O_IFACE: pc->iface = optarg; break;
        case O_SRC: pc->src = optarg; break;
        case O_SRC_PORT:
            if (play_num_arg(optarg, 1, 65535, &src_port)) {
                fprintf(stderr, "mpa-inject: --src-port %s: not a port\n", optarg);
                return 2;
            }
            pc->src_port = (uint16_t)src_port;
            break;
        case O_GW_MAC: pc->gw_mac = optarg; break;
        case O_MSS:
            if (play_num_arg(optarg, 64, 65495, &mss)) {
                fprintf(stderr, "mpa-inject: --mss %s: not in 64..65495\n", optarg);
                return 2;
            }
            pc->mss = (uint16_t)mss;
            break;
        case 'w': b.trace_file = optarg; break;
        case O_TRACE_DIR: b.trace_dir = optarg; break;
        case O_NO_TRACE: b.no_trace = 1; break;
        case O_JSON: b.json = optarg; break;
        case 'q': b.quiet = 1; break;
        case 'v': pc->verbose = 1; break;
        case O_CHECK: b.check = 1; break;
        case O_SET: defs[b.ndefs++] = optarg; break;
        case 'h': usage(stdout); return 0;
        case O_VERSION: prog_version(NULL); return 0;
        case ':': return usage_error(argv[optind - 1], " needs a value");
        default:
            if (optopt && optopt < 256) {
                char opt[3] = {'-', (char)optopt, 0};
                return usage_error("unknown option ", opt);
            }
            return usage_error("unknown option ", argv[optind - 1]);
        }
    }
    b.files = argv + optind;
    b.nfiles = argc - optind;
    b.defs = defs;
    if (b.nfiles < 1)
        return usage_error("no scenario given", "");
    if (strcmp(pc->transport, "socket") && strcmp(pc->transport, "raw")) {
        fprintf(stderr, "mpa-inject: --transport %s: socket or raw\n", pc->transport);
        return 2;
    }
    if (b.trace_file && b.nfiles > 1) {
        fprintf(stderr, "mpa-inject: -w names one trace; with %d scenarios use --trace-dir\n", b.nfiles);
        return 2;
    }
    return batch_run(&b);
}
