/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * siw-report: a dut/siw/run.sh run as Markdown (run.sh --report; the file
 * is committed as docs/dut/linux-siw-verdicts.md and diffed, so the output
 * depends on the verdicts and the reports only: no timestamps, no
 * durations, no measured times, no absolute paths).
 *
 *   siw-report RUNDIR [KERNEL-TEXT]
 *
 * RUNDIR/verdicts.tsv    TEST BUILD ROLE CLASS VERDICT [kernel-bug]
 *                        (tab-separated; the list of tests and their
 *                        verdicts, in the order printed)
 * RUNDIR/BUILD-ROLE/partN/report.json
 *                        mpa-conform's reports; a test run in several
 *                        parts (the guest was rebooted after a kernel
 *                        BUG) is described by the last part that ran it
 * RUNDIR/BUILD-ROLE/kernel-bugs.tsv
 *                        TEST<TAB>the kernel's message
 *
 * Prints a summary table, the kernel BUGs, the deviations (failing tests:
 * requirement ids, the deciding step, the trace) and every verdict.
 * Exit status 0; 2, with "siw-report: FILE: what is wrong" on stderr,
 * when a file is missing or invalid.  A BUILD-ROLE directory that is
 * missing is skipped (its verdicts are printed without details).  Fields
 * of a report that are missing or of the wrong type are taken as empty.
 */
#define _POSIX_C_SOURCE 200809L
#include <cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PROG "siw-report"
#define NOTE_MAX 160                    /* characters of a note in a table */
#define FILE_MAX (256u << 20)           /* no input file is larger */

/* ---------------------------------------------------------------- errors */

static void die(const char *file, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 2, 3)));

static void die(const char *file, const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "%s: %s: ", PROG, file);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(2);
}

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        die("memory", "out of memory");
    return q;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = xrealloc(NULL, n);
    memcpy(d, s, n);
    return d;
}

/* dst = a/b[/c], or die naming the path when it does not fit. */
static void join(char *dst, size_t cap, const char *a, const char *b, const char *c)
{
    int n = c ? snprintf(dst, cap, "%s/%s/%s", a, b, c) : snprintf(dst, cap, "%s/%s", a, b);
    if (n < 0 || (size_t)n >= cap)
        die(a, "path too long");
}

/* ------------------------------------------------------ growable strings */

struct sb {
    char *p;
    size_t len, cap;
};

static void sb_putn(struct sb *s, const char *p, size_t n)
{
    if (s->len + n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 64;
        while (cap < s->len + n + 1)
            cap *= 2;
        s->p = xrealloc(s->p, cap);
        s->cap = cap;
    }
    memcpy(s->p + s->len, p, n);
    s->len += n;
    s->p[s->len] = 0;
}

static void sb_putc(struct sb *s, char c)
{
    sb_putn(s, &c, 1);
}

static const char *sb_str(const struct sb *s)
{
    return s->p ? s->p : "";
}

/* ----------------------------------------------------------------- files */

/* All of PATH, NUL-terminated, length in *len.  NULL when it does not
 * exist and may_be_missing; any other failure dies. */
