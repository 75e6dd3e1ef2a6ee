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

static void on_signal(int sig)
{
    (void)sig;
    run_interrupted = 1;
}

/* HOST:PORT, [V6]:PORT or PORT. */
static int split_hostport(const char *s, char *host, size_t hn, char *port, size_t pn, int need_host)
{
    const char *colon;
    if (s[0] == '[') {
        const char *rb = strchr(s, ']');
        if (!rb || rb[1] != ':')
            return -1;
        snprintf(host, hn, "%.*s", (int)(rb - s - 1), s + 1);
        snprintf(port, pn, "%s", rb + 2);
    } else if ((colon = strrchr(s, ':')) != NULL && strchr(s, ':') == colon) {
        snprintf(host, hn, "%.*s", (int)(colon - s), s);
        snprintf(port, pn, "%s", colon + 1);
    } else {
        if (need_host)
            return -1;
        host[0] = 0;
        snprintf(port, pn, "%s", s);
    }
    if (!port[0] || strspn(port, "0123456789") != strlen(port) || atoi(port) > 65535)
        return -1;
    if (need_host && !host[0])
        return -1;
    return 0;
}

/* ---- the device under test, started by us ----------------------------- */

/* --lab COMMAND runs the device in a network namespace of its own (a
 * veth pair away); --spawn COMMAND runs it here, on the loopback or
 * wherever its command line says.  Either way it is started afresh for
 * every scenario and stopped after it. */
typedef struct lab_ctx {
    netns_lab lab;
    const char *cmd;
    int netns;          /* --lab; 0: --spawn */
    char port[16];
    int family;
    int raw;
    pid_t dev;
    int dev_started;
} lab_ctx;

static lab_ctx *g_lab;

static void lab_atexit(void)
{
    if (g_lab && g_lab->netns)
        netns_lab_down(&g_lab->lab);
    else if (g_lab && g_lab->dev_started && g_lab->dev > 0) {
        kill(-g_lab->dev, SIGKILL);
        waitpid(g_lab->dev, NULL, 0);
    }
}

/* The device's address and ours. */
static const char *dev_addr(const lab_ctx *L, const char *thost)
{
    if (!L->netns)
        return thost && thost[0] ? thost : L->family == 6 ? "::1" : "127.0.0.1";
    return L->family == 6 ? L->lab.dut_addr6 : L->lab.dut_addr4;
}

static const char *our_addr(const lab_ctx *L, const char *lhost)
{
    if (!L->netns)
        return lhost && lhost[0] ? lhost : L->family == 6 ? "::1" : "127.0.0.1";
    return L->family == 6 ? (L->raw ? L->lab.raw_addr6 : L->lab.inj_addr6)
                          : (L->raw ? L->lab.raw_addr4 : L->lab.inj_addr4);
}

/* {addr} {peer} {port} in the command. */
static void expand(const lab_ctx *L, const char *addr, const char *peer, char *out, size_t n)
{
    size_t o = 0;
    for (const char *p = L->cmd; *p && o + 1 < n; p++) {
        const char *v = NULL;
        size_t skip = 0;
        if (!strncmp(p, "{addr}", 6))
            v = addr, skip = 6;
        else if (!strncmp(p, "{peer}", 6))
            v = peer, skip = 6;
        else if (!strncmp(p, "{port}", 6))
            v = L->port, skip = 6;
        if (v) {
            int k = snprintf(out + o, n - o, "%s", v);
            if (k > 0)
                o += (size_t)k < n - o ? (size_t)k : n - o - 1;
            p += skip - 1;
        } else {
            out[o++] = *p;
        }
    }
    out[o] = 0;
}

static const char *g_thost, *g_lhost;

static int lab_start_device(lab_ctx *L, char *err, size_t errlen)
{
    char cmd[2048];
    expand(L, dev_addr(L, g_thost), our_addr(L, g_lhost), cmd, sizeof cmd);
    if (L->netns) {
        L->dev = netns_lab_spawn(&L->lab, cmd, err, errlen);
    } else {
        fflush(NULL);
        L->dev = fork();
        if (L->dev == 0) {
            setpgid(0, 0);
            signal(SIGPIPE, SIG_DFL);
            execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
            _exit(127);
        }
        if (L->dev < 0)
            snprintf(err, errlen, "fork: %s", strerror(errno));
        else
            setpgid(L->dev, L->dev);
    }
    if (L->dev <= 0)
        return -1;
    L->dev_started = 1;
    return 0;
}

