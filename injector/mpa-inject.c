/*
 * mpa-inject: plays scripted MPA startup sequences (and FPDUs) against a
 * device under test and says exactly where the device deviated.
 * See docs/mpa-inject.1 and docs/mpa-inject-scenarios.md.
 */
#include <cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mpa/findings.h"
#include "netns.h"
#include "play.h"
#include "run.h"
#include "scen.h"

#ifndef MPA_VERSION
#define MPA_VERSION "0.1.0"
#endif

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
          "  -w, --trace FILE         the pcapng trace (one scenario)\n"
          "      --trace-dir DIR      one trace per scenario, DIR/NAME.pcapng (default .)\n"
          "      --no-trace           write no trace\n"
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

/* What main allocates, freed at exit whichever way it returns. */
static const char **g_defs;
static scenario *g_sc;
static int g_nsc;

static void free_globals(void)
{
    for (int i = 0; g_sc && i < g_nsc; i++)
        sc_free(&g_sc[i]);
    free(g_sc);
    free(g_defs);
    g_sc = NULL;
    g_defs = NULL;
}

/* ---- main --------------------------------------------------------------- */

enum {
    O_BIND = 256, O_LAB, O_TRANSPORT, O_IFACE, O_SRC, O_SRC_PORT, O_GW_MAC, O_MSS, O_TRACE_DIR, O_NO_TRACE,
    O_JSON, O_CHECK, O_SET, O_VERSION, O_SPAWN, O_LAB_CLEAN,
};