static char *read_file(const char *path, size_t *len, bool may_be_missing)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT && may_be_missing)
            return NULL;
        die(path, "%s", errno == ENOENT ? "missing" : strerror(errno));
    }
    size_t cap = 1 << 16, n = 0, k;
    char *b = xrealloc(NULL, cap + 1);
    while ((k = fread(b + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) {
            if (cap >= FILE_MAX)
                die(path, "larger than %u MiB", FILE_MAX >> 20);
            cap *= 2;
            b = xrealloc(b, cap + 1);
        }
    }
    if (ferror(f))
        die(path, "cannot read: %s", strerror(errno));
    fclose(f);
    b[n] = 0;
    *len = n;
    return b;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Splits the next line off *p (up to end); NULL at the end.  The line is
 * NUL-terminated in place, without its "\r\n" or "\n". */
static char *next_line(char **p, char *end)
{
    if (*p >= end)
        return NULL;
    char *line = *p, *nl = memchr(line, '\n', (size_t)(end - line));
    char *stop = nl ? nl : end;
    *p = nl ? nl + 1 : end;
    *stop = 0;
    if (stop > line && stop[-1] == '\r')
        stop[-1] = 0;
    return line;
}

/* Splits LINE at tabs into at most max fields; returns how many there are
 * (max + 1 when there are more). */
static size_t split_tabs(char *line, char **f, size_t max)
{
    size_t n = 0;
    for (char *p = line;; ) {
        char *t = strchr(p, '\t');
        if (n == max)
            return max + 1;
        f[n++] = p;
        if (!t)
            return n;
        *t = 0;
        p = t + 1;
    }
}

/* ------------------------------------------------------------------ JSON */

/* Whether TEXT ends inside a string, object or array whose brackets
 * match so far: a truncated file, told apart from one that is wrong
 * somewhere in the middle. */
static bool json_unfinished(const char *text, size_t len)
{
    char stack[1024];           /* deeper than cJSON parses: not "truncated" */
    size_t depth = 0;
    bool in_str = false, esc = false;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (in_str) {
            if (esc)
                esc = false;
            else if (c == '\\')
                esc = true;
            else if (c == '"')
                in_str = false;
        } else if (c == '"') {
            in_str = true;
        } else if (c == '{' || c == '[') {
            if (depth == sizeof stack)
                return false;
            stack[depth++] = c == '{' ? '}' : ']';
        } else if (c == '}' || c == ']') {
            if (depth == 0 || stack[depth - 1] != c)
                return false;
            depth--;
        }
    }
    return in_str || depth > 0;
}

/* Line and column (1-based) of byte OFF of TEXT. */
static void line_col(const char *text, size_t off, size_t *line, size_t *col)
{
    *line = 1, *col = 1;
    for (size_t k = 0; k < off; k++, (*col)++)
        if (text[k] == '\n')
            (*line)++, *col = 0;
}

static cJSON *parse_json(const char *path, const char *text, size_t len)
{
    size_t i = 0;
    while (i < len && isspace((unsigned char)text[i]))
        i++;
    if (i == len)
        die(path, "empty (no JSON document)");
    const char *end = NULL;
    cJSON *doc = cJSON_ParseWithLengthOpts(text, len, &end, false);
    size_t line, col;
    if (doc) {
        size_t off = end && end >= text && end <= text + len ? (size_t)(end - text) : len;
        while (off < len && isspace((unsigned char)text[off]))
            off++;
        if (off == len)
            return doc;
        line_col(text, off, &line, &col);
        die(path, "invalid JSON at line %zu, column %zu: more after the document", line, col);
    }
    if (json_unfinished(text, len))
        die(path, "truncated: the JSON ends (after %zu bytes) before the document does", len);
    const char *at = cJSON_GetErrorPtr();
    line_col(text, at && at >= text && at <= text + len ? (size_t)(at - text) : 0, &line, &col);
    die(path, "invalid JSON at line %zu, column %zu", line, col);
}

/* Typed accessors: missing or of the wrong type is empty. */
static const char *jstr(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
    return cJSON_IsString(v) && v->valuestring ? v->valuestring : "";
}

static const cJSON *jarr(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
    return cJSON_IsArray(v) ? v : NULL;
}

/* A whole number in [1, 1e6], or 0. */
static long jindex(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 1 && v->valuedouble <= 1e6))
        return 0;
    long n = (long)v->valuedouble;
    return (double)n == v->valuedouble ? n : 0;
}

/* ------------------------------------------------------------- the model */

enum { NBUILD = 2, NROLE = 2, NCOMBO = NBUILD * NROLE };
static const char *const builds[NBUILD] = { "default", "p2p" };
static const char *const roles[NROLE] = { "responder", "initiator" };
enum verdict { V_PASS, V_FAIL, V_ERROR, V_SKIP, NVERDICT };
static const char *const verdict_names[NVERDICT] = { "pass", "fail", "error", "skip" };