static void lab_on_listen(void *user, const char *port)
{
    lab_ctx *L = user;
    char err[300];
    snprintf(L->port, sizeof L->port, "%s", port);
    if (!L->dev_started && lab_start_device(L, err, sizeof err))
        fprintf(stderr, "mpa-inject: device: %s\n", err);
}

/* Whether a socket listens on TCP port (any address) in our network
 * namespace: /proc/net/tcp and tcp6, state 0A.  Read rather than
 * probed by connecting, so the device never sees a connection that is
 * not the scenario's. */
static int port_listening(const char *port)
{
    unsigned want = (unsigned)atoi(port);
    static const char *const files[] = {"/proc/net/tcp", "/proc/net/tcp6"};
    for (int i = 0; i < 2; i++) {
        FILE *f = fopen(files[i], "r");
        if (!f)
            continue;
        char line[512];
        int found = 0;
        while (!found && fgets(line, sizeof line, f)) {
            /* "  0: 0100007F:1F40 00000000:0000 0A ..." */
            char *colon = strchr(line, ':');
            colon = colon ? strchr(colon + 1, ':') : NULL;
            unsigned p = 0, st = 0;
            if (colon && sscanf(colon + 1, "%x %*s %x", &p, &st) == 2 && p == want && st == 0x0A)
                found = 1;
        }
        fclose(f);
        if (found)
            return 1;
    }
    return 0;
}

/* Stop the device of one scenario (it is started afresh for the next):
 * SIGTERM to its process group, SIGKILL after 2 s. */
static void lab_stop_device(lab_ctx *L)
{
    if (!L->dev_started)
        return;
    if (L->netns) {
        netns_lab_kill(&L->lab);
    } else {
        kill(-L->dev, SIGTERM);
        int st;
        for (int i = 0; i < 200; i++) {
            if (waitpid(L->dev, &st, WNOHANG) == L->dev)
                goto reaped;
            usleep(10000);
        }
        kill(-L->dev, SIGKILL);
        waitpid(L->dev, &st, 0);
    reaped:
        /* the shell may be gone before what it started: the rest of the
         * group goes too, and the next device must find the port free */
        kill(-L->dev, SIGKILL);
        for (int i = 0; i < 200 && L->port[0] && port_listening(L->port); i++)
            usleep(10000);
    }
    L->dev_started = 0;
}

/* A listening device needs a moment before we connect: wait until its
 * port listens (at most 3 s).  -1 + err when it exited first. */
static int lab_wait_port(lab_ctx *L, const char *host, char *err, size_t errlen)
{
    for (int i = 0; i < 300; i++) {
        if (L->netns ? netns_lab_port_open(&L->lab, host, L->port) : port_listening(L->port))
            return 0;
        int st;
        if (!L->netns && waitpid(L->dev, &st, WNOHANG) == L->dev) {
            L->dev_started = 0;
            if (WIFEXITED(st))
                snprintf(err, errlen, "the device command exited with status %d before it listened on port %s",
                         WEXITSTATUS(st), L->port);
            else
                snprintf(err, errlen, "the device command died of signal %d before it listened on port %s",
                         WTERMSIG(st), L->port);
            return -1;
        }
        usleep(10000);
    }
    return 0; /* not listening yet: connecting will say what happens */
}

/* ---- report ------------------------------------------------------------ */

static const char *verdict_upper(run_verdict v)
{
    return v == V_PASS ? "PASS" : v == V_FAIL ? "FAIL" : v == V_ERROR ? "ERROR" : "?";
}

