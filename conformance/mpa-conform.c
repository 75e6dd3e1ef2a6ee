/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-conform: runs conformance suites (scenario scripts with a "test"
 * block, conformance/suites/) against a device under test and reports
 * per test: pass, fail, error or skip, with its requirement ids, in the
 * terminal, JSON (docs/mpa-conform-json.md), JUnit XML and a
 * self-contained HTML report.  The scenarios are played by mpa-inject's
 * engine (injector/inject/).  See docs/mpa-conform.1.
 *
 * This file reads the options and says what is wrong with them; the
 * work is in conformance/conform/ (suite.h loads and selects the tests,
 * testrun.h runs them, jsonrep.h, junit.h, html.h, plan.h and term.h
 * write what comes out).
 */
#include <cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jsonrep.h"
#include "junit.h"
#include "plan.h"
#include "play.h"
#include "prog.h"
#include "reports.h"
#include "testrun.h"
#include "scen.h"
#include "suite.h"
#include "term.h"

static void usage(FILE *f)
{
    fputs("usage: mpa-conform [OPTIONS] [SUITE-DIR | TEST.json]...\n"
          "Run MPA conformance tests against a device under test (default: every suite\n"
          "installed with the toolkit, or $MPA_SUITES).  Exit 0 when every mandatory test\n"
          "that ran passed, 1 when one failed, 2 on an error, 3 when the device does not\n"
          "answer.\n"
          "\n"
          "The device:\n"
          "  -d, --device HOST:PORT   the device listens there: its Responder tests (or --target)\n"
          "  -l, --listen [ADDR:]PORT the device connects to us there: its Initiator tests\n"
          "  -r, --role ROLE          responder, initiator or both (default: the roles whose\n"
          "                           address is given)\n"
          "      --caps LIST          what the device has: enhanced,p2p,markers,reject (tests\n"
          "                           that need more are skipped; default none)\n"
          "      --device-name NAME   the device as the reports name it (vendor, model,\n"
          "                           firmware)\n"
          "      --notes TEXT         the operator's notes, in every report\n"
          "  -4, -6                   IPv4 or IPv6 only\n"
          "      --bind ADDR          local address for connecting (socket transport)\n"
          "      --spawn COMMAND      start the device for each test (sh -c; {addr} {peer}\n"
          "                           {port} as in mpa-inject); needs one --role\n"
          "      --lab COMMAND        the same in a network-namespace lab (root)\n"
          "      --before COMMAND     run sh -c COMMAND before each test ({test} {role});\n"
          "                           the test is an error if it exits non-zero\n"
          "      --set NAME=VALUE     a variable of the tests' scripts (\"$NAME\"), as in\n"
          "                           mpa-inject: the device's STags and offsets the tests\n"
          "                           that need \"buffers\" use (see each test's setup)\n"
          "      --after COMMAND      the device's health after each test (sh -c; {test}\n"
          "                           {role}): exit 1 means the test harmed it (a crash, an\n"
          "                           oops): the test fails under MPA-ROBUST-NO-CRASH with\n"
          "                           the command's last line; another non-zero status makes\n"
          "                           the test an error\n"
          "Transport:\n"
          "      --transport socket|raw, --iface IF, --src ADDR, --src-port N, --gw-mac MAC,\n"
          "      --mss N              as in mpa-inject(1)\n"
          "Tests:\n"
          "  -t, --test GLOB          only tests whose id matches (repeatable: 'startup.*')\n"
          "      --list               list the selected tests and exit\n"
          "      --plan FILE          write the selected tests as an interop test plan\n"
          "                           (Markdown) and exit\n"
          "Reports:\n"
          "  -o, --out DIR            report.json, junit.xml, report.html and traces/ in DIR\n"
          "      --json FILE          the JSON report (- for stdout)\n"
          "      --junit FILE         JUnit XML\n"
          "      --html FILE          the HTML report (self-contained)\n"
          "  -q, --quiet              only the summary\n"
          "  -v, --verbose            every step of every test as it runs\n"
          "  -h, --help, --version\n",
          f);
}

/* The command line. */
typedef struct cli {
    play_cfg pc;
    const char *role, *caps, *plan, *out_dir, *json, *junit, *html, *before, *after, *device_name, *notes;
    const char **globs; /* -t, nglobs of them */
    unsigned nglobs;
    const char **defs; /* --set NAME=VALUE, ndefs of them */
    unsigned ndefs;
    int list, quiet, verbose;
    int first_arg; /* the first SUITE-DIR or TEST.json */
} cli;