struct vline {                  /* one line of verdicts.tsv */
    char *test;
    bool mandatory;             /* class M, else FYI */
    enum verdict v;
    bool kbug_flag;             /* the line's "kernel-bug" */
    size_t lineno;
    int combo;
};

struct part {
    unsigned n;                 /* N of partN */
    cJSON *doc;
};

struct kbug {
    char *test, *msg;
};

struct combo {
    char name[32];              /* BUILD-ROLE */
    size_t ntests;              /* lines in verdicts.tsv */
    bool have_dir;
    struct part *parts;         /* ascending N */
    size_t nparts;
    struct kbug *bugs;
    size_t nbugs;
};

static struct combo combos[NCOMBO];
static struct vline *lines;
static size_t nlines;

static int lookup(const char *s, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(s, names[i]))
            return i;
    return -1;
}

/* A text file (read_file, then no NUL allowed); its lines are walked with
 * next_line from *p. */
static char *read_text(const char *path, size_t *len, bool may_be_missing)
{
    char *text = read_file(path, len, may_be_missing);
    if (text && memchr(text, 0, *len))
        die(path, "contains a NUL byte (not a text file)");
    return text;
}

static void read_verdicts(const char *rundir)
{
    char path[4096];
    join(path, sizeof path, rundir, "verdicts.tsv", NULL);
    size_t len;
    char *text = read_text(path, &len, false);
    char *p = text, *end = text + len, *line;
    size_t lineno = 0;
    while ((line = next_line(&p, end))) {
        lineno++;
        if (!*line || *line == '#')
            continue;
        char *f[6];
        size_t n = split_tabs(line, f, 6);
        if (n > 6)
            die(path, "line %zu: more than 6 tab-separated fields; expected TEST BUILD ROLE CLASS VERDICT [kernel-bug]",
                lineno);
        if (n < 5)
            die(path, "line %zu: %zu tab-separated fields; expected TEST BUILD ROLE CLASS VERDICT [kernel-bug]",
                lineno, n);
        int b = lookup(f[1], builds, NBUILD), r = lookup(f[2], roles, NROLE);
        int v = lookup(f[4], verdict_names, NVERDICT);
        if (!*f[0])
            die(path, "line %zu: empty test id", lineno);
        if (b < 0)
            die(path, "line %zu: build \"%s\" is neither default nor p2p", lineno, f[1]);
        if (r < 0)
            die(path, "line %zu: role \"%s\" is neither responder nor initiator", lineno, f[2]);
        if (strcmp(f[3], "M") && strcmp(f[3], "FYI"))
            die(path, "line %zu: class \"%s\" is neither M nor FYI", lineno, f[3]);
        if (v < 0)
            die(path, "line %zu: verdict \"%s\" is not pass, fail, error or skip", lineno, f[4]);
        if (n == 6 && strcmp(f[5], "kernel-bug"))
            die(path, "line %zu: sixth field \"%s\" is not kernel-bug", lineno, f[5]);
        int c = b * NROLE + r;
        for (size_t i = 0; i < nlines; i++)
            if (lines[i].combo == c && !strcmp(lines[i].test, f[0]))
                die(path, "line %zu: %s %s %s is already on line %zu", lineno, f[0], f[1], f[2],
                    lines[i].lineno);
        lines = xrealloc(lines, (nlines + 1) * sizeof *lines);
        lines[nlines++] = (struct vline){ .test = xstrdup(f[0]), .mandatory = !strcmp(f[3], "M"),
                                          .v = (enum verdict)v, .kbug_flag = n == 6,
                                          .lineno = lineno, .combo = c };
        combos[c].ntests++;
    }
    free(text);
}

static int cmp_part(const void *a, const void *b)
{
    unsigned x = ((const struct part *)a)->n, y = ((const struct part *)b)->n;
    return (x > y) - (x < y);
}

