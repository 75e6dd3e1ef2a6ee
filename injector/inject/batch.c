/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A batch of scenarios as mpa-inject plays them (see batch.h). */
#include "batch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Every script is checked before anything is sent.  0, or 2 once
 * every error is said. */
static int load_all(const batch_cfg *b, scenario *sc)
{
    int bad = 0;
    for (int i = 0; i < b->nfiles; i++) {
        char err[SC_MAX_ERRORS * 720];
        if (sc_load(b->files[i], b->defs, b->ndefs, &sc[i], err, sizeof err)) {
            for (const char *l = err, *nl; *l; l = *nl ? nl + 1 : nl) { /* one line per error */
                nl = l + strcspn(l, "\n");
                fprintf(stderr, "%s: %.*s\n", b->prog, (int)(nl - l), l);
            }
            bad = 1;
            continue;
        }
        if (sc[i].needs_raw && strcmp(b->play.transport, "raw")) {
            fprintf(stderr, "%s: %s: %s: reorder, duplicate and reseg need --transport raw\n", b->prog, sc[i].file,
                    sc[i].raw_path);
            bad = 1;
        }
    }
    return bad ? 2 : 0;
}

/* The settings against what the scenarios need, then the lab (if any).
 * 0, or 2 once the error is said. */
static int start_player(const batch_cfg *b, player *P, const scenario *sc)
{
    char err[400];
    if (play_init(P, &b->play, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", b->prog, err);
        return 2;
    }
    for (int i = 0; i < b->nfiles; i++) {
        char why[300];
        if (play_missing(P, &sc[i], why, sizeof why)) {
            fprintf(stderr, "%s: %s: %s\n", b->prog, sc[i].file, why);
            return 2;
        }
    }
    if (play_start(P, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", b->prog, err);
        return 2;
    }
    return 0;
}

/* The --json document: the runs, then the summary.  The exit status,
 * 2 when the file cannot be written. */
static int write_json(const batch_cfg *b, cJSON *doc, unsigned n_pass, unsigned n_fail, unsigned n_err, int rc)
{
    cJSON *sum = cJSON_AddObjectToObject(doc, "summary");
    cJSON_AddNumberToObject(sum, "pass", n_pass);
    cJSON_AddNumberToObject(sum, "fail", n_fail);
    cJSON_AddNumberToObject(sum, "error", n_err);
    cJSON_AddNumberToObject(sum, "exit_status", rc);
    char *txt = cJSON_Print(doc);
    FILE *jf = strcmp(b->json, "-") ? fopen(b->json, "w") : stdout;
    if (!jf || !txt || fputs(txt, jf) < 0 || fputc('\n', jf) < 0) {
        fprintf(stderr, "%s: --json %s: %s\n", b->prog, b->json, strerror(errno));
        rc = 2;
    }
    if (jf && jf != stdout && fclose(jf)) {
        fprintf(stderr, "%s: --json %s: %s\n", b->prog, b->json, strerror(errno));
        rc = 2;
    }
    free(txt);
    return rc;
}

/* Each scenario against the device, its report on outf; the exit
 * status. */
static int play_all(const batch_cfg *b, player *P, const scenario *sc, FILE *outf)
{
    const char *transport = b->play.transport;
    cJSON *doc = b->json ? cJSON_CreateObject() : NULL;
    cJSON *runs = doc ? cJSON_AddArrayToObject(doc, "runs") : NULL;
    unsigned n_pass = 0, n_fail = 0, n_err = 0;
    int nfiles = b->nfiles;
    if (!b->no_trace && !b->trace_file && b->trace_dir && strcmp(b->trace_dir, "."))
        mkdir(b->trace_dir, 0777);
    for (int i = 0; i < nfiles && !run_interrupted; i++) {
        const scenario *s = &sc[i];
        char tpath[1024];
        const char *tp_path = NULL;
        if (!b->no_trace && (b->trace_file || b->trace_dir)) {
            if (b->trace_file)
                snprintf(tpath, sizeof tpath, "%s", b->trace_file);
            else
                play_trace_name(tpath, sizeof tpath, b->trace_dir, sc, i);
            tp_path = tpath;
        }
        run_result r;
        play_run(P, s, tp_path, &r);
        play_print_result(outf, s, &r, transport, b->quiet);
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
        rc = write_json(b, doc, n_pass, n_fail, n_err, rc);
        cJSON_Delete(doc);
    }
    return rc;
}

int batch_run(batch_cfg *b)
{
    scenario *sc = calloc((size_t)b->nfiles, sizeof *sc);
    if (!sc) {
        fprintf(stderr, "%s: out of memory\n", b->prog);
        return 2;
    }
    int rc = load_all(b, sc);
    if (!rc && b->check) {
        for (int i = 0; i < b->nfiles; i++)
            printf("%s: scenario %s, device %s, %u steps: ok\n", sc[i].file, sc[i].name,
                   sc[i].device_initiator ? "initiator" : "responder", sc[i].nsteps);
    } else if (!rc) {
        play_catch_signals();
        int to_stdout = !(b->json && !strcmp(b->json, "-"));
        b->play.progress = b->quiet ? NULL : to_stdout ? stdout : stderr;
        FILE *outf = to_stdout ? stdout : stderr;
        static player P;
        rc = start_player(b, &P, sc);
        if (!rc) {
            rc = play_all(b, &P, sc, outf);
            play_done(&P);
        }
    }
    for (int i = 0; i < b->nfiles; i++)
        sc_free(&sc[i]);
    free(sc);
    return rc;
}
