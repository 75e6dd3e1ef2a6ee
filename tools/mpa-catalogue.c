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
 *   mpa-catalogue --coverage DIR [-o FILE]   the spec coverage matrix,
 *                                            docs/spec-coverage.md, from the
 *                                            hand-written DIR/DOCUMENT.tsv
 *                 [--readme README]          README again, its figures block
 *                                            rewritten
 *                 [--coverage-c]             the figures for mpa-conform
 *
 * Run from the top of the repository.  `make catalogue` rewrites
 * docs/requirements.md; `make unit` fails while the committed file
 * differs from what this program writes.  Uses libmpa's public headers
 * and injector/inject/scen.c (with cJSON); a program on top of the
 * layers, included by nothing.  Exit status: 0, 1 when a suite or a
 * coverage table cannot be read or is malformed (FILE:LINE: why), 2 on a
 * usage error.
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


/* ---- The spec coverage matrix (docs/coverage/DOC.tsv -> docs/spec-coverage.md) ----
 *
 * One table per document, one row per normative sentence (MUST, MUST
 * NOT, SHOULD, SHOULD NOT, REQUIRED, RECOMMENDED, SHALL, SHALL NOT), in
 * the document's order:
 *
 *   key  level  statement  observable  ids  note       (the header line)
 *
 * key is SECTION#N, the N-th such sentence of the section; level MUST,
 * MUST NOT, SHOULD or SHOULD NOT; statement our paraphrase (at most 140
 * characters); observable capture, active, both or no; ids "-" or
 * catalogue ids separated by commas; note free text or "-".  Any fault
 * is an error naming FILE:LINE. */

#define COV_HEADER "key\tlevel\tstatement\tobservable\tids\tnote"
#define COV_LINE_MAX 2048
#define COV_ROWS_MAX 4000
#define COV_IDS_MAX 8

typedef struct cov_row {
    char *key, *level, *statement, *observable, *note;
    int ids[COV_IDS_MAX];
    unsigned nids;
} cov_row;

typedef struct cov_doc {
    char name[128]; /* the file's name without .tsv */
    cov_row *rows;
    size_t n;
} cov_doc;

/* The figures of one document (or of all). */
typedef struct cov_fig {
    unsigned statements, observable, with_id, audit, tested, observable_no_id;
} cov_fig;

/* The documents we know: their title, in this order; others follow by name. */
static const struct {
    const char *name, *title, *scope; /* scope: what was counted, or NULL */
} cov_titles[] = {
    {"draft-culley-iwarp-mpa-03", "MPA draft-03 (draft-culley-iwarp-mpa-03)",
     "sections 5-7 and 9 (section 8, its Start Key startup, is superseded by RFC 5044 7.1)"},
    {"rfc5044", "RFC 5044 (MPA)",
     "sections 4-8, the protocol (1-3 introduce it; 9 on are security, IANA and appendices)"},
    {"rfc6581", "RFC 6581 (enhanced connection setup)",
     "the whole document, its Requirements Language boilerplate (section 2) aside"},
    {"rfc5041", "RFC 5041 (DDP)", NULL},
    {"rfc5040", "RFC 5040 (RDMAP)", NULL},
    {"rfc7306", "RFC 7306 (RDMAP extensions)", NULL},
};
#define N_COV_TITLES (sizeof cov_titles / sizeof cov_titles[0])

static int cov_rank(const char *name)
{
    for (size_t i = 0; i < N_COV_TITLES; i++)
        if (!strcmp(cov_titles[i].name, name))
            return (int)i;
    return (int)N_COV_TITLES;
}

static const char *cov_title(const cov_doc *d)
{
    int r = cov_rank(d->name);
    return r < (int)N_COV_TITLES ? cov_titles[r].title : d->name;
}

static int cmp_doc(const void *a, const void *b)
{
    const cov_doc *x = a, *y = b;
    int rx = cov_rank(x->name), ry = cov_rank(y->name);
    return rx != ry ? rx - ry : strcmp(x->name, y->name);
}

static void cov_free(cov_doc *docs, size_t n)
{
    for (size_t d = 0; d < n; d++) {
        for (size_t i = 0; i < docs[d].n; i++) {
            cov_row *r = &docs[d].rows[i];
            free(r->key), free(r->level), free(r->statement), free(r->observable), free(r->note);
        }
        free(docs[d].rows);
    }
    free(docs);
}