/* N when NAME is partN (decimal, no leading zero), else 0. */
static unsigned part_number(const char *name)
{
    if (strncmp(name, "part", 4) || name[4] < '1' || name[4] > '9')
        return 0;
    unsigned long n = 0;
    for (const char *q = name + 4; *q; q++) {
        if (*q < '0' || *q > '9' || n > 100000)
            return 0;
        n = n * 10 + (unsigned long)(*q - '0');
    }
    return (unsigned)n;
}

static void read_parts(const char *rundir, struct combo *c)
{
    char dir[4096], path[4096];
    join(dir, sizeof dir, rundir, c->name, NULL);
    DIR *d = opendir(dir);
    if (!d)
        die(dir, "cannot list: %s", strerror(errno));
    struct dirent *e;
    while ((e = readdir(d))) {
        unsigned n = part_number(e->d_name);
        if (!n)
            continue;
        join(path, sizeof path, dir, e->d_name, NULL);
        if (!is_dir(path))
            continue;
        c->parts = xrealloc(c->parts, (c->nparts + 1) * sizeof *c->parts);
        c->parts[c->nparts++] = (struct part){ .n = n };
    }
    closedir(d);
    qsort(c->parts, c->nparts, sizeof *c->parts, cmp_part);
    for (size_t i = 0; i < c->nparts; i++) {
        char sub[32];
        snprintf(sub, sizeof sub, "part%u", c->parts[i].n);
        join(path, sizeof path, dir, sub, "report.json");
        size_t len;
        char *text = read_file(path, &len, false);
        c->parts[i].doc = parse_json(path, text, len);
        free(text);
    }
}

static void read_kernel_bugs(const char *rundir, struct combo *c)
{
    char path[4096];
    join(path, sizeof path, rundir, c->name, "kernel-bugs.tsv");
    size_t len;
    char *text = read_text(path, &len, true);
    if (!text)
        return;                 /* run.sh always writes it; none recorded */
    char *p = text, *end = text + len, *line;
    size_t lineno = 0;
    while ((line = next_line(&p, end))) {
        lineno++;
        if (!*line)
            continue;
        char *f[2];
        if (split_tabs(line, f, 2) != 2 || !*f[0])
            die(path, "line %zu: expected TEST<TAB>kernel message", lineno);
        c->bugs = xrealloc(c->bugs, (c->nbugs + 1) * sizeof *c->bugs);
        c->bugs[c->nbugs++] = (struct kbug){ .test = xstrdup(f[0]), .msg = xstrdup(f[1]) };
    }
    free(text);
}

/* The test's object in the last part that ran it, or NULL; its part in *part. */
static const cJSON *find_test(const struct combo *c, const char *id, unsigned *part)
{
    for (size_t i = c->nparts; i-- > 0; ) {
        const cJSON *t;
        cJSON_ArrayForEach(t, jarr(c->parts[i].doc, "tests")) {
            if (!strcmp(jstr(t, "id"), id)) {
                *part = c->parts[i].n;
                return t;
            }
        }
    }
    return NULL;
}

static const struct kbug *find_bug(const struct combo *c, const char *id)
{
    for (size_t i = 0; i < c->nbugs; i++)
        if (!strcmp(c->bugs[i].test, id))
            return &c->bugs[i];
    return NULL;
}

static bool has_kernel_bug(const struct vline *l)
{
    return l->kbug_flag || find_bug(&combos[l->combo], l->test);
}

/* ------------------------------------------------------------- Markdown */

/* S on one line: control characters as spaces, runs of spaces as one, no
 * measured times (" after 1.4 ms": they differ from run to run). */
