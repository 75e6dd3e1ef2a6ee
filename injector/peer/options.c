/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-peer's command line (see peer.h): --help, --list-faults, and every
 * option checked against the others before anything is opened.  A
 * usage error ends the program (exit status 2) with a message.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peer.h"
#include "prog.h"

/* ---- usage ----------------------------------------------------------- */

static const char usage_text[] =
    "usage: mpa-peer --listen [ADDR:]PORT | --connect HOST:PORT [options]\n"
    "\n"
    "The reference MPA endpoint (RFC 5044, RFC 6581) over TCP.  --listen is a\n"
    "Responder and --connect an Initiator unless --role says otherwise.\n"
    "\n"
    "  --listen [ADDR:]PORT   accept connections (PORT 0: any free port, printed)\n"
    "  --connect HOST:PORT    open connections (IPv6: [ADDR]:PORT)\n"
    "  --role ROLE            initiator or responder (the MPA role, not the TCP one)\n"
    "  --markers 0|1          M this end sends: markers wanted from the peer (0)\n"
    "  --crc 0|1              C this end sends (1)\n"
    "  --rev 1|2              Rev this end sends (1; 2 with --enhanced)\n"
    "  --enhanced             RFC 6581: S=1, Rev 2, the IRD/ORD field\n"
    "  --p2p                  A=1: ask for an RTR (implies --enhanced)\n"
    "  --ird N, --ord N       0..16383 (0x3FFF: no automatic negotiation) (16)\n"
    "  --rtr LIST             RTR types supported, preferred first (send,write,read)\n"
    "  --pd HEX               private data\n"
    "  --reject               a Responder replies R=1\n"
    "  --timeout-ms N         the startup timeout and every other wait (5000)\n"
    "  --send N               Sends after the startup (0); the Responder echoes them\n"
    "  --size S               octets per Send (64)\n"
    "  --count N              connections, then exit; 0 = forever\n"
    "                         (default: 1 with --connect, 0 with --listen)\n"
    "  --concurrency C        --connect: connections at once (1)\n"
    "  --stats                print startups per second at the end\n"
    "  --fault NAME           break one rule (see --list-faults)\n"
    "  --list-faults          the faults: name, roles, rule ids as Initiator / Responder\n"
    "  -q, --quiet            no per-connection lines, no \"listening on\" line (but\n"
    "                         for --listen PORT 0)\n"
    "  -v, --verbose          findings as they come; twice: every engine event\n"
    "  -h, --help             this text\n"
    "  --version              the toolkit's version\n"
    "\n"
    "One line per connection on stdout: peer, role, end, m=sent/received\n"
    "markers, c, rev=ours/theirs, s, ird/ord/rtr, fpdus=sent/received,\n"
    "term=sent/received TERMINATE codes, findings (rule ids the engine\n"
    "reported about the other side).  Exit status: 0; 1 the other side broke\n"
    "a rule (error level); 2 usage; 3 a connection failed otherwise.\n";

static void usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "mpa-peer: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(mpa-peer --help for the options)\n");
    exit(EXIT_USAGE);
}

static unsigned long num_arg(const char *opt, const char *s, unsigned long max)
{
    char *end;
    errno = 0;
    if (!*s || *s == '-')
        usage_error("%s wants a number", opt);
    unsigned long v = strtoul(s, &end, 0);
    if (errno || *end || v > max) {
        fprintf(stderr, "mpa-peer: %s %s: not a number in 0..%lu\n", opt, s, max);
        exit(EXIT_USAGE);
    }
    return v;
}