static int one_of(const char *s, const char *const *set)
{
    for (; *set; set++)
        if (!strcmp(s, *set))
            return 1;
    return 0;
}

/* Characters of a UTF-8 string (continuation octets not counted). */
static size_t utf8_len(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* SECTION#N: SECTION digits and dots (or a letter-led appendix, "A.1"),
 * N from 1; *sec gets SECTION's length, *num N. */
static int parse_key(const char *k, size_t *sec, unsigned long *num)
{
    const char *h = strchr(k, '#');
    if (!h || h == k || h[1] < '1' || h[1] > '9')
        return -1;
    for (const char *p = k; p < h; p++)
        if (!((*p >= '0' && *p <= '9') || *p == '.' || (*p >= 'A' && *p <= 'Z' && p == k)))
            return -1;
    if (h[-1] == '.')
        return -1;
    char *end;
    errno = 0;
    *num = strtoul(h + 1, &end, 10);
    if (*end || errno || *num > 999)
        return -1;
    *sec = (size_t)(h - k);
    return 0;
}

/* The ids cell: "-" or ID[,ID...]; 0, or -1 with the fault in err. */
static int parse_ids(char *s, cov_row *r, char *err, size_t errlen)
{
    r->nids = 0;
    if (!strcmp(s, "-"))
        return 0;
    for (char *tok = s;;) {
        char *comma = strchr(tok, ',');
        if (comma)
            *comma = '\0';
        while (*tok == ' ')
            tok++;
        size_t L = strlen(tok);
        while (L && tok[L - 1] == ' ')
            tok[--L] = '\0';
        mpa_finding_id f = L ? mpa_rule_find(tok) : MPA_F__COUNT;
        if (f == MPA_F__COUNT) {
            snprintf(err, errlen, "unknown requirement id \"%.80s\" (not in include/mpa/findings.def)", tok);
            return -1;
        }
        for (unsigned i = 0; i < r->nids; i++)
            if (r->ids[i] == (int)f) {
                snprintf(err, errlen, "id %.80s listed twice", tok);
                return -1;
            }
        if (r->nids == COV_IDS_MAX) {
            snprintf(err, errlen, "more than %d ids", COV_IDS_MAX);
            return -1;
        }
        r->ids[r->nids++] = (int)f;
        if (!comma)
            return 0;
        tok = comma + 1;
    }
}

/* One table line (no newline) into r; 0, or -1 with the fault in err. */
static int parse_row(char *line, cov_row *r, char *err, size_t errlen)
{
    static const char *const levels[] = {"MUST", "MUST NOT", "SHOULD", "SHOULD NOT", NULL};
    static const char *const obs[] = {"capture", "active", "both", "no", NULL};
    static const char *const names[] = {"key", "level", "statement", "observable", "ids", "note"};
    char *f[6];
    unsigned nf = 0;
    for (char *p = line;; p++) {
        if (nf < 6)
            f[nf] = p;
        nf++;
        p = strchr(p, '\t');
        if (!p)
            break;
        *p = '\0';
    }
    if (nf != 6) {
        snprintf(err, errlen, "%u tab-separated fields, expected 6 (%s)", nf, COV_HEADER);
        return -1;
    }
    for (unsigned i = 0; i < 6; i++)
        if (!f[i][0]) {
            snprintf(err, errlen, "empty %s (write - for none)", names[i]);
            return -1;
        }
    size_t sec;
    unsigned long num;
    if (parse_key(f[0], &sec, &num)) {
        snprintf(err, errlen, "bad key \"%.80s\" (SECTION#N, N from 1)", f[0]);
        return -1;
    }
    if (!one_of(f[1], levels)) {
        snprintf(err, errlen, "bad level \"%.80s\" (MUST, MUST NOT, SHOULD or SHOULD NOT)", f[1]);
        return -1;
    }
    if (utf8_len(f[2]) > 140) {
        snprintf(err, errlen, "statement of %zu characters (at most 140)", utf8_len(f[2]));
        return -1;
    }
    if (!one_of(f[3], obs)) {
        snprintf(err, errlen, "bad observable \"%.80s\" (capture, active, both or no)", f[3]);
        return -1;
    }
    if (parse_ids(f[4], r, err, errlen))
        return -1;
    r->key = strdup(f[0]);
    r->level = strdup(f[1]);
    r->statement = strdup(f[2]);
    r->observable = strdup(f[3]);
    r->note = strdup(f[5]);
    if (!r->key || !r->level || !r->statement || !r->observable || !r->note) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

/* Is the key's section the same as an earlier row's? (and its number) */
static unsigned long last_of_section(const cov_doc *d, const char *key, size_t sec)
{
    for (size_t i = d->n; i-- > 0;) {
        const char *k = d->rows[i].key;
        if (!strncmp(k, key, sec) && k[sec] == '#')
            return strtoul(k + sec + 1, NULL, 10);
    }
    return 0;
}

/* One table file; 0, or -1 with "FILE:LINE: fault" in err. */
static int load_table(cov_doc *d, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%.400s: %s", path, strerror(errno));
        return -1;
    }
    char line[COV_LINE_MAX + 2], why[256];
    size_t cap = 0;
    unsigned lineno = 0;
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        size_t L = strlen(line);
        if (L && line[L - 1] == '\n')
            line[--L] = '\0';
        else if (!feof(f)) {
            snprintf(why, sizeof why, "line longer than %d octets", COV_LINE_MAX);
            rc = -1;
            break;
        }
        if (L && line[L - 1] == '\r')
            line[--L] = '\0';
        if (lineno == 1) {
            if (strcmp(line, COV_HEADER)) {
                snprintf(why, sizeof why, "the first line must be the header \"%s\" (tabs between)",
                         "key level statement observable ids note");
                rc = -1;
            }
            continue;
        }
        if (d->n == COV_ROWS_MAX) {
            snprintf(why, sizeof why, "more than %d rows", COV_ROWS_MAX);
            rc = -1;
            break;
        }
        if (d->n == cap) {
            cap = cap ? cap * 2 : 64;
            cov_row *nr = realloc(d->rows, cap * sizeof *nr);
            if (!nr) {
                snprintf(why, sizeof why, "out of memory");
                rc = -1;
                break;
            }
            d->rows = nr;
        }
        cov_row *r = &d->rows[d->n];
        memset(r, 0, sizeof *r);
        if (parse_row(line, r, why, sizeof why)) {
            free(r->key), free(r->level), free(r->statement), free(r->observable), free(r->note);
            rc = -1;
            break;
        }
        size_t sec;
        unsigned long num, prev;
        parse_key(r->key, &sec, &num);
        prev = last_of_section(d, r->key, sec);
        d->n++;
        for (size_t i = 0; i + 1 < d->n; i++)
            if (!strcmp(d->rows[i].key, r->key)) {
                snprintf(why, sizeof why, "duplicate key %.80s (also on an earlier line)", r->key);
                rc = -1;
            }
        if (rc == 0 && num != prev + 1) {
            snprintf(why, sizeof why, "key %.80s follows %.*s#%lu: a section's rows are numbered 1, 2, 3 ...",
                     r->key, (int)sec, r->key, prev);
            rc = -1;
        }
    }
    if (rc == 0 && ferror(f)) {
        snprintf(why, sizeof why, "%s", strerror(errno));
        rc = -1;
    }
    if (rc == 0 && lineno == 0) {
        snprintf(why, sizeof why, "empty file (no header)");
        rc = -1;
    }
    fclose(f);
    if (rc)
        snprintf(err, errlen, "%.280s:%u: %.220s", path, lineno, why);
    return rc;
}