static void clean(struct sb *out, const char *s)
{
    out->len = 0;
    sb_putn(out, "", 0);
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c < 0x20 || c == 0x7f)
            c = ' ';
        if (c == ' ' && !strncmp(p, " after ", 7) && isdigit((unsigned char)p[7])) {
            const char *q = p + 7;
            while (isdigit((unsigned char)*q))
                q++;
            if (*q == '.' && isdigit((unsigned char)q[1]))
                for (q++; isdigit((unsigned char)*q); q++)
                    ;
            if (!strncmp(q, " ms", 3) && !isalnum((unsigned char)q[3])) {
                p = q + 2;
                continue;
            }
        }
        if (c == ' ' && (out->len == 0 || out->p[out->len - 1] == ' '))
            continue;
        sb_putc(out, (char)c);
    }
    while (out->len > 0 && out->p[out->len - 1] == ' ')
        out->p[--out->len] = 0;
}

/* Text for a table cell: cleaned, at most max characters (UTF-8; 0: no
 * limit) with "..." where cut, '|' as "\|". */
static void put_cell(const char *s, size_t max)
{
    static struct sb t;
    clean(&t, s);
    size_t chars = 0, cut = t.len;
    for (size_t i = 0; i < t.len; i++)
        if (((unsigned char)t.p[i] & 0xc0) != 0x80)
            chars++;
    if (max > 3 && chars > max) {
        size_t keep = max - 3;
        chars = 0;
        for (cut = 0; cut < t.len; cut++)
            if (((unsigned char)t.p[cut] & 0xc0) != 0x80 && chars++ == keep)
                break;
    }
    for (size_t i = 0; i < cut; i++) {
        if (t.p[i] == '|')
            fputc('\\', stdout);
        fputc(t.p[i], stdout);
    }
    if (cut < t.len)
        fputs("...", stdout);
}

/* S as a code span (cleaned), fenced with more backticks than it holds. */
static void put_code(const char *s)
{
    static struct sb t;
    clean(&t, s);
    size_t run = 0, longest = 0;
    for (size_t i = 0; i < t.len; i++) {
        run = t.p[i] == '`' ? run + 1 : 0;
        if (run > longest)
            longest = run;
    }
    bool pad = t.len > 0 && (t.p[0] == '`' || t.p[t.len - 1] == '`');
    for (size_t i = 0; i <= longest; i++)
        fputc('`', stdout);
    printf("%s%s%s", pad ? " " : "", sb_str(&t), pad ? " " : "");
    for (size_t i = 0; i <= longest; i++)
        fputc('`', stdout);
}

static const char *build_of(int c)
{
    return builds[c / NROLE];
}

static const char *role_of(int c)
{
    return roles[c % NROLE];
}

/* What the run was: the tool and suites (from the reports), when it
 * started, and the siw modules (RUNDIR/siw-module.tsv, run.sh: the
 * sha256 of siw's source files, as siw has no module version). */
static void print_provenance(const char *rundir)
{
    const char *tool = "", *version = "", *started = "";
    const char *sname[16], *sver[16], *ssha[16];
    size_t nsuite = 0;
    for (int c = 0; c < NCOMBO; c++) {
        for (size_t i = 0; i < combos[c].nparts; i++) {
            const cJSON *doc = combos[c].parts[i].doc;
            if (!*tool) {
                tool = jstr(doc, "tool");
                version = jstr(doc, "version");
            }
            const char *st = jstr(doc, "started");
            if (*st && (!*started || strcmp(st, started) < 0))
                started = st;
            const cJSON *su;
            cJSON_ArrayForEach(su, jarr(doc, "suites")) {
                const char *n = jstr(su, "name");
                size_t k = 0;
                while (k < nsuite && strcmp(sname[k], n))
                    k++;
                if (k == nsuite && nsuite < 16) {
                    sname[nsuite] = n;
                    sver[nsuite] = jstr(su, "version");
                    ssha[nsuite] = jstr(su, "sha256");
                    nsuite++;
                }
            }
        }
    }
    if (*tool) {
        printf("Tool: ");
        put_cell(tool, 0);
        printf(" ");
        put_cell(version, 0);
        printf(". Started: ");
        put_cell(*started ? started : "(not in the reports)", 0);
        printf(".\n\nSuites:");
        for (size_t k = 0; k < nsuite; k++) {
            printf("%s `", k ? "," : "");
            put_cell(sname[k], 0);
            printf("` %s (sha256 %.12s)", sver[k], ssha[k]);
        }
        printf("%s.\n\n", nsuite ? "" : " (none in the reports)");
    }
    char path[4096];
    join(path, sizeof path, rundir, "siw-module.tsv", NULL);
    size_t len;
    char *text = read_text(path, &len, true);
    if (!text)
        return;                 /* a run from before run.sh wrote it */
    char *p = text, *end = text + len, *line;
    size_t lineno = 0;
    printf("siw modules (built from the kernel's source, dut/siw/build-guest.sh):\n\n");
    while ((line = next_line(&p, end))) {
        lineno++;
        if (!*line)
            continue;
        char *f[3];
        if (split_tabs(line, f, 3) != 3 || !*f[0])
            die(path, "line %zu: expected BUILD<TAB>source sha256<TAB>vermagic", lineno);
        printf("- %s: siw source sha256 `", f[0]);
        put_cell(f[1], 0);
        printf("`, vermagic `");
        put_cell(f[2], 0);
        printf("`\n");
    }
    printf("\n");
    free(text);
}