static void print_result(FILE *f, const scenario *s, const run_result *r, const char *transport, int quiet)
{
    fprintf(f, "%s %s (%s): %.1f ms", verdict_upper(r->verdict), s->name, s->file, r->total_ms);
    if (r->verdict == V_FAIL && r->decided_at >= 0) {
        const sc_step *st = &s->steps[r->decided_at];
        fprintf(f, ", step %d", r->decided_at + 1);
        if (st->nreq) {
            fprintf(f, " [");
            for (unsigned k = 0; k < st->nreq; k++)
                fprintf(f, "%s%s", k ? " " : "", st->req[k]);
            fprintf(f, "]");
        }
    }
    fprintf(f, "\n");
    if (r->verdict == V_FAIL && r->decided_at >= 0) {
        const run_step *rs = &r->steps[r->decided_at];
        fprintf(f, "  %s\n  %s\n", rs->what, rs->detail);
    }
    if (r->error[0])
        fprintf(f, "  %s\n", r->error);
    if (quiet)
        return;
    if (r->remote[0])
        fprintf(f, "  device %s (%s), us %s, %s transport\n", r->remote, s->device_initiator ? "initiator" : "responder",
                r->local, transport);
    fprintf(f, "  %llu octets sent, %llu received", (unsigned long long)r->sent_octets,
            (unsigned long long)r->recv_octets);
    if (r->trace[0])
        fprintf(f, "; trace %s (%llu packets)", r->trace, (unsigned long long)r->trace_packets);
    fprintf(f, "\n");
    for (int dev = 1; dev >= 0; dev--) {
        unsigned n = 0;
        for (unsigned i = 0; i < r->nfindings; i++)
            if (r->findings[i].from_device == dev)
                n++;
        if (!n)
            continue;
        fprintf(f, "  libmpa findings in %s octets%s:\n", dev ? "the device's" : "our", dev ? "" : " (deliberate?)");
        for (unsigned i = 0; i < r->nfindings; i++) {
            const run_finding *x = &r->findings[i];
            if (x->from_device != dev)
                continue;
            const mpa_rule *ru = mpa_rule_get(x->id);
            fprintf(f, "    %-7s %-24s @%-6llu %s%s\n", ru ? mpa_severity_str(ru->severity) : "?", ru ? ru->id : "?",
                    (unsigned long long)x->off, x->msg, x->expected ? " (expected by the scenario)" : "");
        }
    }
    if (r->findings_dropped)
        fprintf(f, "  (%u more findings not kept)\n", r->findings_dropped);
    if (r->unexamined)
        fprintf(f, "  %u thing%s the device sent that no step looked at, first: %s\n", r->unexamined,
                r->unexamined == 1 ? "" : "s", r->unexamined_first);
}

static cJSON *json_result(const scenario *s, const run_result *r, const char *transport)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "scenario", s->name);
    cJSON_AddStringToObject(o, "file", s->file);
    cJSON_AddStringToObject(o, "description", s->description);
    cJSON_AddStringToObject(o, "device_role", s->device_initiator ? "initiator" : "responder");
    cJSON_AddStringToObject(o, "transport", transport);
    cJSON_AddStringToObject(o, "verdict", run_verdict_str(r->verdict));
    if (r->error[0])
        cJSON_AddStringToObject(o, "error", r->error);
    if (r->decided_at >= 0)
        cJSON_AddNumberToObject(o, "decided_at_step", r->decided_at + 1);
    cJSON *rq = cJSON_AddArrayToObject(o, "requirements");
    for (unsigned k = 0; k < s->nreq; k++)
        cJSON_AddItemToArray(rq, cJSON_CreateString(s->req[k]));
    cJSON_AddStringToObject(o, "device", r->remote);
    cJSON_AddStringToObject(o, "local", r->local);
    cJSON_AddNumberToObject(o, "duration_ms", r->total_ms);
    cJSON *st = cJSON_AddArrayToObject(o, "steps");
    static const char *const verbs[] = {"", "open", "send", "expect", "sleep", "close", "abort"};
    for (unsigned i = 0; i < r->nsteps; i++) {
        const run_step *rs = &r->steps[i];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddNumberToObject(j, "index", i + 1);
        cJSON_AddStringToObject(j, "verb", verbs[s->steps[i].verb]);
        cJSON_AddStringToObject(j, "verdict", run_verdict_str((run_verdict)rs->verdict));
        cJSON_AddStringToObject(j, "what", rs->what);
        cJSON_AddStringToObject(j, "detail", rs->detail);
        if (s->steps[i].note[0])
            cJSON_AddStringToObject(j, "note", s->steps[i].note);
        cJSON *sr = cJSON_AddArrayToObject(j, "requirements");
        for (unsigned k = 0; k < s->steps[i].nreq; k++)
            cJSON_AddItemToArray(sr, cJSON_CreateString(s->steps[i].req[k]));
        if (rs->verdict != V_NOT_RUN) {
            cJSON_AddNumberToObject(j, "t_ms", rs->t_ms);
            cJSON_AddNumberToObject(j, "took_ms", rs->took_ms);
        }
        if (s->steps[i].verb == SV_EXPECT && rs->alt >= 0)
            cJSON_AddNumberToObject(j, "matched_alternative", rs->alt + 1);
        cJSON_AddItemToArray(st, j);
    }
    cJSON *fa = cJSON_AddArrayToObject(o, "findings");
    for (unsigned i = 0; i < r->nfindings; i++) {
        const run_finding *x = &r->findings[i];
        const mpa_rule *ru = mpa_rule_get(x->id);
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "id", ru ? ru->id : "?");
        cJSON_AddStringToObject(j, "severity", ru ? mpa_severity_str(ru->severity) : "?");
        cJSON_AddStringToObject(j, "from", x->from_device ? "device" : "injector");
        if (x->expected)
            cJSON_AddTrueToObject(j, "expected");
        cJSON_AddNumberToObject(j, "stream_offset", (double)x->off);
        cJSON_AddNumberToObject(j, "t_ms", x->t_ms);
        cJSON_AddStringToObject(j, "message", x->msg);
        cJSON_AddItemToArray(fa, j);
    }
    cJSON *cv = cJSON_AddObjectToObject(o, "variables");
    for (unsigned i = 0; i < r->nvars; i++)
        cJSON_AddNumberToObject(cv, r->vars[i], (double)r->var_val[i]);
    cJSON_AddNumberToObject(o, "octets_sent", (double)r->sent_octets);
    cJSON_AddNumberToObject(o, "octets_received", (double)r->recv_octets);
    cJSON_AddNumberToObject(o, "unexamined", r->unexamined);
    if (r->trace[0])
        cJSON_AddStringToObject(o, "trace", r->trace);
    return o;
}