/* Every DIR/NAME.tsv, in the documents' order; 0, or -1 with err. */
static int load_tables(const char *dir, cov_doc **out, size_t *nout, char *err, size_t errlen)
{
    size_t nf;
    *out = NULL;
    *nout = 0;
    errno = 0;
    char **files = list_dir(dir, &nf);
    if (!files) {
        snprintf(err, errlen, "%.400s: %s", dir, errno ? strerror(errno) : "no tables");
        return -1;
    }
    cov_doc *docs = calloc(nf, sizeof *docs);
    size_t n = 0;
    int rc = docs ? 0 : -1;
    if (!docs)
        snprintf(err, errlen, "out of memory");
    for (size_t i = 0; i < nf && rc == 0; i++) {
        size_t L = strlen(files[i]);
        if (L <= 4 || strcmp(files[i] + L - 4, ".tsv"))
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        cov_doc *d = &docs[n++];
        snprintf(d->name, sizeof d->name, "%.*s", (int)(L - 4), files[i]);
        rc = load_table(d, path, err, errlen);
    }
    free_list(files, nf);
    if (rc == 0 && n == 0) {
        snprintf(err, errlen, "%.400s: no .tsv tables", dir);
        rc = -1;
    }
    if (rc) {
        if (docs)
            cov_free(docs, n);
        return -1;
    }
    qsort(docs, n, sizeof *docs, cmp_doc);
    *out = docs;
    *nout = n;
    return 0;
}