/* A failed class M test whose broken requirements are all SHOULD (or
 * weaker): it does not count against the mandatory tally. A failure
 * with no requirement named (a timeout, an error) counts as mandatory. */
static bool fails_should_only(const struct vline *l)
{
    if (!l->mandatory || l->v != V_FAIL || !combos[l->combo].have_dir)
        return false;
    unsigned part;
    const cJSON *t = find_test(&combos[l->combo], l->test, &part);
    const cJSON *b, *broken = jarr(t, "broken");
    if (!t || !cJSON_GetArraySize(broken))
        return false;
    cJSON_ArrayForEach(b, broken) {
        if (!strcmp(jstr(b, "level"), "MUST"))
            return false;
    }
    return true;
}

static void print_summary(void)
{
    printf("| build | role | tests | pass | fail | error | skip | mandatory passed/ran | class M failed on a SHOULD only | kernel BUGs |\n");
    printf("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    for (int c = 0; c < NCOMBO; c++) {
        if (!combos[c].ntests)
            continue;
        size_t count[NVERDICT] = { 0 }, m_pass = 0, m_ran = 0, m_should = 0, flagged = 0;
        for (size_t i = 0; i < nlines; i++) {
            const struct vline *l = &lines[i];
            if (l->combo != c)
                continue;
            count[l->v]++;
            flagged += l->kbug_flag;
            if (fails_should_only(l)) {
                m_should++;     /* neither a mandatory pass nor a mandatory failure */
                continue;
            }
            if (l->mandatory && l->v != V_SKIP)
                m_ran++;
            if (l->mandatory && l->v == V_PASS)
                m_pass++;
        }
        printf("| %s | %s | %zu | %zu | %zu | %zu | %zu | %zu/%zu | %zu | %zu |\n", build_of(c), role_of(c),
               combos[c].ntests, count[V_PASS], count[V_FAIL], count[V_ERROR], count[V_SKIP], m_pass,
               m_ran, m_should, combos[c].have_dir ? combos[c].nbugs : flagged);
    }
    printf("\nmandatory: the class M tests, passed / ran (ran: not skipped); a class M test that"
           " failed only on SHOULD requirements is left out of it and counted in the next column"
           " (its deviation is listed under \"SHOULD only\").\n");
}

/* Where TEST of combination C is in verdicts.tsv (for ordering), or nlines. */
static size_t order_of(int c, const char *test)
{
    for (size_t i = 0; i < nlines; i++)
        if (lines[i].combo == c && !strcmp(lines[i].test, test))
            return i;
    return nlines;
}