static void parse_rtr(peer_cfg *cfg, const char *s)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", s);
    cfg->n_rtr = 0;
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
        unsigned k = !strcmp(t, "send") ? MPA_RTR_SEND : !strcmp(t, "write") ? MPA_RTR_WRITE
                     : !strcmp(t, "read")                                    ? MPA_RTR_READ
                                                                              : 0;
        if (!k)
            usage_error("--rtr: '%s' is none of send, write, read", t);
        for (unsigned i = 0; i < cfg->n_rtr; i++)
            if (cfg->rtr[i] == k)
                usage_error("--rtr: '%s' given twice", t);
        cfg->rtr[cfg->n_rtr++] = (uint8_t)k;
    }
    if (!cfg->n_rtr)
        usage_error("--rtr: %s", "no type given");
}

static void parse_pd(peer_cfg *cfg, const char *s)
{
    size_t n = strlen(s);
    if (n % 2)
        usage_error("--pd %s: an even number of hex digits, please", s);
    if (n / 2 > MPA_PD_MAX)
        usage_error("--pd: %s", "more than 512 octets");
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1 || !strchr("0123456789abcdefABCDEF", s[2 * i]) ||
            !strchr("0123456789abcdefABCDEF", s[2 * i + 1]))
            usage_error("--pd %s: not hex", s);
        cfg->pd[i] = (uint8_t)v;
    }
    cfg->pd_len = n / 2;
}

/* "[ADDR]:PORT", "ADDR:PORT" or "PORT" (addr NULL): split in place. */
static void split_hostport(char *s, const char **addr, const char **port)
{
    *addr = NULL;
    if (s[0] == '[') {
        char *e = strchr(s, ']');
        if (!e || e[1] != ':')
            usage_error("bad address %s (IPv6: [ADDR]:PORT)", s);
        *e = 0;
        *addr = s + 1;
        *port = e + 2;
        return;
    }
    char *c = strrchr(s, ':');
    if (!c) {
        *port = s;
        return;
    }
    if (strchr(s, ':') != c)
        usage_error("bad address %s (IPv6: [ADDR]:PORT)", s);
    *c = 0;
    *addr = s;
    *port = c + 1;
}

/* name, roles, ids as Initiator, ids as Responder ("n/a": not that
 * role's fault, "-": none), what it does wrong: the man page's table. */
static void list_faults(void)
{
    for (unsigned i = 1; i < FAULT__COUNT; i++) {
        const fault_info *f = fault_get((peer_fault)i);
        printf("%s\t%s\t%s\t%s\t%s\n", f->name,
               f->roles == (FAULT_ROLE_I | FAULT_ROLE_R) ? "initiator,responder"
               : f->roles == FAULT_ROLE_I              ? "initiator"
                                                       : "responder",
               (f->roles & FAULT_ROLE_I) ? f->ids_i : "n/a", (f->roles & FAULT_ROLE_R) ? f->ids_r : "n/a",
               f->what);
    }
}