static int row_audit(const cov_row *r)
{
    for (unsigned i = 0; i < r->nids; i++)
        if (mpa_rule_get((mpa_finding_id)r->ids[i])->checked)
            return 1;
    return 0;
}

static int test_names_row(const ctest *t, const cov_row *r)
{
    for (unsigned i = 0; i < r->nids; i++)
        if (t->names[r->ids[i]])
            return 1;
    return 0;
}

static int row_tested(const tests *T, const cov_row *r)
{
    for (size_t i = 0; i < T->n; i++)
        if (test_names_row(&T->v[i], r))
            return 1;
    return 0;
}

static void add_figures(cov_fig *f, const cov_doc *d, const tests *T)
{
    for (size_t i = 0; i < d->n; i++) {
        const cov_row *r = &d->rows[i];
        int obs = strcmp(r->observable, "no") != 0;
        f->statements++;
        f->observable += obs;
        f->with_id += r->nids != 0;
        f->audit += row_audit(r);
        f->tested += row_tested(T, r);
        f->observable_no_id += obs && !r->nids;
    }
}

/* The sections counted: the distinct top-level numbers of the keys. */
static void write_scope(FILE *o, const cov_doc *d)
{
    const char *sep = "";
    for (size_t i = 0; i < d->n; i++) {
        size_t top = strcspn(d->rows[i].key, ".#");
        int seen = 0;
        for (size_t k = 0; k < i && !seen; k++)
            seen = strcspn(d->rows[k].key, ".#") == top && !strncmp(d->rows[k].key, d->rows[i].key, top);
        if (!seen) {
            fprintf(o, "%s%.*s", sep, (int)top, d->rows[i].key);
            sep = ", ";
        }
    }
}

/* The per-document summary table and its totals line (Markdown). */
static void write_summary(FILE *o, const cov_doc *docs, size_t n, const tests *T)
{
    cov_fig all = {0};
    fputs("| document | rows in sections | statements | observable on the wire or by an active test | "
          "covered by an id | checked by mpa-audit | exercised by a suite test | observable, no id |\n"
          "|---|---|---|---|---|---|---|---|\n",
          o);
    for (size_t d = 0; d < n; d++) {
        cov_fig f = {0};
        add_figures(&f, &docs[d], T);
        add_figures(&all, &docs[d], T);
        fprintf(o, "| %s | ", cov_title(&docs[d]));
        write_scope(o, &docs[d]);
        fprintf(o, " | %u | %u | %u | %u | %u | %u |\n", f.statements, f.observable, f.with_id, f.audit, f.tested,
                f.observable_no_id);
    }
    fprintf(o, "| **total** | | %u | %u | %u | %u | %u | %u |\n", all.statements, all.observable, all.with_id,
            all.audit, all.tested, all.observable_no_id);
}

