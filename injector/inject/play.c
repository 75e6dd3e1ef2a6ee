/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Playing scenarios against a device (see play.h). */
#define _GNU_SOURCE /* kill, setpgid with -std=c11 */
#include "play.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* HOST:PORT, [V6]:PORT or PORT. */
int play_split_hostport(const char *s, char *host, size_t hn, char *port, size_t pn, int need_host)
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

static player *g_lab; /* for atexit */

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
static const char *dev_addr(const player *L, const char *thost)
{
    if (!L->netns)
        return thost && thost[0] ? thost : L->c.family == 6 ? "::1" : "127.0.0.1";
    return L->c.family == 6 ? L->lab.dut_addr6 : L->lab.dut_addr4;
}

static const char *our_addr(const player *L, const char *lhost)
{
    if (!L->netns)
        return lhost && lhost[0] ? lhost : L->c.family == 6 ? "::1" : "127.0.0.1";
    return L->c.family == 6 ? (L->raw ? L->lab.raw_addr6 : L->lab.inj_addr6)
                          : (L->raw ? L->lab.raw_addr4 : L->lab.inj_addr4);
}

/* Each "{key}" of tmpl replaced by its value (keys[i] -> vals[i], keys
 * NULL-terminated); cut at n - 1 octets. */
void play_expand(const char *tmpl, const char *const *keys, const char *const *vals, char *out, size_t n)
{
    size_t o = 0;
    for (const char *p = tmpl; *p && o + 1 < n; p++) {
        const char *v = NULL;
        size_t skip = 0;
        for (unsigned i = 0; *p == '{' && keys[i] && !v; i++) {
            size_t kl = strlen(keys[i]);
            if (!strncmp(p + 1, keys[i], kl) && p[1 + kl] == '}')
                v = vals[i], skip = kl + 2;
        }
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

/* {addr} {peer} {port} in the command. */
static void expand(const player *L, const char *addr, const char *peer, char *out, size_t n)
{
    static const char *const keys[] = {"addr", "peer", "port", NULL};
    const char *const vals[] = {addr, peer, L->port};
    play_expand(L->cmd, keys, vals, out, n);
}

static int lab_start_device(player *L, char *err, size_t errlen)
{
    char cmd[2048];
    expand(L, dev_addr(L, L->thost), our_addr(L, L->lhost), cmd, sizeof cmd);
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
    player *L = user;
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
static void lab_stop_device(player *L)
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
static int lab_wait_port(player *L, const char *host, char *err, size_t errlen)
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


/* ---- the player ---------------------------------------------------------- */

int play_num_arg(const char *arg, long min, long max, long *out)
{
    if (!arg || !isdigit((unsigned char)arg[0]))
        return -1;
    errno = 0;
    char *end;
    long v = strtol(arg, &end, 10);
    if (errno || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

static void on_signal(int sig)
{
    (void)sig;
    run_interrupted = 1;
}

void play_catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

int play_init(player *P, const play_cfg *c, char *err, size_t errlen)
{
    memset(P, 0, sizeof *P);
    P->c = *c;
    if (!P->c.transport)
        P->c.transport = "socket";
    if (strcmp(P->c.transport, "socket") && strcmp(P->c.transport, "raw")) {
        snprintf(err, errlen, "--transport %s: socket or raw", P->c.transport);
        return -1;
    }
    P->raw = !strcmp(P->c.transport, "raw");
    if (c->lab_cmd && c->spawn_cmd) {
        snprintf(err, errlen, "--lab and --spawn both start the device: give one");
        return -1;
    }
    int starts = c->lab_cmd || c->spawn_cmd;
    if (c->target && play_split_hostport(c->target, P->thost, sizeof P->thost, P->tport, sizeof P->tport, !starts)) {
        snprintf(err, errlen, "--target %s: expected HOST:PORT (or [IPv6]:PORT)", c->target);
        return -1;
    }
    if (c->listen_at && play_split_hostport(c->listen_at, P->lhost, sizeof P->lhost, P->lport, sizeof P->lport, 0)) {
        snprintf(err, errlen, "--listen %s: expected [ADDR:]PORT", c->listen_at);
        return -1;
    }
    if (P->raw && !c->lab_cmd && (!c->iface || !c->src)) {
        snprintf(err, errlen, "--transport raw needs --iface and --src (or --lab)");
        return -1;
    }
    if (starts) {
        P->cmd = c->lab_cmd ? c->lab_cmd : c->spawn_cmd;
        P->netns = c->lab_cmd != NULL;
    }
    return 0;
}

int play_start(player *P, char *err, size_t errlen)
{
    if (!P->cmd)
        return 0;
    g_lab = P;
    static int registered;
    if (!registered++)
        atexit(lab_atexit);
    if (P->netns) {
        char e2[400];
        if (netns_lab_up(&P->lab, e2, sizeof e2)) {
            snprintf(err, errlen, "lab: %s", e2);
            return -1;
        }
    }
    return 0;
}

const char *play_missing(const player *P, const scenario *s, char *buf, size_t n)
{
    if (s->device_initiator && !P->c.listen_at) {
        snprintf(buf, n, "the device is the Initiator: say where it connects to (--listen PORT)");
        return buf;
    }
    if (!s->device_initiator && !P->c.target) {
        snprintf(buf, n, "the device is the Responder: say where it listens (--target HOST:PORT%s)",
                 P->cmd ? ", or --target PORT with --lab or --spawn" : "");
        return buf;
    }
    return NULL;
}

/* A run that could not begin: every step "not run". */
static void no_run(const scenario *s, run_result *r, const char *why)
{
    memset(r, 0, sizeof *r);
    r->verdict = V_ERROR;
    r->decided_at = -1;
    snprintf(r->error, sizeof r->error, "%.390s", why);
    r->steps = calloc(s->nsteps, sizeof *r->steps);
    r->nsteps = r->steps ? s->nsteps : 0;
}

void play_run(player *P, const scenario *s, const char *trace_path, run_result *r)
{
    const play_cfg *c = &P->c;
    run_opts o;
    memset(&o, 0, sizeof o);
    o.transport = c->transport;
    o.progress = c->progress;
    o.verbose = c->verbose;
    o.tp.family = c->family;
    o.tp.bind = c->bind;
    o.tp.iface = c->iface;
    o.tp.src_addr = c->src;
    o.tp.src_port = c->src_port;
    o.tp.gw_mac = c->gw_mac;
    o.tp.mss = c->mss;
    if (s->device_initiator) {
        o.tp.host = P->lhost[0] ? P->lhost : NULL;
        o.tp.port = P->lport;
    } else {
        o.tp.host = P->thost;
        o.tp.port = P->tport;
    }
    if (P->cmd) {
        const char *dev = dev_addr(P, P->thost);
        const char *us = our_addr(P, P->lhost);
        snprintf(P->port, sizeof P->port, "%s", s->device_initiator ? P->lport : P->tport);
        if (P->raw && P->netns) {
            o.tp.iface = P->lab.veth_inj;
            o.tp.src_addr = us;
        }
        if (s->device_initiator) {
            if (P->netns)
                o.tp.host = P->raw ? us : NULL;
            o.on_listen = lab_on_listen;
            o.on_listen_user = P;
        } else {
            o.tp.host = dev;
            char err[400], why[460];
            if (lab_start_device(P, err, sizeof err) || lab_wait_port(P, dev, err, sizeof err)) {
                snprintf(why, sizeof why, "could not start the device: %s", err);
                no_run(s, r, why);
                lab_stop_device(P);
                return;
            }
        }
    }
    o.trace_path = trace_path;
    if (c->progress)
        fprintf(c->progress, "%s (%s): device is the MPA %s, %s transport\n", s->name, s->file,
                s->device_initiator ? "Initiator" : "Responder", c->transport);
    run_scenario(s, &o, r);
    if (P->cmd)
        lab_stop_device(P);
}

void play_done(player *P)
{
    if (P->cmd && P->dev_started)
        lab_stop_device(P);
    if (P->netns && P->lab.up)
        netns_lab_down(&P->lab);
    if (g_lab == P)
        g_lab = NULL;
}

/* DIR/NAME.pcapng for scenario i: NAME is the scenario's name with
 * anything but letters, digits, '.', '_' and '-' made '_'; a name that
 * an earlier scenario of the run has too gets -2, -3, ... */
void play_trace_name(char *out, size_t n, const char *dir, const scenario *sc, int i)
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