enum {
    O_CAPS = 256, O_BIND, O_SPAWN, O_LAB, O_TRANSPORT, O_IFACE, O_SRC, O_SRC_PORT, O_GW_MAC, O_MSS, O_LIST, O_PLAN,
    O_JSON, O_JUNIT, O_HTML, O_VERSION, O_BEFORE, O_AFTER, O_DEVICE_NAME, O_NOTES, O_SET,
};

/* A number option in min..max into *out: 0, or says why (what is
 * wrong with it) and -1. */
static int num_opt(const char *name, const char *arg, long min, long max, const char *what, uint16_t *out)
{
    long num;
    if (play_num_arg(arg, min, max, &num)) {
        fprintf(stderr, "mpa-conform: %s %s: %s\n(mpa-conform --help for the options)\n", name, arg, what);
        return -1;
    }
    *out = (uint16_t)num;
    return 0;
}

/* The options into c.  -1 to go on, else the exit status (after --help,
 * --version or a usage error). */
static int parse_args(int argc, char **argv, cli *c)
{
    static const struct option lo[] = {
        {"device", required_argument, NULL, 'd'}, {"target", required_argument, NULL, 'd'},
        {"listen", required_argument, NULL, 'l'}, {"role", required_argument, NULL, 'r'},
        {"caps", required_argument, NULL, O_CAPS}, {"bind", required_argument, NULL, O_BIND},
        {"spawn", required_argument, NULL, O_SPAWN}, {"lab", required_argument, NULL, O_LAB},
        {"before", required_argument, NULL, O_BEFORE}, {"after", required_argument, NULL, O_AFTER}, {"set", required_argument, NULL, O_SET}, {"device-name", required_argument, NULL, O_DEVICE_NAME},
        {"notes", required_argument, NULL, O_NOTES},
        {"transport", required_argument, NULL, O_TRANSPORT}, {"iface", required_argument, NULL, O_IFACE},
        {"src", required_argument, NULL, O_SRC}, {"src-port", required_argument, NULL, O_SRC_PORT},
        {"gw-mac", required_argument, NULL, O_GW_MAC}, {"mss", required_argument, NULL, O_MSS},
        {"test", required_argument, NULL, 't'}, {"list", no_argument, NULL, O_LIST},
        {"plan", required_argument, NULL, O_PLAN}, {"out", required_argument, NULL, 'o'},
        {"json", required_argument, NULL, O_JSON}, {"junit", required_argument, NULL, O_JUNIT},
        {"html", required_argument, NULL, O_HTML}, {"quiet", no_argument, NULL, 'q'},
        {"verbose", no_argument, NULL, 'v'}, {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, O_VERSION}, {NULL, 0, NULL, 0},
    };
    memset(c, 0, sizeof *c);
    c->pc.transport = "socket";
    c->caps = "";
    c->globs = calloc((size_t)argc + 1, sizeof *c->globs);
    c->defs = calloc((size_t)argc + 1, sizeof *c->defs);
    if (!c->globs || !c->defs) {
        fprintf(stderr, "mpa-conform: out of memory\n");
        return 2;
    }
    int o;
    opterr = 0; /* said here, in one line */
    while ((o = getopt_long(argc, argv, ":d:l:r:46t:o:qvh", lo, NULL)) != -1) {
        switch (o) {
        case 'd': c->pc.target = optarg; break;
        case 'l': c->pc.listen_at = optarg; break;
        case 'r': c->role = optarg; break;
        case '4': c->pc.family = 4; break;
        case '6': c->pc.family = 6; break;
        case O_CAPS: c->caps = optarg; break;
        case O_BIND: c->pc.bind = optarg; break;
        case O_SPAWN: c->pc.spawn_cmd = optarg; break;
        case O_LAB: c->pc.lab_cmd = optarg; break;
        case O_BEFORE: c->before = optarg; break;
        case O_AFTER: c->after = optarg; break;
        case O_SET: c->defs[c->ndefs++] = optarg; break;
        case O_DEVICE_NAME: c->device_name = optarg; break;
        case O_NOTES: c->notes = optarg; break;
        case O_TRANSPORT: c->pc.transport = optarg; break;
        case O_IFACE: c->pc.iface = optarg; break;
        case O_SRC: c->pc.src = optarg; break;
        case O_SRC_PORT:
            if (num_opt("--src-port", optarg, 1, 65535, "not a port", &c->pc.src_port))
                return 2;
            break;
        case O_GW_MAC: c->pc.gw_mac = optarg; break;
        case O_MSS:
            if (num_opt("--mss", optarg, 64, 65495, "not in 64..65495", &c->pc.mss))
                return 2;
            break;
        case 't': c->globs[c->nglobs++] = optarg; break;
        case O_LIST: c->list = 1; break;
        case O_PLAN: c->plan = optarg; break;
        case 'o': c->out_dir = optarg; break;
        case O_JSON: c->json = optarg; break;
        case O_JUNIT: c->junit = optarg; break;
        case O_HTML: c->html = optarg; break;
        case 'q': c->quiet = 1; break;
        case 'v': c->verbose = 1; break;
        case 'h': usage(stdout); return 0;
        case O_VERSION: prog_version(NULL); return 0;
        case ':':
            fprintf(stderr, "mpa-conform: %s needs a value\n(mpa-conform --help for the options)\n", argv[optind - 1]);
            return 2;
        default:
            fprintf(stderr, "mpa-conform: unknown option %s\n(mpa-conform --help for the options)\n", argv[optind - 1]);
            return 2;
        }
    }
    c->first_arg = optind;
    return -1;
}