static const char *const cov_preface =
    "One row per normative sentence of each document: a sentence with MUST, MUST\n"
    "NOT, SHOULD, SHOULD NOT, REQUIRED, RECOMMENDED, SHALL or SHALL NOT (MAY and\n"
    "OPTIONAL make no row), in the document's order. *key* is the section and the\n"
    "sentence's rank in it (`7.1.2#3`: the third of 7.1.2); *level* the strongest\n"
    "word (REQUIRED and SHALL count as MUST, RECOMMENDED as SHOULD); *statement*\n"
    "our paraphrase, the document has the exact words. Each table says which\n"
    "sections were counted.\n"
    "\n"
    "*observable*: `capture` when a passive capture of both directions shows whether\n"
    "the rule was kept; `active` when only a test that provokes the device shows it;\n"
    "`both`; `no` for internal behaviour, APIs and local policy. *ids*: the\n"
    "catalogue's ids ([requirements.md](requirements.md)) that judge the statement.\n"
    "*mpa-audit*: yes when one of them is judged from captures. *suite tests*: the\n"
    "tests of `conformance/suites/` naming one of them.\n"
    "\n"
    "The tables are `docs/coverage/DOCUMENT.tsv`, written and reviewed by hand;\n"
    "`make coverage` rewrites this page and the figures in README.md from them,\n"
    "and `make check` fails while either is stale or a table is malformed.\n";

static void write_coverage(FILE *o, const cov_doc *docs, size_t n, const tests *T)
{
    fputs("# Specification coverage\n\n"
          "<!-- Made by build/mpa-catalogue --coverage (tools/mpa-catalogue.c) from docs/coverage/*.tsv,\n"
          "     include/mpa/findings.def and conformance/suites: do not edit. `make coverage` rewrites it. -->\n\n",
          o);
    fputs(cov_preface, o);
    fputs("\n## Summary\n\n", o);
    write_summary(o, docs, n, T);
    for (size_t d = 0; d < n; d++) {
        const cov_doc *doc = &docs[d];
        int rank = cov_rank(doc->name);
        fprintf(o, "\n## %s\n\n`docs/coverage/%s.tsv`: %zu statements", cov_title(doc), doc->name, doc->n);
        if (rank < (int)N_COV_TITLES && cov_titles[rank].scope)
            fprintf(o, "; counted: %s", cov_titles[rank].scope);
        fputs("; rows in sections ", o);
        write_scope(o, doc);
        fputs(".\n\n| key | level | statement | observable | ids | mpa-audit | suite tests | note |\n"
              "|---|---|---|---|---|---|---|---|\n",
              o);
        for (size_t i = 0; i < doc->n; i++) {
            const cov_row *r = &doc->rows[i];
            fprintf(o, "| %s | %s | ", r->key, r->level);
            cell(o, r->statement);
            fprintf(o, " | %s | ", r->observable);
            for (unsigned k = 0; k < r->nids; k++)
                fprintf(o, "%s%s", k ? ", " : "", mpa_rule_get((mpa_finding_id)r->ids[k])->id);
            if (!r->nids)
                fputs("-", o);
            fprintf(o, " | %s | ", r->nids ? (row_audit(r) ? "yes" : "no") : "-");
            unsigned shown = 0, total = 0;
            for (size_t t = 0; t < T->n; t++)
                if (test_names_row(&T->v[t], r)) {
                    if (shown < 3)
                        fprintf(o, "%s`%s`", shown ? ", " : "", T->v[t].id), shown++;
                    total++;
                }
            if (total > shown)
                fprintf(o, " and %u more", total - shown);
            if (!total)
                fputs("-", o);
            fputs(" | ", o);
            cell(o, r->note);
            fputs(" |\n", o);
        }
    }
}

#define README_BEGIN "<!-- spec-coverage: begin"
#define README_END "<!-- spec-coverage: end"

/* README (path) again with the lines between its two markers replaced by
 * the summary; 0, or -1 with err. */
static int write_readme(FILE *o, const char *path, const cov_doc *docs, size_t n, const tests *T, char *err,
                        size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%.400s: %s", path, strerror(errno));
        return -1;
    }
    char line[4096];
    int state = 0; /* 0 before the block, 1 inside, 2 after */
    unsigned lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (state == 1 && !strncmp(line, README_END, strlen(README_END))) {
            write_summary(o, docs, n, T);
            state = 2;
        }
        if (state != 1)
            fputs(line, o);
        if (state == 0 && !strncmp(line, README_BEGIN, strlen(README_BEGIN)))
            state = 1;
    }
    fclose(f);
    if (state != 2) {
        snprintf(err, errlen, "%.400s: no \"%s ...\" line followed by a \"%s ...\" line", path, README_BEGIN,
                 README_END);
        return -1;
    }
    return 0;
}