static void print_kernel_bugs(void)
{
    printf("\n### Kernel BUGs\n\n");
    printf("Each breaks MPA-ROBUST-NO-CRASH (MUST): the test named is the one that was running"
           " when the guest's kernel logged it (dut/siw/run.sh).\n\n");
    bool any = false;
    for (int c = 0; c < NCOMBO; c++) {
        const struct combo *co = &combos[c];
        /* in verdicts.tsv order; one not listed there last, as recorded */
        bool *done = xrealloc(NULL, co->nbugs * sizeof *done);
        memset(done, 0, co->nbugs * sizeof *done);
        for (size_t k = 0; k < co->nbugs; k++) {
            size_t best = 0, best_ord = (size_t)-1;
            bool found = false;
            for (size_t i = 0; i < co->nbugs; i++) {
                size_t ord = order_of(c, co->bugs[i].test);
                if (!done[i] && (!found || ord < best_ord)) {
                    best = i, best_ord = ord, found = true;
                }
            }
            done[best] = true;
            printf("- ");
            put_code(co->bugs[best].test);
            printf(" (%s, %s): ", build_of(c), role_of(c));
            put_code(co->bugs[best].msg);
            printf("\n");
            any = true;
        }
        free(done);
    }
    if (!any)
        printf("None.\n");
}

/* Whether PATH is relative and stays below where it is relative to. */
static bool safe_relative(const char *path)
{
    if (!*path || *path == '/')
        return false;
    for (const char *p = path; *p; ) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return false;
        p += n;
        while (*p == '/')
            p++;
    }
    return true;
}

static void print_deviation(const struct vline *l)
{
    const struct combo *co = &combos[l->combo];
    unsigned part = 0;
    const cJSON *t = find_test(co, l->test, &part);
    printf("- ");
    put_code(l->test);
    const cJSON *req;
    bool first = true;
    cJSON_ArrayForEach(req, jarr(t, "requirements")) {
        const char *id = jstr(req, "id");
        if (!*id)
            continue;
        printf("%s", first ? " (" : ", ");
        put_cell(id, 0);
        first = false;
    }
    printf("%s", first ? "" : ")");
    if (!t) {
        printf(": no report (%s)\n", co->have_dir ? "not in any part's report.json" : "no run directory");
        return;
    }
    long k = jindex(t, "decided_at_step");
    const cJSON *steps = jarr(t, "steps");
    const cJSON *st = k ? cJSON_GetArrayItem(steps, (int)(k - 1)) : NULL;
    if (st && *jstr(st, "what")) {
        printf(": step %ld", k);
        if (*jstr(st, "note")) {
            printf(" (");
            put_cell(jstr(st, "note"), 0);
            printf(")");
        }
        printf(" ");
        put_code(jstr(st, "what"));
        if (*jstr(st, "detail")) {
            printf(" \xe2\x86\x92 ");         /* → */
            put_code(jstr(st, "detail"));
        }
    } else if (*jstr(t, "reason")) {
        printf(": ");
        put_code(jstr(t, "reason"));
    } else {
        printf(": no reason recorded");
    }
    const char *trace = jstr(t, "trace");
    if (safe_relative(trace)) {
        char path[4096];
        int n = snprintf(path, sizeof path, "%s/part%u/%s", co->name, part, trace);
        if (n > 0 && (size_t)n < sizeof path) {
            printf("; trace ");
            put_code(path);
        }
    }
    printf("\n");
}

static int deviation_kind(const struct vline *l)
{
    if (l->v != V_FAIL)
        return -1;
    return !l->mandatory ? 0 : fails_should_only(l) ? 1 : 2;
}