int main(int argc, char **argv)
{
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
    const char *target = NULL, *listen_at = NULL, *bind_addr = NULL, *lab_cmd = NULL, *transport = "socket";
    const char *spawn_cmd = NULL;
    const char *iface = NULL, *src = NULL, *gw_mac = NULL, *trace_file = NULL, *trace_dir = ".", *json = NULL;
    long src_port = 0, mss = 0;
    int family = 0, quiet = 0, verbose = 0, check = 0, no_trace = 0;
    const char **defs = calloc((size_t)argc + 1, sizeof *defs);
    g_defs = defs;
    atexit(free_globals);
    unsigned ndefs = 0;
    int c;
    while ((c = getopt_long(argc, argv, "t:l:46w:qvh", lo, NULL)) != -1) {
        switch (c) {
        case 't': target = optarg; break;
        case 'l': listen_at = optarg; break;
        case '4': family = 4; break;
        case '6': family = 6; break;
        case O_BIND: bind_addr = optarg; break;
        case O_LAB: lab_cmd = optarg; break;
        case O_SPAWN: spawn_cmd = optarg; break;
        case O_LAB_CLEAN: return netns_lab_clean(stdout) >= 0 ? 0 : 2;
        case O_TRANSPORT: transport = optarg; break;
        case O_IFACE: iface = optarg; break;
        case O_SRC: src = optarg; break;
        case O_SRC_PORT:
            if (play_num_arg(optarg, 1, 65535, &src_port)) {
                fprintf(stderr, "mpa-inject: --src-port %s: not a port\n", optarg);
                return 2;
            }
            break;
        case O_GW_MAC: gw_mac = optarg; break;
        case O_MSS:
            if (play_num_arg(optarg, 64, 65495, &mss)) {
                fprintf(stderr, "mpa-inject: --mss %s: not in 64..65495\n", optarg);
                return 2;
            }
            break;
        case 'w': trace_file = optarg; break;
        case O_TRACE_DIR: trace_dir = optarg; break;
        case O_NO_TRACE: no_trace = 1; break;
        case O_JSON: json = optarg; break;
        case 'q': quiet = 1; break;
        case 'v': verbose = 1; break;
        case O_CHECK: check = 1; break;
        case O_SET: defs[ndefs++] = optarg; break;
        case 'h': usage(stdout); return 0;
        case O_VERSION: printf("mpa-inject %s\n", MPA_VERSION); return 0;
        default: usage(stderr); return 2;
        }
    }
    int nfiles = argc - optind;
    if (nfiles < 1) {
        fprintf(stderr, "mpa-inject: no scenario given\n");
        usage(stderr);
        return 2;
    }
    if (strcmp(transport, "socket") && strcmp(transport, "raw")) {
        fprintf(stderr, "mpa-inject: --transport %s: socket or raw\n", transport);
        return 2;
    }
    if (trace_file && nfiles > 1) {
        fprintf(stderr, "mpa-inject: -w names one trace; with %d scenarios use --trace-dir\n", nfiles);
        return 2;
    }
    /* Every script is checked before anything is sent. */
    scenario *sc = calloc((size_t)nfiles, sizeof *sc);
    g_sc = sc;
    g_nsc = nfiles;
    int bad = 0;
    for (int i = 0; i < nfiles; i++) {
        char err[600];
        if (sc_load(argv[optind + i], defs, ndefs, &sc[i], err, sizeof err)) {
            fprintf(stderr, "mpa-inject: %s\n", err);
            bad = 1;
            continue;
        }
        if (sc[i].needs_raw && strcmp(transport, "raw")) {
            fprintf(stderr, "mpa-inject: %s: %s: reorder, duplicate and reseg need --transport raw\n", sc[i].file,
                    sc[i].raw_path);
            bad = 1;
        }
    }
    if (bad)
        return 2;
    if (check) {
        for (int i = 0; i < nfiles; i++) {
            printf("%s: scenario %s, device %s, %u steps: ok\n", sc[i].file, sc[i].name,
                   sc[i].device_initiator ? "initiator" : "responder", sc[i].nsteps);
        }
        return 0;
    }
    play_catch_signals();

    FILE *prog = quiet ? NULL : (json && !strcmp(json, "-")) ? stderr : stdout;
    FILE *outf = (json && !strcmp(json, "-")) ? stderr : stdout;
    play_cfg pc;
    memset(&pc, 0, sizeof pc);
    pc.transport = transport;
    pc.family = family;
    pc.bind = bind_addr;
    pc.iface = iface;
    pc.src = src;
    pc.gw_mac = gw_mac;
    pc.src_port = (uint16_t)src_port;
    pc.mss = (uint16_t)mss;
    pc.target = target;
    pc.listen_at = listen_at;
    pc.lab_cmd = lab_cmd;
    pc.spawn_cmd = spawn_cmd;
    pc.progress = prog;
    pc.verbose = verbose;
    static player P;
    {
        char err[400];
        if (play_init(&P, &pc, err, sizeof err)) {
            fprintf(stderr, "mpa-inject: %s\n", err);
            return 2;
        }
        for (int i = 0; i < nfiles; i++) {
            char why[300];
            if (play_missing(&P, &sc[i], why, sizeof why)) {
                fprintf(stderr, "mpa-inject: %s: %s\n", sc[i].file, why);
                return 2;
            }
        }
        if (play_start(&P, err, sizeof err)) {
            fprintf(stderr, "mpa-inject: %s\n", err);
            return 2;
        }
    }
    cJSON *doc = json ? cJSON_CreateObject() : NULL;
    cJSON *runs = doc ? cJSON_AddArrayToObject(doc, "runs") : NULL;
    unsigned n_pass = 0, n_fail = 0, n_err = 0;
    if (!no_trace && !trace_file && trace_dir && strcmp(trace_dir, "."))
        mkdir(trace_dir, 0777);
    for (int i = 0; i < nfiles && !run_interrupted; i++) {
        scenario *s = &sc[i];
        char tpath[1024];
        const char *tp_path = NULL;
        if (!no_trace) {
            if (trace_file)
                snprintf(tpath, sizeof tpath, "%s", trace_file);
            else
                play_trace_name(tpath, sizeof tpath, trace_dir, sc, i);
            tp_path = tpath;
        }
        run_result r;
        play_run(&P, s, tp_path, &r);
        play_print_result(outf, s, &r, transport, quiet);
        if (runs)
            cJSON_AddItemToArray(runs, play_json_result(s, &r, transport));
        if (r.verdict == V_PASS)
            n_pass++;
        else if (r.verdict == V_FAIL)
            n_fail++;
        else
            n_err++;
        run_result_free(&r);
    }
    if (nfiles > 1)
        fprintf(outf, "%u scenario%s: %u passed, %u failed, %u errors%s\n", (unsigned)nfiles, nfiles == 1 ? "" : "s",
                n_pass, n_fail, n_err, run_interrupted ? " (interrupted)" : "");
    int rc = n_err || run_interrupted ? 2 : n_fail ? 1 : 0;
    if (doc) {
        cJSON *sum = cJSON_AddObjectToObject(doc, "summary");
        cJSON_AddNumberToObject(sum, "pass", n_pass);
        cJSON_AddNumberToObject(sum, "fail", n_fail);
        cJSON_AddNumberToObject(sum, "error", n_err);
        cJSON_AddNumberToObject(sum, "exit_status", rc);
        char *txt = cJSON_Print(doc);
        FILE *jf = strcmp(json, "-") ? fopen(json, "w") : stdout;
        if (!jf || !txt || fputs(txt, jf) < 0 || fputc('\n', jf) < 0) {
            fprintf(stderr, "mpa-inject: --json %s: %s\n", json, strerror(errno));
            rc = 2;
        }
        if (jf && jf != stdout && fclose(jf)) {
            fprintf(stderr, "mpa-inject: --json %s: %s\n", json, strerror(errno));
            rc = 2;
        }
        free(txt);
        cJSON_Delete(doc);
    }
    play_done(&P);
    return rc;
}