/* --caps and --role: 0, or says why and -1. */
static int check_caps_role(const cli *c, int *want_resp, int *want_init)
{
    size_t len;
    const char *bad = suite_bad_cap(c->caps, &len);
    if (bad) {
        fprintf(stderr, "mpa-conform: --caps %s: \"%.*s\" is not one of enhanced, p2p, markers, reject\n", c->caps,
                (int)len, bad);
        return -1;
    }
    *want_resp = *want_init = 1;
    if (c->role) {
        *want_resp = !strcmp(c->role, "responder") || !strcmp(c->role, "both");
        *want_init = !strcmp(c->role, "initiator") || !strcmp(c->role, "both");
        if (!*want_resp && !*want_init) {
            fprintf(stderr, "mpa-conform: --role %s: responder, initiator or both\n", c->role);
            return -1;
        }
    }
    return 0;
}

/* The tests named on the command line (default: every suite), in order,
 * with unique ids, selected by -t: 0, or says why and -1. */
static int load_tests(conf_tests *T, const cli *c, int argc, char **argv)
{
    char err[600], tried[900];
    suite_set_defs(c->defs, c->ndefs);
    if (c->first_arg == argc) {
        const char *dir = suite_default_dir(tried, sizeof tried);
        if (!dir) {
            fprintf(stderr, "mpa-conform: no suites found (looked in %s): name a suite folder or test, or set "
                            "MPA_SUITES\n", tried);
            return -1;
        }
        if (suite_load_dir(T, dir, 0, err, sizeof err)) {
            fprintf(stderr, "mpa-conform: %s\n", err);
            return -1;
        }
    }
    for (int i = c->first_arg; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st)) {
            fprintf(stderr, "mpa-conform: %s: %s\n", argv[i], strerror(errno));
            return -1;
        }
        if (S_ISDIR(st.st_mode) ? suite_load_dir(T, argv[i], (unsigned)i, err, sizeof err)
                                : suite_load_arg(T, argv[i], (unsigned)i, err, sizeof err)) {
            fprintf(stderr, "mpa-conform: %s\n", err);
            return -1;
        }
    }
    suite_sort(T);
    const conf_test *first, *again = suite_same_id(T, &first);
    if (again) {
        fprintf(stderr, "mpa-conform: %s: test id %s is also the id of %s\n", again->s.file, again->s.test_id,
                first->s.file);
        return -1;
    }
    if (!suite_select(T, c->globs, c->nglobs)) {
        fprintf(stderr, "mpa-conform: no test selected (of %zu)\n", T->n);
        return -1;
    }
    return 0;
}

/* Where the device is, for the roles tested: 0, or says why and -1. */
static int check_device(const cli *c, int *want_resp, int *want_init)
{
    const play_cfg *pc = &c->pc;
    if (!c->role) {
        *want_resp = pc->target != NULL;
        *want_init = pc->listen_at != NULL;
        if (!*want_resp && !*want_init) {
            fprintf(stderr, "mpa-conform: where is the device? --device HOST:PORT (it is the Responder) and/or "
                            "--listen PORT (it is the Initiator)\n");
            return -1;
        }
    }
    if ((pc->spawn_cmd || pc->lab_cmd) && *want_resp && *want_init) {
        fprintf(stderr, "mpa-conform: --spawn/--lab start one device command: give --role responder or initiator\n");
        return -1;
    }
    if (*want_resp && !pc->target) {
        fprintf(stderr, "mpa-conform: --role %s: the device's Responder tests need --device HOST:PORT\n", c->role);
        return -1;
    }
    if (*want_init && !pc->listen_at) {
        fprintf(stderr, "mpa-conform: --role %s: the device's Initiator tests need --listen [ADDR:]PORT\n", c->role);
        return -1;
    }
    return 0;
}