void peer_options(int argc, char **argv, peer_cfg *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    enum {
        O_LISTEN = 256, O_CONNECT, O_ROLE, O_MARKERS, O_CRC, O_REV, O_ENH, O_P2P, O_IRD, O_ORD, O_RTR, O_PD,
        O_REJECT, O_TIMEOUT, O_SEND, O_SIZE, O_COUNT, O_CONC, O_STATS, O_FAULT, O_LIST_FAULTS,
    };
    static const struct option opts[] = {
        {"listen", required_argument, 0, O_LISTEN},   {"connect", required_argument, 0, O_CONNECT},
        {"role", required_argument, 0, O_ROLE},       {"markers", required_argument, 0, O_MARKERS},
        {"crc", required_argument, 0, O_CRC},         {"rev", required_argument, 0, O_REV},
        {"enhanced", no_argument, 0, O_ENH},          {"p2p", no_argument, 0, O_P2P},
        {"ird", required_argument, 0, O_IRD},         {"ord", required_argument, 0, O_ORD},
        {"rtr", required_argument, 0, O_RTR},         {"pd", required_argument, 0, O_PD},
        {"reject", no_argument, 0, O_REJECT},         {"timeout-ms", required_argument, 0, O_TIMEOUT},
        {"send", required_argument, 0, O_SEND},       {"size", required_argument, 0, O_SIZE},
        {"count", required_argument, 0, O_COUNT},     {"concurrency", required_argument, 0, O_CONC},
        {"stats", no_argument, 0, O_STATS},           {"fault", required_argument, 0, O_FAULT},
        {"list-faults", no_argument, 0, O_LIST_FAULTS}, {"quiet", no_argument, 0, 'q'},
        {"verbose", no_argument, 0, 'v'},             {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0},
    };
    int have_rev = 0, have_count = 0, have_rtr = 0, have_conc = 0, have_role = 0;
    char *where = NULL;
    cfg->crc = 1;
    cfg->ird = cfg->ord = 16;
    cfg->timeout_ms = 5000;
    cfg->size = 64;
    cfg->concurrency = 1;
    cfg->rtr[0] = MPA_RTR_SEND, cfg->rtr[1] = MPA_RTR_WRITE, cfg->rtr[2] = MPA_RTR_READ;
    cfg->n_rtr = 3;
    int o;
    opterr = 0; /* said below, in one line */
    while ((o = getopt_long(argc, argv, ":qvh", opts, NULL)) != -1) {
        switch (o) {
        case O_LISTEN:
        case O_CONNECT:
            if (where)
                usage_error("%s", "give one of --listen and --connect");
            cfg->listen = o == O_LISTEN;
            where = optarg;
            break;
        case O_ROLE:
            have_role = 1;
            if (!strcmp(optarg, "initiator"))
                cfg->role = MPA_ROLE_INITIATOR;
            else if (!strcmp(optarg, "responder"))
                cfg->role = MPA_ROLE_RESPONDER;
            else
                usage_error("--role %s: initiator or responder", optarg);
            break;
        case O_MARKERS:
            cfg->markers = (uint8_t)num_arg("--markers", optarg, 1);
            break;
        case O_CRC:
            cfg->crc = (uint8_t)num_arg("--crc", optarg, 1);
            break;
        case O_REV:
            cfg->rev = (uint8_t)num_arg("--rev", optarg, 2);
            if (!cfg->rev)
                usage_error("--rev %s: 1 or 2", optarg);
            have_rev = 1;
            break;
        case O_ENH:
            cfg->enhanced = 1;
            break;
        case O_P2P:
            cfg->p2p = cfg->enhanced = 1;
            break;
        case O_IRD:
            cfg->ird = (uint16_t)num_arg("--ird", optarg, MPA_IRD_ORD_MAX);
            break;
        case O_ORD:
            cfg->ord = (uint16_t)num_arg("--ord", optarg, MPA_IRD_ORD_MAX);
            break;
        case O_RTR:
            parse_rtr(cfg, optarg);
            have_rtr = 1;
            break;
        case O_PD:
            parse_pd(cfg, optarg);
            break;
        case O_REJECT:
            cfg->reject = 1;
            break;
        case O_TIMEOUT:
            cfg->timeout_ms = (int)num_arg("--timeout-ms", optarg, 86400000);
            if (!cfg->timeout_ms)
                usage_error("--timeout-ms %s: at least 1", optarg);
            break;
        case O_SEND:
            cfg->send_n = num_arg("--send", optarg, 1ul << 40);
            break;
        case O_SIZE:
            cfg->size = num_arg("--size", optarg, 1ul << 24);
            break;
        case O_COUNT:
            cfg->count = num_arg("--count", optarg, 1ul << 40);
            have_count = 1;
            break;
        case O_CONC:
            cfg->concurrency = (unsigned)num_arg("--concurrency", optarg, 100000);
            if (!cfg->concurrency)
                usage_error("--concurrency %s: at least 1", optarg);
            have_conc = 1;
            break;
        case O_STATS:
            cfg->stats = 1;
            break;
        case O_FAULT:
            cfg->fault = fault_find(optarg);
            if (cfg->fault == FAULT__COUNT || cfg->fault == FAULT_NONE)
                usage_error("--fault %s: no such fault (mpa-peer --list-faults)", optarg);
            break;
        case O_LIST_FAULTS:
            list_faults();
            exit(0);
        case 'q':
            cfg->quiet = 1;
            break;
        case 'v':
            cfg->verbose++;
            break;
        case 'V':
            prog_version(NULL);
            exit(0);
        case 'h':
            fputs(usage_text, stdout);
            exit(0);
        case ':':
            usage_error("%s needs a value", argv[optind - 1]);
            break;
        default:
            if (optopt > 0 && optopt < 256) {
                char opt[3] = {'-', (char)optopt, 0};
                usage_error("unknown option %s", opt);
            }
            usage_error("unknown option %s", argv[optind - 1]);
        }
    }
    if (optind < argc)
        usage_error("unexpected argument %s", argv[optind]);
    if (!where)
        usage_error("%s", "give --listen [ADDR:]PORT or --connect HOST:PORT");
    if (!cfg->listen && !strchr(where, ':'))
        usage_error("--connect %s: HOST:PORT, please", where);
    /* a copy: ps and pgrep -f keep showing the command line as given */
    static char where_buf[300];
    if (strlen(where) >= sizeof where_buf)
        usage_error("%s: too long", where);
    strcpy(where_buf, where);
    split_hostport(where_buf, &cfg->addr, &cfg->port);
    num_arg(cfg->listen ? "--listen port" : "--connect port", cfg->port, 65535);
    if (!cfg->listen && (!cfg->addr || !*cfg->addr))
        usage_error("--connect %s: HOST:PORT", cfg->port);
    if (!have_role)
        cfg->role = cfg->listen ? MPA_ROLE_RESPONDER : MPA_ROLE_INITIATOR;
    if (!have_rev)
        cfg->rev = cfg->enhanced ? 2 : 1;
    if (cfg->enhanced && cfg->rev < 2)
        usage_error("%s", "--enhanced needs Rev 2 (RFC 6581 6): drop --rev 1");
    if (have_rtr && !cfg->enhanced)
        usage_error("%s", "--rtr needs --enhanced (RTRs are RFC 6581)");
    if (cfg->enhanced && cfg->pd_len > MPA_PD_MAX - MPA_ENH_LEN)
        usage_error("%s", "--pd: at most 508 octets with --enhanced (the IRD/ORD field takes 4)");
    if (!have_count)
        cfg->count = cfg->listen ? 0 : 1;
    if (have_conc && cfg->listen)
        usage_error("%s", "--concurrency is for --connect");
    if (cfg->reject && cfg->role != MPA_ROLE_RESPONDER)
        usage_error("%s", "--reject is for a Responder");
    if (cfg->send_n && cfg->role != MPA_ROLE_INITIATOR)
        usage_error("%s", "--send is for the Initiator: a Responder echoes what it gets");
    if (cfg->fault) {
        const fault_info *f = fault_get(cfg->fault);
        unsigned mine = cfg->role == MPA_ROLE_INITIATOR ? FAULT_ROLE_I : FAULT_ROLE_R;
        if (!(f->roles & mine)) {
            fprintf(stderr, "mpa-peer: --fault %s breaks a rule of the %s; this end is the %s (see --role)\n",
                    f->name, f->roles == FAULT_ROLE_I ? "Initiator" : "Responder",
                    cfg->role == MPA_ROLE_INITIATOR ? "Initiator" : "Responder");
            exit(EXIT_USAGE);
        }
        if ((f->needs & FAULT_NEEDS_ENH) && !cfg->enhanced)
            usage_error("--fault %s needs --enhanced", f->name);
        if ((f->needs & FAULT_NEEDS_P2P) && !cfg->p2p)
            usage_error("--fault %s needs --p2p", f->name);
        if (cfg->fault == FAULT_NO_RTR_OPTION && cfg->role == MPA_ROLE_INITIATOR && !cfg->p2p)
            usage_error("--fault %s as Initiator needs --p2p", f->name);
    }
}