/* The figures as a C header, for mpa-conform's reports. */
static void write_figures_c(FILE *o, const cov_doc *docs, size_t n, const tests *T)
{
    fputs("/* Made by build/mpa-catalogue --coverage-c from docs/coverage/DOCUMENT.tsv: do not edit. */\n"
          "/* document, sections counted, statements, observable, covered by an id, checked by mpa-audit,\n"
          "   exercised by a suite test, observable without an id */\n",
          o);
    for (size_t d = 0; d < n; d++) {
        cov_fig f = {0};
        add_figures(&f, &docs[d], T);
        fputs("SPEC_COVERAGE(\"", o);
        for (const char *s = cov_title(&docs[d]); *s; s++) {
            if (*s == '"' || *s == '\\')
                fputc('\\', o);
            fputc((unsigned char)*s < 0x20 ? '?' : *s, o);
        }
        fputs("\", \"", o);
        write_scope(o, &docs[d]);
        fprintf(o, "\", %u, %u, %u, %u, %u, %u)\n", f.statements, f.observable, f.with_id, f.audit, f.tested,
                f.observable_no_id);
    }
}

static void usage(FILE *f)
{
    fputs("usage: mpa-catalogue [-o FILE] [--suites DIR]   the requirement catalogue (Markdown)\n"
          "       mpa-catalogue --tsv [-o FILE]            id, level, clause, rule (tab-separated)\n"
          "       mpa-catalogue --coverage DIR [-o FILE] [--suites DIR] [--readme README | --coverage-c]\n"
          "                                                the spec coverage page from DIR/*.tsv; or README\n"
          "                                                with its figures block rewritten; or the figures\n"
          "                                                as SPEC_COVERAGE(...) lines for C\n",
          f);
}

int main(int argc, char **argv)
{
    const char *out = NULL, *suites = "conformance/suites", *coverage = NULL, *readme = NULL;
    int tsv = 0, figures_c = 0;
    prog_init("mpa-catalogue");
    enum { O_SUITES = 256, O_TSV, O_COVERAGE, O_README, O_COVERAGE_C };
    static const struct option opts[] = {{"suites", required_argument, NULL, O_SUITES},
                                         {"tsv", no_argument, NULL, O_TSV},
                                         {"coverage", required_argument, NULL, O_COVERAGE},
                                         {"readme", required_argument, NULL, O_README},
                                         {"coverage-c", no_argument, NULL, O_COVERAGE_C},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case O_SUITES: suites = optarg; break;
        case O_TSV: tsv = 1; break;
        case O_COVERAGE: coverage = optarg; break;
        case O_README: readme = optarg; break;
        case O_COVERAGE_C: figures_c = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc || (coverage && tsv) || ((readme || figures_c) && !coverage) || (readme && figures_c)) {
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
    cov_doc *docs = NULL;
    size_t ndocs = 0;
    if (coverage && load_tables(coverage, &docs, &ndocs, err, sizeof err)) {
        fprintf(stderr, "mpa-catalogue: %s\n", err);
        free(T.v);
        return 1;
    }
    FILE *o = out ? fopen(out, "w") : stdout;
    if (!o) {
        fprintf(stderr, "mpa-catalogue: %s: %s\n", out, strerror(errno));
        cov_free(docs, ndocs);
        free(T.v);
        return 1;
    }
    int bad = 0;
    if (tsv)
        write_tsv(o);
    else if (readme) {
        if (write_readme(o, readme, docs, ndocs, &T, err, sizeof err)) {
            fprintf(stderr, "mpa-catalogue: %s\n", err);
            bad = 2;
        }
    } else if (figures_c)
        write_figures_c(o, docs, ndocs, &T);
    else if (coverage)
        write_coverage(o, docs, ndocs, &T);
    else
        write_markdown(o, &T);
    if (ferror(o) && !bad)
        bad = 1;
    if (out && fclose(o) && !bad)
        bad = 1;
    cov_free(docs, ndocs);
    free(T.v);
    if (bad == 2)
        return 1;
    if (bad) {
        fprintf(stderr, "mpa-catalogue: write error\n");
        return 1;
    }
    return 0;
}