/* The -t globs as given ("-t GLOB" and "--test GLOB"), for the report. */
static unsigned selection(int argc, char **argv, const char **sel)
{
    unsigned n = 0;
    for (int i = 1; i < argc; i++)
        if ((!strcmp(argv[i], "-t") || !strcmp(argv[i], "--test")) && i + 1 < argc)
            sel[n++] = argv[i + 1];
    return n;
}

/* The JSON, JUnit and HTML reports of doc: rc, or 2 when one failed. */
static int write_reports(const cJSON *doc, const reports *rp, int rc)
{
    char err[600];
    if (rp->json && jrep_write(doc, rp->json, err, sizeof err)) {
        fprintf(stderr, "mpa-conform: --json %s\n", err);
        rc = 2;
    }
    if (rp->junit && junit_write(doc, rp->junit, err, sizeof err)) {
        fprintf(stderr, "mpa-conform: --junit %s\n", err);
        rc = 2;
    }
    if (rp->html && reports_html(doc, rp->html, rp->traces ? rp->base : ".", err, sizeof err)) {
        fprintf(stderr, "mpa-conform: --html %s: %s\n", rp->html, err);
        rc = 2;
    }
    return rc;
}

/* The run against the device, then the reports: the exit status. */
static int run(cli *c, const conf_tests *T, int want_resp, int want_init, int argc, char **argv)
{
    static reports rp;
    if (reports_init(&rp, c->out_dir, c->json, c->junit, c->html)) {
        fprintf(stderr, "mpa-conform: --out %s: %s\n", c->out_dir, strerror(errno));
        return 2;
    }
    if (reports_traces(&rp)) {
        fprintf(stderr, "mpa-conform: %s: %s\n", rp.trace_dir, strerror(errno));
        return 2;
    }
    play_catch_signals();
    FILE *out = rp.json && !strcmp(rp.json, "-") ? stderr : stdout;
    c->pc.progress = c->verbose ? out : NULL;
    c->pc.verbose = 0;
    static player P;
    char err[600];
    if (play_init(&P, &c->pc, err, sizeof err) || play_start(&P, err, sizeof err)) {
        fprintf(stderr, "mpa-conform: %s\n", err);
        return 2;
    }
    const char **sel = calloc((size_t)argc, sizeof *sel);
    runner_cfg rc_cfg = {
        .caps = c->caps,
        .want_resp = want_resp,
        .want_init = want_init,
        .before = c->before,
        .after = c->after,
        .defs = c->defs,
        .ndefs = c->ndefs,
        .trace_dir = rp.traces ? rp.trace_dir : NULL,
        .selection = sel,
        .nselection = sel ? selection(argc, argv, sel) : 0,
        .quiet = c->quiet,
        .out = out,
        .ident = {c->device_name, c->notes, want_resp, want_init},
    };
    int rc;
    cJSON *doc = runner_run(&P, &c->pc, T, &rc_cfg, &rc);
    free(sel);
    play_done(&P);
    rc = write_reports(doc, &rp, rc);
    if (c->out_dir && !c->quiet)
        term_reports(out, rp.json_p, rp.junit_p, rp.html_p);
    cJSON_Delete(doc);
    return rc;
}

/* Everything after the options: the exit status. */
static int conform(cli *c, conf_tests *T, int argc, char **argv)
{
    int want_resp, want_init;
    if (check_caps_role(c, &want_resp, &want_init) || load_tests(T, c, argc, argv))
        return 2;
    if (c->list) {
        suite_list(stdout, T);
        return 0;
    }
    if (c->plan) {
        char err[600];
        if (plan_write(T, c->plan, err, sizeof err)) {
            fprintf(stderr, "mpa-conform: --plan %s\n", err);
            return 2;
        }
        return 0;
    }
    if (check_device(c, &want_resp, &want_init))
        return 2;
    return run(c, T, want_resp, want_init, argc, argv);
}

int main(int argc, char **argv)
{
    cli c;
    prog_init("mpa-conform");
    int rc = parse_args(argc, argv, &c);
    if (rc < 0) {
        conf_tests T = {0};
        rc = conform(&c, &T, argc, argv);
        suite_free(&T);
    }
    free(c.globs);
    free(c.defs);
    return rc;
}