/* DIR/NAME.pcapng for scenario i: NAME is the scenario's name with
 * anything but letters, digits, '.', '_' and '-' made '_'; a name that
 * an earlier scenario of the run has too gets -2, -3, ... */
static void trace_name(char *out, size_t n, const char *dir, const scenario *sc, int i)
{
    char base[sizeof sc[i].name];
    size_t k = 0;
    for (const char *p = sc[i].name; *p && k + 1 < sizeof base; p++) {
        int keep = isalnum((unsigned char)*p) || *p == '_' || *p == '-' || (*p == '.' && k > 0);
        base[k++] = keep ? *p : '_';
    }
    base[k] = 0;
    int same = 0;
    for (int j = 0; j < i; j++)
        if (!strcmp(sc[j].name, sc[i].name))
            same++;
    if (same)
        snprintf(out, n, "%s/%s-%d.pcapng", dir, base, same + 1);
    else
        snprintf(out, n, "%s/%s.pcapng", dir, base);
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
            src_port = strtol(optarg, NULL, 10);
            if (src_port <= 0 || src_port > 65535) {
                fprintf(stderr, "mpa-inject: --src-port %s: not a port\n", optarg);
                return 2;
            }
            break;
        case O_GW_MAC: gw_mac = optarg; break;
        case O_MSS:
            mss = strtol(optarg, NULL, 10);
            if (mss < 64 || mss > 65495) {
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
    char thost[256] = "", tport[16] = "", lhost[256] = "", lport[16] = "";
    if (target && split_hostport(target, thost, sizeof thost, tport, sizeof tport, lab_cmd == NULL && spawn_cmd == NULL)) {
        fprintf(stderr, "mpa-inject: --target %s: expected HOST:PORT (or [IPv6]:PORT)\n", target);
        return 2;
    }
    if (listen_at && split_hostport(listen_at, lhost, sizeof lhost, lport, sizeof lport, 0)) {
        fprintf(stderr, "mpa-inject: --listen %s: expected [ADDR:]PORT\n", listen_at);
        return 2;
    }
    for (int i = 0; i < nfiles; i++) {
        if (sc[i].device_initiator && !listen_at) {
            fprintf(stderr, "mpa-inject: %s: the device is the Initiator: say where it connects to (--listen PORT)\n",
                    sc[i].file);
            return 2;
        }
        if (!sc[i].device_initiator && !target) {
            fprintf(stderr, "mpa-inject: %s: the device is the Responder: say where it listens (--target HOST:PORT%s)\n",
                    sc[i].file, lab_cmd || spawn_cmd ? ", or --target PORT with --lab or --spawn" : "");
            return 2;
        }
    }
    int raw = !strcmp(transport, "raw");
    if (lab_cmd && spawn_cmd) {
        fprintf(stderr, "mpa-inject: --lab and --spawn both start the device: give one\n");
        return 2;
    }
    if (raw && !lab_cmd && (!iface || !src)) {
        fprintf(stderr, "mpa-inject: --transport raw needs --iface and --src (or --lab)\n");
        return 2;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    lab_ctx L;
    memset(&L, 0, sizeof L);
    const char *dev_cmd = lab_cmd ? lab_cmd : spawn_cmd;
    g_thost = thost;
    g_lhost = lhost;
    if (dev_cmd) {
        L.cmd = dev_cmd;
        L.netns = lab_cmd != NULL;
        L.family = family == 6 ? 6 : 4;
        L.raw = raw;
        g_lab = &L;
        atexit(lab_atexit);
    }
    if (lab_cmd) {
        char err[400];
        if (netns_lab_up(&L.lab, err, sizeof err)) {
            fprintf(stderr, "mpa-inject: lab: %s\n", err);
            return 2;
        }
    }
    FILE *prog = quiet ? NULL : (json && !strcmp(json, "-")) ? stderr : stdout;
    FILE *outf = (json && !strcmp(json, "-")) ? stderr : stdout;
    cJSON *doc = json ? cJSON_CreateObject() : NULL;
    cJSON *runs = doc ? cJSON_AddArrayToObject(doc, "runs") : NULL;
    unsigned n_pass = 0, n_fail = 0, n_err = 0;
    if (!no_trace && !trace_file && trace_dir && strcmp(trace_dir, "."))
        mkdir(trace_dir, 0777);
    for (int i = 0; i < nfiles && !run_interrupted; i++) {
        scenario *s = &sc[i];
        run_opts o;
        memset(&o, 0, sizeof o);
        o.transport = transport;
        o.progress = prog;
        o.verbose = verbose;
        o.tp.family = family;
        o.tp.bind = bind_addr;
        o.tp.iface = iface;
        o.tp.src_addr = src;
        o.tp.src_port = (uint16_t)src_port;
        o.tp.gw_mac = gw_mac;
        o.tp.mss = (uint16_t)mss;
        if (s->device_initiator) {
            o.tp.host = lhost[0] ? lhost : NULL;
            o.tp.port = lport;
        } else {
            o.tp.host = thost;
            o.tp.port = tport;
        }
        if (dev_cmd) {
            const char *dev = dev_addr(&L, thost);
            const char *us = our_addr(&L, lhost);
            snprintf(L.port, sizeof L.port, "%s", s->device_initiator ? lport : tport);
            if (raw && L.netns) {
                o.tp.iface = L.lab.veth_inj;
                o.tp.src_addr = us;
            }
            if (s->device_initiator) {
                if (L.netns)
                    o.tp.host = raw ? us : NULL;
                o.on_listen = lab_on_listen;
                o.on_listen_user = &L;
            } else {
                o.tp.host = dev;
                char err[400];
                if (lab_start_device(&L, err, sizeof err) || lab_wait_port(&L, dev, err, sizeof err)) {
                    /* a run that could not begin: every step "not run" */
                    run_result r;
                    memset(&r, 0, sizeof r);
                    r.verdict = V_ERROR;
                    r.decided_at = -1;
                    snprintf(r.error, sizeof r.error, "could not start the device: %.300s", err);
                    r.steps = calloc(s->nsteps, sizeof *r.steps);
                    r.nsteps = r.steps ? s->nsteps : 0;
                    print_result(outf, s, &r, transport, quiet);
                    if (runs)
                        cJSON_AddItemToArray(runs, json_result(s, &r, transport));
                    run_result_free(&r);
                    n_err++;
                    continue;
                }
            }
        }
        char tpath[1024];
        const char *tp_path = NULL;
        if (!no_trace) {
            if (trace_file)
                snprintf(tpath, sizeof tpath, "%s", trace_file);
            else
                trace_name(tpath, sizeof tpath, trace_dir, sc, i);
            tp_path = tpath;
        }
        o.trace_path = tp_path;
        if (prog)
            fprintf(prog, "%s (%s): device is the MPA %s, %s transport\n", s->name, s->file,
                    s->device_initiator ? "Initiator" : "Responder", transport);
        run_result r;
        run_scenario(s, &o, &r);
        if (dev_cmd)
            lab_stop_device(&L);
        print_result(outf, s, &r, transport, quiet);
        if (runs)
            cJSON_AddItemToArray(runs, json_result(s, &r, transport));
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
    if (lab_cmd)
        netns_lab_down(&L.lab);
    g_lab = NULL;
    return rc;
}
