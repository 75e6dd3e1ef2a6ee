/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-catalogue: writes the project's requirement catalogue,
 * docs/requirements.md, from the one table of rules
 * (include/mpa/findings.def) and the conformance suites
 * (conformance/suites/SUITE/NAME.json, read with libinject's scenario
 * parser, the same one mpa-conform uses, so a test names here exactly
 * the ids it names in mpa-conform's reports).
 *
 *   mpa-catalogue [-o FILE] [--suites DIR]   the catalogue in Markdown
 *   mpa-catalogue --tsv [-o FILE]            id, level, clause, rule: one
 *                                            rule a line, tab-separated
 *
 * Run from the top of the repository.  `make catalogue` rewrites
 * docs/requirements.md; `make unit` fails while the committed file
 * differs from what this program writes.  Uses libmpa's public headers
 * and injector/inject/scen.c (with cJSON); a program on top of the
 * layers, included by nothing.  Exit status: 0, 1 when a suite cannot
 * be read, 2 on a usage error.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mpa/findings.h"
#include "prog.h"
#include "scen.h"

/* The table in its order: a section heading, or a rule. */
typedef struct entry {
    const char *title, *note; /* a section: its heading and note */
    int rule;                 /* a rule: its mpa_finding_id; -1 for a section */
} entry;

static const entry table[] = {
#define MPA_SECTION(title, note) {title, note, -1},
#define MPA_RULE(sym, id, level, clause, checked, text) {NULL, NULL, MPA_F_##sym},
#include "mpa/findings.def"
#undef MPA_RULE
#undef MPA_SECTION
};
#define N_ENTRIES (sizeof table / sizeof table[0])

/* One conformance test: its id, class, and the rules it names (the
 * test's own "requirements" and every step's). */
typedef struct ctest {
    char id[64];
    int mandatory;
    unsigned char names[MPA_F__COUNT];
} ctest;

typedef struct tests {
    ctest *v;
    size_t n, cap;
    unsigned suites;
} tests;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_test(const void *a, const void *b)
{
    return strcmp(((const ctest *)a)->id, ((const ctest *)b)->id);
}

static void name_rule(ctest *t, const char *id)
{
    mpa_finding_id f = mpa_rule_find(id);
    if (f != MPA_F__COUNT)
        t->names[f] = 1;
}

/* Loads one scenario file; 0, or -1 with a message in err. */
static int load_test(tests *T, const char *path, char *err, size_t errlen)
{
    if (T->n == T->cap) {
        size_t cap = T->cap ? T->cap * 2 : 256;
        ctest *nv = realloc(T->v, cap * sizeof *nv);
        if (!nv) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        T->v = nv;
        T->cap = cap;
    }
    scenario s;
    if (sc_load(path, NULL, 0, &s, err, errlen))
        return -1;
    if (!s.is_test) {
        snprintf(err, errlen, "%.400s: not a conformance test (no \"test\" block)", path);
        sc_free(&s);
        return -1;
    }
    ctest *t = &T->v[T->n++];
    memset(t, 0, sizeof *t);
    snprintf(t->id, sizeof t->id, "%s", s.test_id);
    t->mandatory = s.mandatory;
    for (unsigned i = 0; i < s.nreq; i++)
        name_rule(t, s.req[i]);
    for (unsigned k = 0; k < s.nsteps; k++)
        for (unsigned i = 0; i < s.steps[k].nreq; i++)
            name_rule(t, s.steps[k].req[i]);
    sc_free(&s);
    return 0;
}

/* The sorted entries of dir (no dot files), or NULL with *n = 0. */
static char **list_dir(const char *dir, size_t *n)
{
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    char **names = NULL;
    size_t cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn)
                break;
            names = nn;
        }
        if ((names[*n] = strdup(e->d_name)) != NULL)
            (*n)++;
    }
    closedir(d);
    if (names)
        qsort(names, *n, sizeof *names, cmp_str);
    return names;
}