static void print_deviations(void)
{
    printf("\n### Deviations\n\n");
    printf("Failing tests: the requirements the test checks, the step that decided"
           " (what was expected \xe2\x86\x92 what came) and the trace, relative to the run directory.\n");
    /* 2: class M, a MUST broken; 1: class M, only SHOULDs broken; 0: FYI */
    for (int kind = 2; kind >= 0; kind--) {
        printf("\n#### %s\n", kind == 2 ? "Mandatory (class M)"
                                  : kind == 1 ? "SHOULD only (class M tests that broke no MUST)" : "FYI");
        bool any = false;
        for (int c = 0; c < NCOMBO; c++) {
            size_t n = 0;
            for (size_t i = 0; i < nlines; i++)
                n += lines[i].combo == c && deviation_kind(&lines[i]) == kind;
            if (!n)
                continue;
            printf("\n**%s, %s** (%zu)\n\n", build_of(c), role_of(c), n);
            for (size_t i = 0; i < nlines; i++)
                if (lines[i].combo == c && deviation_kind(&lines[i]) == kind)
                    print_deviation(&lines[i]);
            any = true;
        }
        if (!any)
            printf("\nNone.\n");
    }
}

static void print_every_verdict(void)
{
    printf("\n### Every verdict\n");
    for (int c = 0; c < NCOMBO; c++) {
        const struct combo *co = &combos[c];
        if (!co->ntests)
            continue;
        printf("\n#### %s, %s\n\n", build_of(c), role_of(c));
        printf("| test | class | verdict | note |\n|---|---|---|---|\n");
        for (size_t i = 0; i < nlines; i++) {
            const struct vline *l = &lines[i];
            if (l->combo != c)
                continue;
            unsigned part;
            const cJSON *t = find_test(co, l->test, &part);
            printf("| ");
            put_cell(l->test, 0);
            printf(" | %s | %s | ", l->mandatory ? "M" : "FYI", verdict_names[l->v]);
            bool kb = has_kernel_bug(l);
            const char *reason = l->v == V_PASS ? "" : jstr(t, "reason");
            if (kb)
                printf("kernel BUG%s", *reason ? "; " : "");
            if (*reason)
                put_cell(reason, kb ? NOTE_MAX - 12 : NOTE_MAX);
            printf(" |\n");
        }
    }
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3 || !*argv[1]) {
        fprintf(stderr, "usage: %s RUNDIR [KERNEL-TEXT]\n", PROG);
        return 2;
    }
    const char *rundir = argv[1];
    if (!is_dir(rundir))
        die(rundir, "not a directory");
    read_verdicts(rundir);
    for (int c = 0; c < NCOMBO; c++) {
        struct combo *co = &combos[c];
        snprintf(co->name, sizeof co->name, "%s-%s", build_of(c), role_of(c));
        if (!co->ntests)
            continue;
        char dir[4096];
        join(dir, sizeof dir, rundir, co->name, NULL);
        co->have_dir = is_dir(dir);
        if (!co->have_dir) {
            fprintf(stderr, "%s: %s: missing; its verdicts are printed without details\n", PROG, dir);
            continue;
        }
        read_parts(rundir, co);
        read_kernel_bugs(rundir, co);
    }

    printf("## Linux soft-iWARP (siw): every verdict\n\n");
    if (argc == 3 && *argv[2]) {
        printf("Kernel: ");
        put_cell(argv[2], 0);
        printf(".\n\n");
    }
    print_provenance(rundir);
    printf("Written by build/siw-report from one dut/siw/run.sh run. Some of siw's outcomes depend on"
           " timing; dut/siw/verdicts.tsv records every outcome seen in several runs, and"
           " docs/dut/linux-siw.md says which.\n\n");
    print_summary();
    print_kernel_bugs();
    print_deviations();
    print_every_verdict();

    if (fflush(stdout) || ferror(stdout))
        die("stdout", "write error: %s", strerror(errno));
    for (int c = 0; c < NCOMBO; c++) {
        for (size_t i = 0; i < combos[c].nparts; i++)
            cJSON_Delete(combos[c].parts[i].doc);
        for (size_t i = 0; i < combos[c].nbugs; i++) {
            free(combos[c].bugs[i].test);
            free(combos[c].bugs[i].msg);
        }
        free(combos[c].parts);
        free(combos[c].bugs);
    }
    for (size_t i = 0; i < nlines; i++)
        free(lines[i].test);
    free(lines);
    return 0;
}