static void free_list(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* Every SUITES/SUITE/NAME.json; 0, or -1 with a message in err. */
static int load_suites(tests *T, const char *suites, char *err, size_t errlen)
{
    size_t nd;
    char **dirs = list_dir(suites, &nd);
    if (!dirs) {
        snprintf(err, errlen, "%.400s: %s", suites, errno ? strerror(errno) : "empty");
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < nd && rc == 0; i++) {
        char dir[1024];
        struct stat st;
        snprintf(dir, sizeof dir, "%s/%s", suites, dirs[i]);
        if (stat(dir, &st) || !S_ISDIR(st.st_mode))
            continue;
        T->suites++;
        size_t nf;
        char **files = list_dir(dir, &nf);
        for (size_t k = 0; k < nf && rc == 0; k++) {
            size_t L = strlen(files[k]);
            if (L <= 5 || strcmp(files[k] + L - 5, ".json"))
                continue;
            char path[2048];
            snprintf(path, sizeof path, "%s/%s", dir, files[k]);
            rc = load_test(T, path, err, errlen);
        }
        free_list(files, nf);
    }
    free_list(dirs, nd);
    if (rc == 0 && T->n)
        qsort(T->v, T->n, sizeof *T->v, cmp_test);
    return rc;
}

/* A table cell: '|' would end it. */
static void cell(FILE *o, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputc('\\', o);
        fputc(*s, o);
    }
}

static unsigned tests_naming(const tests *T, unsigned rule)
{
    unsigned n = 0;
    for (size_t i = 0; i < T->n; i++)
        n += T->v[i].names[rule];
    return n;
}

static const char *const preface =
    "Every check this toolkit makes names one id of this catalogue: a finding of\n"
    "`mpa-audit`, an expert info of the Wireshark plugin, a requirement of an\n"
    "`mpa-conform` test. `build/mpa-audit --list-rules` prints the same rows.\n"
    "\n"
    "**Ids are a contract.** Reports, scripts and the suites match on them, so an\n"
    "id is never renamed and never reused. A rule found missing gets a new id in\n"
    "the same style (`MPA-` area `-` name); a rule found wrong keeps its id, and its\n"
    "level, source or wording is corrected in `include/mpa/findings.def`.\n"
    "\n"
    "**Levels and severities.** The level is the normative word of the source\n"
    "document where it has one. Tools report it as a severity:\n"
    "\n"
    "| level | severity | meaning |\n"
    "|---|---|---|\n"
    "| MUST | error | the source requires it; `mpa-audit` exits 1 when it sees one broken |\n"
    "| SHOULD | warning | the source recommends it; a device may have a reason not to |\n"
    "| NOTE | note | a MAY, or a statement without a normative word, or what an auditor reports for information |\n"
    "\n"
    "**Sources**, named in the *source* column by document and section:\n"
    "\n"
    "- RFC 5044, *Marker PDU Aligned Framing for TCP Specification* (MPA): FPDUs,\n"
    "  markers, CRC, the startup frames and rules, errors.\n"
    "- RFC 6581, *Enhanced Remote Direct Memory Access (RDMA) Connection\n"
    "  Establishment*: MPA Rev 2, the S bit, IRD/ORD negotiation, RTR messages\n"
    "  and TERMINATE codes 5 to 7 (its last draft was\n"
    "  draft-ietf-storm-mpa-peer-connect-08).\n"
    "- RFC 5040, *A Remote Direct Memory Access Protocol Specification* (RDMAP):\n"
    "  opcodes, the Terminate message.\n"
    "- RFC 5041, *Direct Data Placement over Reliable Transports* (DDP): the DDP\n"
    "  header, DDP error codes.\n"
    "- RFC 7306, *Remote Direct Memory Access (RDMA) Protocol Extensions*: atomic\n"
    "  operations and immediate data.\n"
    "- draft-culley-iwarp-mpa-03 (\"draft-03\"), the 2003 MPA draft: its \"Start\n"
    "  Key\" predates the Request/Reply frames; the FPDU, marker and CRC rules\n"
    "  carry its section numbers too, as RFC 5044 renumbered them.\n"
    "- The 2007 interop RtR proposal: a proposal made after an interop event to\n"
    "  add an \"MPA ID Rtr Frame\" for peer-to-peer startup, before RFC 6581.\n"
    "- RFC 9293, *Transmission Control Protocol (TCP)*: retransmitted data.\n"
    "\n"
    "**Columns.** *rule* says the rule in one sentence of ours; the source has the\n"
    "exact text. *mpa-audit* and *plugin*: yes when the tool reports the id from a\n"
    "capture (libmpa judges it from the octets, or the capture reader reports\n"
    "it); no when no capture can show it (time, the device's own state), so only\n"
    "the conformance suites test it. *tests*: how many tests of\n"
    "`conformance/suites/` name the id; they are listed under each table with\n"
    "their class (M: mandatory, FYI: informative; see\n"
    "[the test plan](conformance-test-plan.md)).\n";

static void write_markdown(FILE *o, const tests *T)
{
    unsigned lv[3] = {0, 0, 0}, seen = 0;
    for (unsigned r = 0; r < MPA_F__COUNT; r++) {
        const mpa_rule *ru = mpa_rule_get((mpa_finding_id)r);
        lv[ru->severity]++;
        seen += ru->checked != 0;
    }
    fprintf(o, "# MPA requirement catalogue\n\n"
               "<!-- Made by build/mpa-catalogue (tools/mpa-catalogue.c) from include/mpa/findings.def\n"
               "     and conformance/suites: do not edit. `make catalogue` rewrites it. -->\n\n");
    fputs(preface, o);
    fprintf(o,
            "\n%u ids: %u MUST, %u SHOULD, %u NOTE; %u reported from captures. %zu conformance tests in %u "
            "suites.\n",
            (unsigned)MPA_F__COUNT, lv[MPA_SEV_ERROR], lv[MPA_SEV_WARNING], lv[MPA_SEV_NOTE], seen, T->n,
            T->suites);

    for (size_t e = 0; e < N_ENTRIES;) {
        /* A section: its heading, its table, then its tests. */
        size_t first = e + 1, end = first;
        while (end < N_ENTRIES && table[end].rule >= 0)
            end++;
        fprintf(o, "\n## %s\n\n", table[e].title);
        if (table[e].note[0])
            fprintf(o, "%s\n\n", table[e].note);
        fputs("| id | level | source | rule | mpa-audit | plugin | tests |\n"
              "|---|---|---|---|---|---|---|\n",
              o);
        for (size_t k = first; k < end; k++) {
            const mpa_rule *ru = mpa_rule_get((mpa_finding_id)table[k].rule);
            const char *seen_by = ru->checked ? "yes" : "no";
            fprintf(o, "| %s | %s | ", ru->id, ru->level);
            cell(o, ru->clause);
            fputs(" | ", o);
            cell(o, ru->text);
            fprintf(o, " | %s | %s | %u |\n", seen_by, seen_by, tests_naming(T, (unsigned)table[k].rule));
        }
        int any = 0;
        for (size_t k = first; k < end; k++) {
            unsigned r = (unsigned)table[k].rule;
            if (!tests_naming(T, r))
                continue;
            if (!any)
                fputs("\nConformance tests naming them:\n\n", o);
            any = 1;
            fprintf(o, "- `%s`:", mpa_rule_get((mpa_finding_id)r)->id);
            const char *sep = " ";
            for (size_t i = 0; i < T->n; i++)
                if (T->v[i].names[r]) {
                    fprintf(o, "%s`%s` (%s)", sep, T->v[i].id, T->v[i].mandatory ? "M" : "FYI");
                    sep = ", ";
                }
            fputs("\n", o);
        }
        e = end;
    }
}

static void write_tsv(FILE *o)
{
    for (unsigned r = 0; r < MPA_F__COUNT; r++) {
        const mpa_rule *ru = mpa_rule_get((mpa_finding_id)r);
        fprintf(o, "%s\t%s\t%s\t%s\n", ru->id, ru->level, ru->clause, ru->text);
    }
}

static void usage(FILE *f)
{
    fputs("usage: mpa-catalogue [-o FILE] [--suites DIR]   the requirement catalogue (Markdown)\n"
          "       mpa-catalogue --tsv [-o FILE]            id, level, clause, rule (tab-separated)\n",
          f);
}

int main(int argc, char **argv)
{
    const char *out = NULL, *suites = "conformance/suites";
    int tsv = 0;
    prog_init("mpa-catalogue");
    enum { O_SUITES = 256, O_TSV };
    static const struct option opts[] = {{"suites", required_argument, NULL, O_SUITES},
                                         {"tsv", no_argument, NULL, O_TSV},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case O_SUITES: suites = optarg; break;
        case O_TSV: tsv = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc) {
        usage(stderr);
        return 2;
    }
    /* Every row opens a section: the Markdown writer relies on it. */
    if (N_ENTRIES == 0 || table[0].rule >= 0) {
        fprintf(stderr, "mpa-catalogue: findings.def must open with MPA_SECTION\n");
        return 1;
    }
    tests T = {0};
    char err[512];
    if (!tsv && load_suites(&T, suites, err, sizeof err)) {
        fprintf(stderr, "mpa-catalogue: %s\n", err);
        free(T.v);
        return 1;
    }
    FILE *o = out ? fopen(out, "w") : stdout;
    if (!o) {
        fprintf(stderr, "mpa-catalogue: %s: %s\n", out, strerror(errno));
        free(T.v);
        return 1;
    }
    if (tsv)
        write_tsv(o);
    else
        write_markdown(o, &T);
    int bad = ferror(o);
    if (out && fclose(o))
        bad = 1;
    free(T.v);
    if (bad) {
        fprintf(stderr, "mpa-catalogue: write error\n");
        return 1;
    }
    return 0;
}
