/*
 * mpa-conform's HTML report (html.h), made from the JSON report of
 * docs/mpa-conform-json.md.
 *
 * The page is for a lab engineer who prints it and hands it to the
 * vendor, so it says the result first (a banner, the counts), then one
 * row per test, then one section per test that starts a printed page:
 * purpose, verdict and reason, requirements with their text, quirks,
 * setup, a ladder diagram of the exchange with the deviation marked in
 * red, the steps, libmpa's findings, and the pcapng trace as a download.
 *
 * Nothing in the report is trusted: every string is escaped (and its
 * bytes made valid UTF-8) where it is written, and every key is read
 * through a typed getter; what is missing or of the wrong type is listed
 * in a "problems" box instead of being guessed.  Verdicts and verbs from
 * the report only ever select one of our own class names.
 */
#include "html.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- output and escaping ------------------------------------------------ */

__attribute__((format(printf, 2, 3)))
static void outf(FILE *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(o, fmt, ap);
    va_end(ap);
}

/* Length of the valid UTF-8 sequence at s (n octets there), 0 when the
 * octets are not one (overlong forms and surrogates included). */
static size_t u8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    if (c < 0xC2 || c > 0xF4)
        return 0;
    size_t len = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] >= 0xA0) || (c == 0xF0 && s[1] < 0x90) ||
        (c == 0xF4 && s[1] >= 0x90))
        return 0;
    return len;
}

/* Writes n octets of s as HTML text (also fit for attribute values and
 * SVG text): the five special characters as references, control
 * characters and invalid UTF-8 as U+FFFD. */
static void esc_n(FILE *o, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        unsigned c = p[i];
        const char *rep = NULL;
        switch (c) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = "&quot;"; break;
        case '\'': rep = "&#39;"; break;
        default: break;
        }
        if (rep) {
            fputs(rep, o);
            i++;
            continue;
        }
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) {
            fputs("\xEF\xBF\xBD", o);
            i++;
            continue;
        }
        size_t l = u8_len(p + i, n - i);
        if (l == 0) {
            fputs("\xEF\xBF\xBD", o);
            i++;
            continue;
        }
        fwrite(p + i, 1, l, o);
        i += l;
    }
}

static void esc(FILE *o, const char *s)
{
    if (s)
        esc_n(o, s, strlen(s));
}

/* Octets of s (len octets) that hold at most max characters. */
static size_t cp_prefix(const char *s, size_t len, size_t max)
{
    size_t cps = 0;
    for (size_t i = 0; i < len; i++) {
        if (((unsigned char)s[i] & 0xC0) != 0x80) {
            if (cps == max)
                return i;
            cps++;
        }
    }
    return len;
}

/* s cut to max characters with an ellipsis; returns 1 when it was cut. */
static int esc_trunc(FILE *o, const char *s, size_t max)
{
    size_t len = s ? strlen(s) : 0;
    size_t n = cp_prefix(s ? s : "", len, max);
    if (n == len) {
        esc_n(o, s ? s : "", len);
        return 0;
    }
    n = cp_prefix(s, len, max > 1 ? max - 1 : 0);
    esc_n(o, s, n);
    fputs("\xE2\x80\xA6", o);
    return 1;
}

/* ---- a small string builder for labels ---------------------------------- */

typedef struct sb {
    char b[1024];
    size_t n;
} sb;

__attribute__((format(printf, 2, 3)))
static void sb_add(sb *s, const char *fmt, ...)
{
    if (s->n >= sizeof s->b - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int r = vsnprintf(s->b + s->n, sizeof s->b - s->n, fmt, ap);
    va_end(ap);
    if (r < 0)
        return;
    s->n += (size_t)r < sizeof s->b - s->n ? (size_t)r : sizeof s->b - 1 - s->n;
}

static void sb_sep(sb *s)
{
    if (s->n && s->b[s->n - 1] != ' ')
        sb_add(s, " ");
}

/* ---- reading the report -------------------------------------------------- */

static const cJSON *jget(const cJSON *o, const char *k)
{
    return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL;
}

static const char *jstr(const cJSON *o, const char *k)
{
    const cJSON *v = jget(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A non-empty string or NULL. */
static const char *jtext(const cJSON *o, const char *k)
{
    const char *s = jstr(o, k);
    return s && *s ? s : NULL;
}

static int num_ok(const cJSON *v, double *d)
{
    if (!cJSON_IsNumber(v))
        return 0;
    double x = v->valuedouble;
    if (!(x == x) || x > 1e15 || x < -1e15)
        return 0;
    *d = x;
    return 1;
}

static int jnum(const cJSON *o, const char *k, double *d)
{
    return num_ok(jget(o, k), d);
}

/* An integer member, clamped to what an int holds; dflt when absent. */
static int jint(const cJSON *o, const char *k, int dflt)
{
    double d;
    if (!jnum(o, k, &d))
        return dflt;
    return d > 1e9 ? 1000000000 : d < -1e9 ? -1000000000 : (int)d;
}

static const char *jtype(const cJSON *v)
{
    if (!v)
        return "missing";
    if (cJSON_IsString(v))
        return "a string";
    if (cJSON_IsNumber(v))
        return "a number";
    if (cJSON_IsBool(v))
        return "a boolean";
    if (cJSON_IsNull(v))
        return "null";
    if (cJSON_IsArray(v))
        return "an array";
    if (cJSON_IsObject(v))
        return "an object";
    return "invalid";
}

/* What the report lacks or has wrong, said next to what could be shown. */
#define NOTES_MAX 12
typedef struct notes {
    char t[NOTES_MAX][200];
    unsigned n, more;
} notes;

__attribute__((format(printf, 2, 3)))
static void note(notes *ns, const char *fmt, ...)
{
    if (ns->n == NOTES_MAX) {
        ns->more++;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ns->t[ns->n++], sizeof ns->t[0], fmt, ap);
    va_end(ap);
}

enum { T_STR = 1, T_NUM = 2, T_ARR = 4, T_OBJ = 8, T_NULL = 16, T_BOOL = 32 };

static int type_ok(const cJSON *v, int types)
{
    return ((types & T_STR) && cJSON_IsString(v)) || ((types & T_NUM) && cJSON_IsNumber(v)) ||
           ((types & T_ARR) && cJSON_IsArray(v)) || ((types & T_OBJ) && cJSON_IsObject(v)) ||
           ((types & T_NULL) && cJSON_IsNull(v)) || ((types & T_BOOL) && cJSON_IsBool(v));
}

static const char *type_words(int types)
{
    switch (types & ~T_NULL) {
    case T_STR: return "a string";
    case T_NUM: return "a number";
    case T_ARR: return "an array";
    case T_OBJ: return "an object";
    case T_BOOL: return "a boolean";
    default: return "another type";
    }
}

/* Notes key k of o when it is missing (and required) or of another type. */
static void want(notes *ns, const cJSON *o, const char *where, const char *k, int types, int required)
{
    const cJSON *v = jget(o, k);
    if (!v) {
        if (required)
            note(ns, "%s\"%s\" is missing", where, k);
        return;
    }
    if (!type_ok(v, types))
        note(ns, "%s\"%s\" is %s, not %s", where, k, jtype(v), type_words(types));
}

static void put_notes(FILE *o, const notes *ns, const char *what)
{
    if (!ns->n)
        return;
    outf(o, "<div class=\"problems\"><b>%s</b><ul>", what);
    for (unsigned i = 0; i < ns->n; i++) {
        fputs("<li>", o);
        esc(o, ns->t[i]);
        fputs("</li>", o);
    }
    if (ns->more)
        outf(o, "<li>and %u more</li>", ns->more);
    fputs("</ul></div>\n", o);
}

/* ---- verdicts ------------------------------------------------------------ */

/* A verdict string selects one of these; the report's own string is
 * never written into an attribute. */
typedef enum vd { V_PASS, V_FAIL, V_ERROR, V_SKIP, V_DONE, V_NOTRUN, V_UNKNOWN } vd;

static const struct {
    const char *json, *label, *cls;
} vds[] = {
    [V_PASS] = {"pass", "PASS", "pass"},     [V_FAIL] = {"fail", "FAIL", "fail"},
    [V_ERROR] = {"error", "ERROR", "error"}, [V_SKIP] = {"skip", "SKIP", "skip"},
    [V_DONE] = {"done", "done", "done"},     [V_NOTRUN] = {"not run", "not run", "notrun"},
    [V_UNKNOWN] = {NULL, "?", "unknown"},
};

static vd verdict_of(const char *s)
{
    if (s)
        for (int i = 0; i < V_UNKNOWN; i++)
            if (!strcmp(s, vds[i].json))
                return (vd)i;
    return V_UNKNOWN;
}

/* The badge: colour and a text label, never colour alone. */
static void badge(FILE *o, vd v, const char *raw)
{
    outf(o, "<span class=\"v v-%s\">%s", vds[v].cls, vds[v].label);
    if (v == V_UNKNOWN) {
        fputs(" ", o);
        if (raw)
            esc_trunc(o, raw, 24);
        else
            fputs("(none)", o);
    }
    fputs("</span>", o);
}

static void fmt_ms(char *b, size_t n, double ms)
{
    double a = ms < 0 ? -ms : ms;
    if (a < 10)
        snprintf(b, n, "%.2f ms", ms);
    else if (a < 1000)
        snprintf(b, n, "%.1f ms", ms);
    else if (a < 600000)
        snprintf(b, n, "%.2f s", ms / 1000);
    else
        snprintf(b, n, "%.1f min", ms / 60000);
}

/* A JSON number as written in a label: integers without a fraction. */
static void sb_num(sb *s, double d)
{
    if (d == (double)(long long)d)
        sb_add(s, "%lld", (long long)d);
    else
        sb_add(s, "%g", d);
}

/* ---- anchors and file names ---------------------------------------------- */

static void sanitize(char *b, size_t n, const char *id)
{
    size_t j = 0;
    for (size_t i = 0; id[i] && j + 1 < n && i < 100; i++) {
        unsigned char c = (unsigned char)id[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                 c == '-' || c == '_';
        b[j++] = ok ? (char)c : '_';
    }
    b[j] = 0;
}

/* The section's id: the test id made safe, or t<N>-... when that is empty
 * or an earlier test has it already. */
static void anchor_of(char *b, size_t n, const cJSON *tests, int idx)
{
    const char *id = jstr(cJSON_GetArrayItem(tests, idx), "id");
    char mine[128];
    sanitize(mine, sizeof mine, id ? id : "");
    int clash = !mine[0];
    for (int i = 0; i < idx && !clash; i++) {
        const char *o = jstr(cJSON_GetArrayItem(tests, i), "id");
        char other[128];
        sanitize(other, sizeof other, o ? o : "");
        clash = !strcmp(mine, other);
    }
    if (clash)
        snprintf(b, n, "t%d-%s", idx + 1, mine);
    else
        snprintf(b, n, "%s", mine);
}

/* ---- short forms of the step texts, for the diagram ---------------------- */

static void gen_val(sb *s, const cJSON *v, int depth);

static void gen_members(sb *s, const cJSON *v, int depth)
{
    const cJSON *m;
    int first = 1;
    cJSON_ArrayForEach(m, v)
    {
        if (!first)
            sb_add(s, " ");
        first = 0;
        if (cJSON_IsObject(v) && m->string)
            sb_add(s, "%s=", m->string);
        gen_val(s, m, depth + 1);
    }
}

/* A JSON value without the quotes: {"a":1,"b":"x"} is {a=1 b=x}. */
static void gen_val(sb *s, const cJSON *v, int depth)
{
    double d;
    if (depth > 4) {
        sb_add(s, "\xE2\x80\xA6");
    } else if (num_ok(v, &d)) {
        sb_num(s, d);
    } else if (cJSON_IsString(v)) {
        sb_add(s, "%s", v->valuestring);
    } else if (cJSON_IsBool(v)) {
        sb_add(s, "%s", cJSON_IsTrue(v) ? "true" : "false");
    } else if (cJSON_IsArray(v)) {
        sb_add(s, "[");
        gen_members(s, v, depth);
        sb_add(s, "]");
    } else if (cJSON_IsObject(v)) {
        sb_add(s, "{");
        gen_members(s, v, depth);
        sb_add(s, "}");
    } else {
        sb_add(s, "null");
    }
}

static int in_list(const char *k, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(k, *list))
            return 1;
    return 0;
}

/* The members of o not in skip, as k=v, each after sep. */
static void gen_rest(sb *s, const cJSON *o, const char *const *skip, const char *sep)
{
    const cJSON *m;
    cJSON_ArrayForEach(m, o)
    {
        if (!m->string || in_list(m->string, skip))
            continue;
        sb_add(s, "%s%s=", sep, m->string);
        gen_val(s, m, 1);
    }
}

static void flag(sb *s, const cJSON *o, const char *k, const char *name)
{
    double d;
    if (jnum(o, k, &d)) {
        sb_sep(s);
        sb_add(s, "%s=", name);
        sb_num(s, d);
    }
}

/* A startup frame as sent or received: "Request Rev 2 M=0 C=1 R=0 S=1,
 * A=1 B=0 C=1 D=0 IRD=16 ORD=16, PD_Length 4". */
static void sum_frame(sb *s, const cJSON *f)
{
    static const char *const known[] = {"key", "rev", "m", "c", "r", "s", "res", "enhanced", "pd_length",
                                        "pd_user_length", "private_data", NULL};
    const cJSON *k = jget(f, "key");
    const char *ks = cJSON_IsString(k) ? k->valuestring : NULL;
    if (ks && !strcmp(ks, "request"))
        sb_add(s, "Request");
    else if (ks && !strcmp(ks, "reply"))
        sb_add(s, "Reply");
    else if (ks && !strcmp(ks, "rtr2007"))
        sb_add(s, "RtR frame (2007)");
    else if (ks && !strcmp(ks, "startkey"))
        sb_add(s, "Start Key");
    else if (ks)
        sb_add(s, "frame key \"%s\"", ks);
    else if (k) {
        sb_add(s, "frame key=");
        gen_val(s, k, 1);
    } else
        sb_add(s, "frame");
    double d;
    if (jnum(f, "rev", &d)) {
        sb_add(s, " Rev ");
        sb_num(s, d);
    }
    if (jget(f, "rev") && !cJSON_IsNumber(jget(f, "rev"))) {
        sb_add(s, " Rev ");
        gen_val(s, jget(f, "rev"), 1);
    }
    flag(s, f, "m", "M");
    flag(s, f, "c", "C");
    flag(s, f, "r", "R");
    flag(s, f, "s", "S");
    if (jnum(f, "res", &d) && d != 0)
        flag(s, f, "res", "Res");
    const cJSON *e = jget(f, "enhanced");
    if (cJSON_IsObject(e)) {
        static const char *const eknown[] = {"a", "b", "c", "d", "ird", "ord", NULL};
        sb_add(s, ",");
        flag(s, e, "a", "A");
        flag(s, e, "b", "B");
        flag(s, e, "c", "C");
        flag(s, e, "d", "D");
        flag(s, e, "ird", "IRD");
        flag(s, e, "ord", "ORD");
        gen_rest(s, e, eknown, " ");
    } else if (e) {
        sb_sep(s);
        sb_add(s, "enhanced=");
        gen_val(s, e, 1);
    }
    if (jnum(f, "pd_length", &d) && d != 0) {
        sb_add(s, ", PD_Length ");
        sb_num(s, d);
    }
    const cJSON *pd = jget(f, "private_data");
    if (cJSON_IsString(pd)) {
        sb_add(s, ", PD \"%.24s%s\"", pd->valuestring, strlen(pd->valuestring) > 24 ? "\xE2\x80\xA6" : "");
    } else if (jstr(pd, "hex")) {
        sb_add(s, ", PD %zu octets", strlen(jstr(pd, "hex")) / 2);
    } else if (pd) {
        sb_add(s, ", PD ");
        gen_val(s, pd, 1);
    }
    gen_rest(s, f, known, ", ");
}

/* An FPDU: "Send MSN 1, 100 octets, ULPDU 118, CRC good", "RTR (write)",
 * "TERMINATE layer 2 etype 0 code 2". */
static void sum_fpdu(sb *s, const char *kind, const cJSON *f)
{
    static const char *const known[] = {"rdmap", "rtr", "tagged", "last", "qn", "msn", "mo", "stag", "to",
                                        "dv", "rv", "payload_length", "ulpdu_length", "crc", "markers",
                                        "layer", "etype", "code", "payload", NULL};
    const char *rdmap = jstr(f, "rdmap");
    const char *rtr = jstr(f, "rtr");
    double d;
    if ((rdmap && !strcmp(rdmap, "terminate")) || !strcmp(kind, "terminate")) {
        sb_add(s, "TERMINATE");
        static const char *const tk[] = {"layer", "etype", "code"};
        for (int i = 0; i < 3; i++)
            if (jnum(f, tk[i], &d)) {
                sb_add(s, "%s%s ", i ? ", " : " ", tk[i]);
                sb_num(s, d);
            }
    } else if (rtr && strcmp(rtr, "none")) {
        sb_add(s, "RTR (%s)", rtr);
    } else if (rdmap) {
        sb_add(s, "FPDU %s", rdmap);
        if (jnum(f, "tagged", &d) && d == 0 && jnum(f, "msn", &d)) {
            sb_add(s, " MSN ");
            sb_num(s, d);
        }
    } else {
        sb_add(s, "FPDU");
    }
    if (jnum(f, "payload_length", &d) && d != 0) {
        sb_add(s, ", ");
        sb_num(s, d);
        sb_add(s, " octets");
    }
    if (jnum(f, "ulpdu_length", &d)) {
        sb_add(s, ", ULPDU ");
        sb_num(s, d);
    }
    const cJSON *crc = jget(f, "crc");
    if (cJSON_IsString(crc))
        sb_add(s, ", CRC %s", crc->valuestring);
    else if (cJSON_IsTrue(crc))
        sb_add(s, ", CRC");
    else if (cJSON_IsFalse(crc))
        sb_add(s, ", no CRC");
    const cJSON *mk = jget(f, "markers");
    if (cJSON_IsTrue(mk) || (jnum(f, "markers", &d) && d != 0))
        sb_add(s, ", markers");
    gen_rest(s, f, known, ", ");
}

/* "KIND {json}..." at t: the kind word, the parsed JSON (to be deleted)
 * when one follows, and where the text goes on. */
static cJSON *split_obj(const char *t, char *kind, size_t kn, const char **rest)
{
    size_t i = 0;
    while (t[i] && t[i] != ' ' && t[i] != '{' && t[i] != '[' && i + 1 < kn) {
        kind[i] = t[i];
        i++;
    }
    kind[i] = 0;
    while (t[i] && t[i] != ' ' && t[i] != '{' && t[i] != '[')
        i++;
    const char *p = t + i;
    while (*p == ' ')
        p++;
    *rest = p;
    if (*p == '{' || *p == '[') {
        const char *end = NULL;
        cJSON *j = cJSON_ParseWithOpts(p, &end, 0);
        if (j) {
            *rest = end;
            return j;
        }
    }
    return NULL;
}

/* The text of a thing sent or received (after "send " or "got "), short. */
static void sum_thing(sb *s, const char *t)
{
    char kind[32];
    const char *rest;
    cJSON *j = split_obj(t, kind, sizeof kind, &rest);
    if (!strcmp(kind, "frame") && cJSON_IsObject(j)) {
        sum_frame(s, j);
    } else if ((!strcmp(kind, "fpdu") || !strcmp(kind, "terminate")) && cJSON_IsObject(j)) {
        sum_fpdu(s, kind, j);
    } else if (!strcmp(kind, "fin") || !strcmp(kind, "rst")) {
        sb_add(s, "%s", kind[0] == 'f' ? "FIN" : "RST");
    } else if (j) {
        sb_add(s, "%s ", kind);
        gen_val(s, j, 0);
    } else {
        /* no JSON: the text as it is, up to " after " */
        const char *a = strstr(t, " after ");
        size_t n = a ? (size_t)(a - t) : strlen(t);
        sb_add(s, "%.*s", (int)(n > 200 ? 200 : n), t);
    }
    cJSON_Delete(j);
}

/* An expectation (after "expect "), its JSON without quotes. */
static void sum_expect(sb *s, const char *t)
{
    char kind[32];
    const char *rest;
    cJSON *j = split_obj(t, kind, sizeof kind, &rest);
    if (j) {
        sb_add(s, "%s ", kind);
        gen_val(s, j, 0);
        sb_add(s, "%s", rest);
        cJSON_Delete(j);
    } else {
        sb_add(s, "%s", t);
    }
}

static const char *after_word(const char *s, const char *w)
{
    size_t n = strlen(w);
    return s && !strncmp(s, w, n) ? s + n : NULL;
}

/* ---- the ladder diagram -------------------------------------------------- */

/* Geometry, in SVG user units. */
#define LW 860          /* width: about 0.8 of it on A4 paper */
#define LXT 62          /* the margin's time column (right-aligned) */
#define LXL 180         /* mpa-conform's lifeline */
#define LXR 760         /* the device's lifeline */
#define LMID ((LXL + LXR) / 2)
#define LHEAD 74        /* below the two head boxes */
#define LABEL_MAX 84    /* characters of an arrow's label */
#define SUB_MAX 96      /* characters of the line under it */
#define BOX_COLS 80     /* characters per line of a reason box */
#define BOX_LINES 9
#define ROWS_MAX 400    /* steps drawn; the table has them all */

typedef enum rkind { RK_ARROW, RK_GAP, RK_MISS } rkind;
typedef enum rstyle { ST_PLAIN, ST_TCP, ST_PASS, ST_FAIL, ST_ERROR, ST_NOTRUN } rstyle;

typedef struct row {
    rkind kind;
    rstyle style;
    int dir;         /* 1: mpa-conform to the device, -1: back */
    int xhead;       /* an X for a head: RST, or a connect that failed */
    const cJSON *step;
    int index;
    int has_t;
    double t;        /* the margin's time: when the arrow happened */
    sb label, sub;
    const char *box; /* the reason, wrapped under the row */
    char headline[160];
    unsigned box_lines;
    int y, h;
} row;

/* Splits text into lines of at most cols characters, at spaces when it
 * can, else after a comma, else anywhere; returns the number of lines
 * (at most max; *cut set when there was more). */
static unsigned wrap(const char *t, size_t cols, size_t *off, size_t *len, unsigned max, int *cut)
{
    size_t n = strlen(t), i = 0;
    unsigned lines = 0;
    *cut = 0;
    while (i < n) {
        if (lines == max) {
            *cut = 1;
            break;
        }
        while (i < n && t[i] == ' ')
            i++;
        if (i == n)
            break;
        size_t take = cp_prefix(t + i, n - i, cols);
        if (i + take < n) {
            size_t b = take;
            while (b > take / 3 && t[i + b] != ' ')
                b--;
            if (b > take / 3) {
                take = b;
            } else {
                b = take;
                while (b > take / 3 && t[i + b - 1] != ',')
                    b--;
                if (b > take / 3)
                    take = b;
            }
        }
        off[lines] = i;
        len[lines] = take;
        lines++;
        i += take;
        /* a newline in the text ends a line too */
        for (size_t k = 0; k < len[lines - 1]; k++)
            if (t[off[lines - 1] + k] == '\n') {
                len[lines - 1] = k;
                i = off[lines - 1] + k + 1;
                break;
            }
    }
    return lines;
}

/* The reason as the box shows it: what came on a line of its own (the
 * reason is "step N: expect ...; got ..."). Cut to what the box holds. */
static void box_text(char *b, size_t n, const char *reason)
{
    size_t len = strlen(reason);
    size_t keep = cp_prefix(reason, len, BOX_COLS * BOX_LINES + 1);
    if (keep > n - 1)
        keep = cp_prefix(reason, n - 1, (n - 1) / 4);
    memcpy(b, reason, keep);
    b[keep] = 0;
    char *g = strstr(b, "; got ");
    if (g) {
        g[0] = '\n';
        memmove(g + 1, g + 2, strlen(g + 2) + 1);
    }
}

static const char *style_cls(rstyle s)
{
    switch (s) {
    case ST_PLAIN: return "sp";
    case ST_TCP: return "st";
    case ST_PASS: return "sok";
    case ST_FAIL: return "sf";
    case ST_ERROR: return "se";
    case ST_NOTRUN: return "sn";
    }
    return "sp";
}

/* What went wrong in a step, in a few words: mpa-inject's details end
 * in "after N ms: WHY"; else the kinds expected and received. */
static void headline(char *b, size_t n, const char *what, const char *detail, vd v)
{
    const char *why = detail ? strstr(detail, " ms: ") : NULL;
    const char *got = after_word(detail, "got ");
    const char *exp = after_word(what, "expect ");
    if (why) {
        snprintf(b, n, "%s", why + 5);
    } else if (v == V_ERROR) {
        snprintf(b, n, "%s", detail && *detail ? detail : "the step could not be done");
    } else if (got && exp) {
        char ek[32], gk[32];
        const char *rest;
        cJSON_Delete(split_obj(exp, ek, sizeof ek, &rest));
        cJSON_Delete(split_obj(got, gk, sizeof gk, &rest));
        if (!strcmp(gk, "nothing"))
            snprintf(b, n, "expected %s, %s", ek, detail);
        else
            snprintf(b, n, "expected %s, got %s", ek, gk);
    } else {
        snprintf(b, n, "the device deviated here");
    }
}

/* Builds the row of one step. reason: the test's reason, used for the
 * step that decided it. */
static void step_row(row *r, const cJSON *st, int i, const char *role, int deciding, const char *reason)
{
    memset(r, 0, sizeof *r);
    r->step = st;
    r->index = jint(st, "index", i + 1);
    const char *verb = jstr(st, "verb");
    const char *what = jstr(st, "what");
    const char *detail = jstr(st, "detail");
    vd v = verdict_of(jstr(st, "verdict"));
    double t = 0, took = 0;
    int has_t = jnum(st, "t_ms", &t);
    int has_took = jnum(st, "took_ms", &took);
    r->has_t = has_t;
    r->t = t;
    r->kind = RK_ARROW;
    r->dir = 1;
    r->style = v == V_PASS ? ST_PASS : v == V_FAIL ? ST_FAIL : v == V_ERROR ? ST_ERROR
             : v == V_NOTRUN ? ST_NOTRUN : ST_PLAIN;
    const char *mark = v == V_PASS ? "\xE2\x9C\x93 " : v == V_FAIL ? "\xE2\x9C\x97 " : v == V_ERROR ? "\xE2\x9A\xA0 " : "";
    if (!verb)
        verb = "?";

    if (!strcmp(verb, "open")) {
        int accept = (what && (strstr(what, "listen") || strstr(what, "accept"))) ||
                     (!(what && *what) && role && !strcmp(role, "initiator"));
        r->dir = accept ? -1 : 1;
        if (r->style == ST_PLAIN)
            r->style = ST_TCP;
        sb_add(&r->label, "%s%s", mark, accept ? "TCP connect from the device (accepted)" : "TCP connect");
        if (detail && *detail)
            sb_add(&r->sub, "%s", detail);
        r->xhead = v == V_ERROR || v == V_FAIL;
    } else if (!strcmp(verb, "send")) {
        const char *t2 = after_word(what, "send ");
        sb_add(&r->label, "%s", mark);
        if (t2)
            sum_thing(&r->label, t2);
        else
            sb_add(&r->label, "send");
        if (detail && *detail)
            sb_add(&r->sub, "%s", detail);
    } else if (!strcmp(verb, "close") || !strcmp(verb, "abort")) {
        int rst = verb[0] == 'a';
        if (r->style == ST_PLAIN)
            r->style = ST_TCP;
        sb_add(&r->label, "%s%s", mark, rst ? "RST (abort)" : "FIN (close)");
        if (detail && *detail)
            sb_add(&r->sub, "%s", detail);
        r->xhead = rst;
    } else if (!strcmp(verb, "expect")) {
        r->dir = -1;
        const char *got = after_word(detail, "got ");
        const char *exp = after_word(what, "expect ");
        if (got && !strncmp(got, "nothing", 7) && v != V_NOTRUN) {
            r->kind = RK_MISS;
            const char *how = got + 7;
            while (*how == ' ' || *how == ':')
                how++;
            sb_add(&r->label, "%snothing came from the device%s%s", mark, *how && strncmp(how, "within", 6) ? ": " : " ",
                   how);
        } else if (got && v != V_NOTRUN) {
            sb_add(&r->label, "%s", mark);
            sum_thing(&r->label, got);
            if (strstr(got, "(already received)"))
                sb_add(&r->label, " (already received)");
        } else {
            sb_add(&r->label, "%s", mark);
            if (exp)
                sum_expect(&r->label, exp);
            else
                sb_add(&r->label, "expect");
        }
        if (exp && v != V_NOTRUN) {
            sb_add(&r->sub, "expected: ");
            sum_expect(&r->sub, exp);
        }
        if (has_t && has_took && v != V_NOTRUN)
            r->t = t + took;
    } else if (!strcmp(verb, "sleep")) {
        r->kind = RK_GAP;
        sb_add(&r->label, "%s", what && *what ? what : "sleep");
    } else {
        r->kind = RK_GAP;
        sb_add(&r->label, "step verb \"%s\": %s", verb, what ? what : "");
    }
    if (v == V_NOTRUN) {
        sb reset = {.n = 0};
        sb_add(&reset, "not run: %s", r->kind == RK_GAP ? r->label.b : verb);
        if (what && *what && r->kind != RK_GAP) {
            sb_add(&reset, " ");
            sb_add(&reset, "%s", r->label.b);
        }
        r->label = reset;
        r->sub.n = 0;
        r->sub.b[0] = 0;
        r->xhead = 0;
        r->has_t = 0;
    }
    if (v == V_FAIL || v == V_ERROR) {
        r->box = deciding && reason && *reason ? reason : detail && *detail ? detail : reason;
        headline(r->headline, sizeof r->headline, what, detail, v);
    }
}

static void svg_text(FILE *o, int x, int y, const char *cls, const char *anchor, const char *s, size_t max)
{
    outf(o, "<text x=\"%d\" y=\"%d\" class=\"%s\"%s%s%s>", x, y, cls, anchor ? " text-anchor=\"" : "",
         anchor ? anchor : "", anchor ? "\"" : "");
    esc_trunc(o, s, max);
    fputs("</text>", o);
}

static void svg_arrow(FILE *o, int x1, int x2, int y, int xhead, int dashed)
{
    int dir = x2 > x1 ? 1 : -1;
    int tip = x2 - dir * (xhead ? 7 : 1);
    outf(o, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"%s/>", x1, y, tip - dir * (xhead ? 0 : 9), y,
         dashed ? " stroke-dasharray=\"6 4\"" : "");
    if (xhead) {
        outf(o, "<path class=\"x\" d=\"M%d %dL%d %dM%d %dL%d %d\"/>", x2 - 6, y - 6, x2 + 6, y + 6, x2 - 6, y + 6,
             x2 + 6, y - 6);
    } else {
        outf(o, "<polygon points=\"%d,%d %d,%d %d,%d\"/>", tip, y, tip - dir * 11, y - 5, tip - dir * 11, y + 5);
    }
}

/* The step's full texts, for the tooltip. */
static void row_title(FILE *o, const row *r)
{
    const cJSON *st = r->step;
    fputs("<title>", o);
    outf(o, "step %d", r->index);
    const char *verb = jstr(st, "verb"), *vs = jstr(st, "verdict");
    if (verb || vs) {
        fputs(" (", o);
        esc(o, verb ? verb : "?");
        fputs(", ", o);
        esc(o, vs ? vs : "?");
        fputs(")", o);
    }
    const char *keys[] = {"what", "detail", "note"};
    for (int k = 0; k < 3; k++) {
        const char *s = jtext(st, keys[k]);
        if (s) {
            fputs("\n", o);
            esc(o, s);
        }
    }
    fputs("</title>", o);
}

static void draw_row(FILE *o, const row *r)
{
    char tb[32];
    int y = r->y;
    outf(o, "<g class=\"%s\">", style_cls(r->style));
    row_title(o, r);
    /* the margin: step number and time */
    outf(o, "<text x=\"%d\" y=\"%d\" class=\"ix\" text-anchor=\"end\">%d</text>", LXT - 30, y + 4, r->index);
    if (r->has_t) {
        fmt_ms(tb, sizeof tb, r->t);
        outf(o, "<text x=\"%d\" y=\"%d\" class=\"tm\" text-anchor=\"end\">%s</text>", LXT + 62, y + 4, tb);
    }
    switch (r->kind) {
    case RK_ARROW: {
        int x1 = r->dir > 0 ? LXL : LXR, x2 = r->dir > 0 ? LXR : LXL;
        outf(o, "<circle cx=\"%d\" cy=\"%d\" r=\"2.5\"/>", x1, y);
        svg_arrow(o, x1, x2, y, r->xhead, r->style == ST_NOTRUN);
        svg_text(o, LMID, y - 7, "lb", "middle", r->label.b, LABEL_MAX);
        if (r->sub.n)
            svg_text(o, LMID, y + 15, "sub", "middle", r->sub.b, SUB_MAX);
        break;
    }
    case RK_GAP:
        outf(o, "<rect class=\"gap\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"18\" rx=\"9\"/>", LXL + 40, y - 12,
             LXR - LXL - 80);
        svg_text(o, LMID, y + 1, "gl", "middle", r->label.b, LABEL_MAX);
        break;
    case RK_MISS:
        outf(o, "<rect class=\"miss\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"22\"/>", LXL + 20, y - 14,
             LXR - LXL - 40);
        outf(o, "<path class=\"x\" d=\"M%d %dL%d %dM%d %dL%d %d\"/>", LXL - 6, y - 9, LXL + 6, y + 3, LXL - 6, y + 3,
             LXL + 6, y - 9);
        svg_text(o, LMID, y + 1, "lb", "middle", r->label.b, LABEL_MAX);
        if (r->sub.n)
            svg_text(o, LMID, y + 22, "sub", "middle", r->sub.b, SUB_MAX);
        break;
    }
    if (r->box) {
        size_t off[BOX_LINES], len[BOX_LINES];
        int cut;
        char text[BOX_COLS * BOX_LINES * 4 + 8];
        box_text(text, sizeof text, r->box);
        unsigned n = wrap(text, BOX_COLS, off, len, BOX_LINES, &cut);
        int by = y + (r->sub.n ? 28 : 16);
        int bh = 24 + 14 * (int)n + 6;
        outf(o, "<rect class=\"rbox\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"3\"/>", LXL + 14, by,
             LXR - LXL - 28, bh);
        outf(o, "<text x=\"%d\" y=\"%d\" class=\"rh\">", LXL + 24, by + 16);
        esc_trunc(o, r->headline, BOX_COLS - 4);
        fputs("</text>", o);
        outf(o, "<text class=\"rt\" x=\"%d\" y=\"%d\">", LXL + 24, by + 22);
        for (unsigned k = 0; k < n; k++) {
            outf(o, "<tspan x=\"%d\" dy=\"14\">", LXL + 24);
            esc_n(o, text + off[k], len[k]);
            if ((cut || strlen(r->box) > strlen(text) + 1) && k + 1 == n)
                fputs("\xE2\x80\xA6", o);
            fputs("</tspan>", o);
        }
        fputs("</text>", o);
    }
    fputs("</g>\n", o);
}

/* A break in time between rows: "... 3.00 s ...". */
static void draw_pause(FILE *o, int y, double ms, const char *what)
{
    char tb[32];
    fmt_ms(tb, sizeof tb, ms);
    fputs("<g class=\"pause\">", o);
    for (int k = 0; k < 2; k++) {
        int x = k ? LXR : LXL;
        outf(o, "<rect x=\"%d\" y=\"%d\" width=\"20\" height=\"9\"/><path d=\"M%d %dl16 -6M%d %dl16 -6\"/>",
             x - 10, y - 6, x - 8, y + 1, x - 8, y + 6);
    }
    outf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"gl\">%s %s</text></g>\n", LMID, y + 2, what, tb);
}

/* The ladder of one test: rows laid out first (their heights decide the
 * picture's), then drawn. */
static void put_ladder(FILE *o, const cJSON *test, const cJSON *steps, int nsteps, const char *reason,
                       int decided)
{
    const char *role = jstr(test, "device_role");
    const char *id = jstr(test, "id");
    int shown = nsteps > ROWS_MAX ? ROWS_MAX : nsteps;
    row *rows = shown ? calloc((size_t)shown, sizeof *rows) : NULL;
    if (shown && !rows) {
        fputs("<p class=\"problems\">The ladder diagram could not be drawn (out of memory).</p>\n", o);
        return;
    }
    /* the deciding step: decided_at_step, else the first that failed */
    int first_bad = -1;
    for (int i = 0; i < shown; i++) {
        vd v = verdict_of(jstr(cJSON_GetArrayItem(steps, i), "verdict"));
        if ((v == V_FAIL || v == V_ERROR) && first_bad < 0)
            first_bad = i;
    }
    /* layout */
    int y = LHEAD + 40;
    double prev_end = -1;
    int pauses[ROWS_MAX];
    double pause_ms[ROWS_MAX];
    for (int i = 0; i < shown; i++) {
        const cJSON *st = cJSON_GetArrayItem(steps, i);
        int idx = jint(st, "index", i + 1);
        int deciding = decided > 0 ? idx == decided : i == first_bad;
        row *r = &rows[i];
        step_row(r, st, i, role, deciding, reason);
        /* a pause: time between steps, or an expect that waited */
        double t, took = 0;
        pauses[i] = 0;
        pause_ms[i] = 0;
        if (jnum(st, "t_ms", &t)) {
            int has_took = jnum(st, "took_ms", &took);
            const char *verb = jstr(st, "verb");
            int waits = verb && !strcmp(verb, "expect") && has_took && took >= 50;
            if (prev_end >= 0 && t - prev_end >= 50) {
                pauses[i] = 1;
                pause_ms[i] = t - prev_end;
            } else if (waits) {
                pauses[i] = 2;
                pause_ms[i] = took;
            }
            prev_end = t + (has_took ? took : 0);
            if (pauses[i])
                y += 26;
        }
        r->y = y;
        int h = r->kind == RK_GAP ? 38 : r->sub.n ? 50 : 42;
        if (r->kind == RK_MISS)
            h += 6;
        if (r->box) {
            size_t off[BOX_LINES], len[BOX_LINES];
            int cut;
            char text[BOX_COLS * BOX_LINES * 4 + 8];
            box_text(text, sizeof text, r->box);
            r->box_lines = wrap(text, BOX_COLS, off, len, BOX_LINES, &cut);
            h += 24 + 14 * (int)r->box_lines + 16;
        }
        r->h = h;
        y += h;
    }
    int height = y + 30;
    int empty = shown == 0;
    if (empty)
        height += 30;

    outf(o, "<figure class=\"ladder\"><svg class=\"lad\" role=\"img\" viewBox=\"0 0 %d %d\" width=\"%d\" "
            "height=\"%d\">",
         LW, height, LW, height);
    fputs("<title>Ladder diagram of ", o);
    esc(o, id ? id : "the test");
    fputs("</title>\n", o);
    /* head boxes and lifelines */
    const char *us_role = role && !strcmp(role, "initiator") ? "MPA Responder"
                         : role && !strcmp(role, "responder") ? "MPA Initiator" : "role ?";
    const char *dev_role = role && !strcmp(role, "initiator") ? "MPA Initiator"
                          : role && !strcmp(role, "responder") ? "MPA Responder" : "role ?";
    const char *addr[2] = {jtext(test, "local_address"), jtext(test, "device_address")};
    const char *name[2] = {"mpa-conform", "device under test"};
    const char *rl[2] = {us_role, dev_role};
    int xs[2] = {LXL, LXR};
    outf(o, "<text x=\"%d\" y=\"%d\" class=\"mh\" text-anchor=\"end\">step</text>", LXT - 22, LHEAD + 14);
    outf(o, "<text x=\"%d\" y=\"%d\" class=\"mh\" text-anchor=\"end\">time</text>", LXT + 62, LHEAD + 14);
    for (int k = 0; k < 2; k++) {
        outf(o, "<g class=\"hd\"><rect x=\"%d\" y=\"6\" width=\"190\" height=\"%d\" rx=\"4\"/>", xs[k] - 95,
             LHEAD - 12);
        outf(o, "<text x=\"%d\" y=\"26\" class=\"hn\" text-anchor=\"middle\">%s</text>", xs[k], name[k]);
        outf(o, "<text x=\"%d\" y=\"43\" class=\"hr\" text-anchor=\"middle\">%s</text>", xs[k], rl[k]);
        if (addr[k])
            svg_text(o, xs[k], 58, "ha", "middle", addr[k], 30);
        outf(o, "</g><line class=\"life\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", xs[k], LHEAD - 6, xs[k],
             height - 14);
    }
    if (empty)
        outf(o, "<text x=\"%d\" y=\"%d\" class=\"gl\" text-anchor=\"middle\">%s</text>\n", LMID, LHEAD + 40,
             cJSON_IsArray(steps) ? "(the report lists no steps for this test)"
                                  : "(the report has no steps for this test)");
    for (int i = 0; i < shown; i++) {
        if (pauses[i])
            draw_pause(o, rows[i].y - 34, pause_ms[i], pauses[i] == 2 ? "waiting" : "pause,");
        draw_row(o, &rows[i]);
    }
    /* the end of the test */
    double dur;
    if (shown && jnum(test, "duration_ms", &dur)) {
        char tb[32];
        fmt_ms(tb, sizeof tb, dur);
        outf(o, "<text x=\"%d\" y=\"%d\" class=\"tm\" text-anchor=\"end\">end %s</text>", LXT + 62, height - 12, tb);
    }
    fputs("</svg>", o);
    if (nsteps > shown)
        outf(o, "<figcaption>The first %d of %d steps are drawn; the table lists them all.</figcaption>", shown,
             nsteps);
    fputs("</figure>\n", o);
    free(rows);
}

/* ---- the trace ----------------------------------------------------------- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void put_b64(FILE *o, const unsigned char *p, size_t n)
{
    char q[4];
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        q[0] = b64[v >> 18];
        q[1] = b64[(v >> 12) & 63];
        q[2] = b64[(v >> 6) & 63];
        q[3] = b64[v & 63];
        fwrite(q, 1, 4, o);
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)p[i] << 16;
        q[0] = b64[v >> 18];
        q[1] = b64[(v >> 12) & 63];
        q[2] = q[3] = '=';
        fwrite(q, 1, 4, o);
    } else if (n - i == 2) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8;
        q[0] = b64[v >> 18];
        q[1] = b64[(v >> 12) & 63];
        q[2] = b64[(v >> 6) & 63];
        q[3] = '=';
        fwrite(q, 1, 4, o);
    }
}

static void trace_missing(FILE *o, const char *rel, const char *why)
{
    fputs("<p class=\"nodl\">The trace <code>", o);
    esc(o, rel);
    fputs("</code> is not embedded: ", o);
    esc(o, why);
    fputs(".</p>\n", o);
}

static void put_trace(FILE *o, const cJSON *test, const char *base_dir, const char *anchor)
{
    const cJSON *tv = jget(test, "trace");
    if (!tv || cJSON_IsNull(tv)) {
        fputs("<p class=\"nodl\">No trace was written for this test.</p>\n", o);
        return;
    }
    if (!cJSON_IsString(tv) || !*tv->valuestring) {
        outf(o, "<p class=\"nodl\">The report's \"trace\" is %s, not a file name.</p>\n",
             cJSON_IsString(tv) ? "empty" : jtype(tv));
        return;
    }
    const char *rel = tv->valuestring;
    char path[4096];
    int n = rel[0] == '/' ? snprintf(path, sizeof path, "%s", rel)
                          : snprintf(path, sizeof path, "%s/%s", base_dir && *base_dir ? base_dir : ".", rel);
    if (n < 0 || (size_t)n >= sizeof path) {
        trace_missing(o, rel, "its path is too long");
        return;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        trace_missing(o, rel, strerror(errno));
        return;
    }
    struct stat sbuf;
    if (fstat(fileno(f), &sbuf) || !S_ISREG(sbuf.st_mode)) {
        fclose(f);
        trace_missing(o, rel, "it is not a regular file");
        return;
    }
    if ((uintmax_t)sbuf.st_size > CONFORM_HTML_TRACE_MAX) {
        fclose(f);
        char why[160];
        snprintf(why, sizeof why, "it has %ju octets, more than the %u MiB this page embeds; it is next to the report",
                 (uintmax_t)sbuf.st_size, CONFORM_HTML_TRACE_MAX >> 20);
        trace_missing(o, rel, why);
        return;
    }
    size_t cap = (size_t)sbuf.st_size;
    unsigned char *buf = malloc(cap + 1);
    if (!buf) {
        fclose(f);
        trace_missing(o, rel, "out of memory");
        return;
    }
    size_t got = fread(buf, 1, cap + 1, f);
    int bad = ferror(f) || got != cap;
    fclose(f);
    if (bad) {
        free(buf);
        trace_missing(o, rel, "it could not be read whole (it changed, or a read failed)");
        return;
    }
    fputs("<p class=\"dl\"><a class=\"trace\" download=\"", o);
    esc(o, anchor);
    fputs(".pcapng\" href=\"data:application/vnd.tcpdump.pcap;base64,", o);
    put_b64(o, buf, got);
    fputs("\">\xE2\xAC\x87 Download the trace (", o);
    esc(o, anchor);
    outf(o, ".pcapng, %zu octets)</a> <span class=\"mute\">from <code>", got);
    esc(o, rel);
    fputs("</code>; Wireshark or tshark with the iwmpa plugin decodes it, and every packet carries the step "
          "that sent or expected it as a comment.</span></p>\n",
          o);
    free(buf);
}

/* ---- the page ------------------------------------------------------------ */

/* One string per rule group: C11 promises string literals of 4095 octets only. */
static const char *const css[] = {
    ":root{--pass:#1a7f37;--fail:#cf222e;--error:#b35900;--skip:#6e7781;--ink:#1f2328;--mute:#57606a;"
    "--line:#d0d7de;--bg2:#f6f8fa}\n",
    "*{box-sizing:border-box}\n",
    "html{-webkit-print-color-adjust:exact;print-color-adjust:exact}\n",
    "body{font:14px/1.45 \"DejaVu Sans\",\"Segoe UI\",Helvetica,Arial,sans-serif;color:var(--ink);"
    "max-width:1080px;margin:0 auto;padding:24px 28px 60px}\n",
    "code,.mono{font-family:\"DejaVu Sans Mono\",Menlo,Consolas,monospace;font-size:12px}\n",
    "h1{font-size:26px;margin:0 0 2px}h2{font-size:19px;margin:28px 0 8px;border-bottom:1px solid var(--line);"
    "padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}\n",
    ".sub{color:var(--mute);margin:0 0 14px}\n",
    "a{color:#0550ae}\n",
    "dl.kv{display:grid;grid-template-columns:11em 1fr;gap:2px 14px;margin:8px 0}"
    "dl.kv dt{color:var(--mute)}dl.kv dd{margin:0;overflow-wrap:anywhere}\n",
    ".banner{border:2px solid;border-left-width:14px;border-radius:4px;padding:12px 18px;margin:18px 0}"
    ".banner .big{font-size:24px;font-weight:700;letter-spacing:.02em}.banner p{margin:4px 0 0}\n",
    ".banner.b-pass{border-color:var(--pass);background:#dafbe1}.banner.b-fail{border-color:var(--fail);"
    "background:#ffebe9}.banner.b-error{border-color:var(--error);background:#fff1e5}.banner.b-skip{"
    "border-color:var(--skip);background:var(--bg2)}\n",
    "table{border-collapse:collapse;width:100%;margin:6px 0 10px}th,td{border-bottom:1px solid var(--line);"
    "padding:4px 8px;text-align:left;vertical-align:top}th{background:var(--bg2);font-weight:600;font-size:13px}\n",
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}\n",
    "table.counts{width:auto;min-width:560px}table.counts td.n,table.counts th.n{min-width:5em}"
    "table.counts td.hot{font-weight:700}\n",
    ".v{display:inline-block;min-width:4.6em;text-align:center;padding:1px 6px;border-radius:3px;font-weight:700;"
    "font-size:12px;color:#fff;letter-spacing:.04em;white-space:nowrap}\n",
    ".v-pass{background:var(--pass)}.v-fail{background:var(--fail)}.v-error{background:var(--error)}"
    ".v-skip{background:var(--skip)}.v-done{background:#fff;color:var(--ink);border:1px solid var(--line);"
    "font-weight:400}.v-notrun{background:#fff;color:var(--skip);border:1px dashed var(--skip);font-weight:400}"
    ".v-unknown{background:#fff;color:#8250df;border:1px solid #8250df}\n",
    ".c-pass{color:var(--pass)}.c-fail{color:var(--fail)}.c-error{color:var(--error)}.c-skip{color:var(--skip)}\n",
    "tr.r-fail td{background:#fff5f5}tr.r-error td{background:#fff8f0}tr.r-notrun td{color:#8c959f}\n",
    "table.tests td:nth-child(2) code{white-space:nowrap}.why1{font-size:12px;color:var(--mute);"
    "overflow-wrap:anywhere}tr.r-fail .why1{color:#a40e26}tr.r-error .why1{color:#8a4600}\n",
    ".reqs{font-size:12px;color:var(--mute)}.rid,table.reqt td:first-child,td.n{white-space:nowrap}\n",
    "section.test{margin-top:36px;border-top:4px solid var(--line);padding-top:6px}"
    "section.test.t-pass{border-top-color:var(--pass)}section.test.t-fail{border-top-color:var(--fail)}"
    "section.test.t-error{border-top-color:var(--error)}\n",
    "section.test h2{border:0;margin:6px 0 2px;display:flex;gap:12px;align-items:center;flex-wrap:wrap}"
    "section.test h2 code{font-size:19px}\n",
    ".meta{color:var(--mute);margin:0 0 10px;font-size:13px}\n",
    ".verdict{border-left:6px solid;padding:8px 12px;margin:10px 0;background:var(--bg2)}"
    ".verdict.t-pass{border-color:var(--pass);background:#f0fff4}.verdict.t-fail{border-color:var(--fail);"
    "background:#fff5f5}.verdict.t-error{border-color:var(--error);background:#fff8f0}.verdict.t-skip{"
    "border-color:var(--skip)}\n",
    ".verdict .why{font-family:\"DejaVu Sans Mono\",Menlo,Consolas,monospace;font-size:12px;"
    "overflow-wrap:anywhere;white-space:pre-wrap;margin-top:4px}\n",
    ".quirk{border:1px solid #d4a72c;background:#fff8c5;border-radius:4px;padding:6px 10px;margin:6px 0}"
    ".quirk .ql{display:inline-block;background:#9a6700;color:#fff;font-weight:700;font-size:11px;"
    "padding:0 6px;border-radius:3px;margin-right:6px;letter-spacing:.05em}\n",
    ".problems{border:1px dashed #8250df;background:#fbefff;padding:6px 10px;margin:8px 0;font-size:13px}"
    ".problems ul{margin:4px 0 0;padding-left:20px}\n",
    "table.steps td.t,table.steps td.d{font-family:\"DejaVu Sans Mono\",Menlo,Consolas,monospace;font-size:11.5px;"
    "overflow-wrap:anywhere;word-break:break-word}table.steps td.t{width:42%}\n",
    "table.steps .note{font-family:\"DejaVu Sans\",sans-serif;font-style:italic;color:var(--mute);"
    "display:block;margin-top:2px}\n",
    ".lvl{font-weight:700;font-size:12px}.lvl-MUST{color:var(--fail)}.lvl-SHOULD{color:#9a6700}\n",
    ".mute{color:var(--mute);font-size:12.5px}.nodl{color:var(--mute);font-style:italic}\n",
    "a.trace{font-weight:600}\n",
    "figure.ladder{margin:8px 0 12px;border:1px solid var(--line);border-radius:4px;padding:6px;background:#fff}"
    "figure.ladder figcaption{color:var(--mute);font-size:12px}\n",
    "svg.lad{display:block;margin:0 auto;max-width:100%;height:auto;font-family:\"DejaVu Sans\",Helvetica,Arial,sans-serif}\n",
    "svg.lad text{font-size:12px;fill:var(--ink)}\n",
    "svg.lad .hd rect{fill:var(--bg2);stroke:#8c959f}svg.lad .hn{font-weight:700;font-size:14px}"
    "svg.lad .hr{fill:var(--mute)}svg.lad .ha{font-size:11px;fill:var(--mute)}\n",
    "svg.lad .life{stroke:#8c959f;stroke-width:1.5;stroke-dasharray:5 4}\n",
    "svg.lad .mh{font-size:10.5px;fill:var(--mute);text-transform:uppercase;letter-spacing:.06em}\n",
    "svg.lad .ix{font-weight:700;fill:var(--mute)}svg.lad .tm{font-size:11px;fill:var(--mute)}\n",
    "svg.lad line{stroke-width:1.6}svg.lad .sub{font-size:10.5px;fill:var(--mute)}\n",
    "svg.lad .sp line{stroke:var(--ink)}svg.lad .sp polygon,svg.lad .sp circle{fill:var(--ink)}\n",
    "svg.lad .st line{stroke:#0969da}svg.lad .st polygon,svg.lad .st circle{fill:#0969da}"
    "svg.lad .st .lb{fill:#0550ae}\n",
    "svg.lad .sok line{stroke:var(--pass)}svg.lad .sok polygon,svg.lad .sok circle{fill:var(--pass)}"
    "svg.lad .sok .lb{fill:#116329}\n",
    "svg.lad .sf line{stroke:var(--fail);stroke-width:2.6}svg.lad .sf polygon,svg.lad .sf circle{fill:var(--fail)}"
    "svg.lad .sf .lb{fill:var(--fail);font-weight:700}\n",
    "svg.lad .se line{stroke:var(--error);stroke-width:2.6;stroke-dasharray:9 4}svg.lad .se polygon,"
    "svg.lad .se circle{fill:var(--error)}svg.lad .se .lb{fill:var(--error);font-weight:700}\n",
    "svg.lad .sn line{stroke:#afb8c1}svg.lad .sn polygon,svg.lad .sn circle{fill:#afb8c1}"
    "svg.lad .sn text{fill:#8c959f;font-style:italic}svg.lad .sn .ix{fill:#afb8c1}\n",
    "svg.lad .x{stroke:var(--ink);stroke-width:2.4;fill:none}svg.lad .sf .x{stroke:var(--fail)}"
    "svg.lad .se .x{stroke:var(--error)}svg.lad .st .x{stroke:#0969da}svg.lad .sn .x{stroke:#afb8c1}\n",
    "svg.lad .gap{fill:var(--bg2);stroke:#d0d7de}svg.lad .gl{font-style:italic;fill:var(--mute);font-size:11.5px}\n",
    "svg.lad .miss{fill:#fff5f5;stroke:var(--fail);stroke-dasharray:5 3}\n",
    "svg.lad .se .miss{fill:#fff8f0;stroke:var(--error)}\n",
    "svg.lad .rbox{fill:#fff5f5;stroke:var(--fail);stroke-width:1.2}svg.lad .se .rbox{fill:#fff8f0;"
    "stroke:var(--error)}\n",
    "svg.lad .rh{font-weight:700;fill:var(--fail)}svg.lad .se .rh{fill:var(--error)}"
    "svg.lad .rt{font-family:\"DejaVu Sans Mono\",Menlo,Consolas,monospace;font-size:11px}\n",
    "svg.lad .pause path{stroke:#57606a;fill:none;stroke-width:1.5}svg.lad .pause rect{fill:#fff}\n",
    ".legend{display:flex;flex-wrap:wrap;gap:6px 22px;font-size:12.5px;color:var(--mute);margin:6px 0}"
    ".legend i{display:inline-block;width:28px;height:0;border-top:2px solid;vertical-align:middle;"
    "margin-right:6px}\n",
    "#filters{margin:8px 0}#filters button{font:inherit;font-size:12.5px;padding:2px 10px;margin-right:4px;"
    "border:1px solid var(--line);background:#fff;border-radius:12px;cursor:pointer}"
    "#filters button[aria-pressed=true]{background:var(--ink);color:#fff}\n",
    "[hidden]{display:none!important}\n",
    "footer{margin-top:40px;color:var(--mute);font-size:12px;border-top:1px solid var(--line);padding-top:8px}\n",
    "@media print{body{max-width:none;padding:0;font-size:10.5pt}.noprint,#filters{display:none!important}"
    "section.test{break-before:page;border-top-width:3px}figure.ladder,.verdict,tr{break-inside:avoid}"
    "a{color:inherit;text-decoration:none}}\n",
    NULL,
};

static const char script[] =
    "(function(){var bar=document.getElementById('filters');if(!bar)return;bar.hidden=false;"
    "var bs=bar.querySelectorAll('button');"
    "function show(f){document.querySelectorAll('[data-verdict]').forEach(function(e){"
    "var v=e.getAttribute('data-verdict');e.hidden=!(f==='all'||v===f||(f==='notpass'&&v!=='pass'));});"
    "bs.forEach(function(b){b.setAttribute('aria-pressed',String(b.getAttribute('data-f')===f));});}"
    "bs.forEach(function(b){b.addEventListener('click',function(){show(b.getAttribute('data-f'));});});"
    "})();";

typedef struct counts {
    int total, v[V_UNKNOWN + 1];
} counts;

static void put_kv_str(FILE *o, const char *k, const char *v)
{
    outf(o, "<dt>%s</dt><dd>", k);
    if (v)
        esc(o, v);
    else
        fputs("<span class=\"mute\">(not in the report)</span>", o);
    fputs("</dd>", o);
}

/* A list of strings, comma-separated; other members shown as JSON. */
static void put_list(FILE *o, const cJSON *a, const char *empty)
{
    if (!cJSON_IsArray(a) || !cJSON_GetArraySize(a)) {
        fputs("<span class=\"mute\">", o);
        fputs(empty, o);
        fputs("</span>", o);
        return;
    }
    const cJSON *m;
    int first = 1;
    cJSON_ArrayForEach(m, a)
    {
        if (!first)
            fputs(", ", o);
        first = 0;
        if (cJSON_IsString(m)) {
            esc(o, m->valuestring);
        } else {
            sb s = {.n = 0};
            gen_val(&s, m, 0);
            esc(o, s.b);
        }
    }
}

static void put_banner(FILE *o, const cJSON *rep, const cJSON *tests);

static void put_header(FILE *o, const cJSON *rep, const cJSON *tests, notes *ns)
{
    const cJSON *dev = jget(rep, "device");
    double d;
    fputs("<header>\n<h1>MPA conformance report</h1>\n<p class=\"sub\">", o);
    esc(o, jtext(dev, "address") ? jtext(dev, "address") : jtext(dev, "listen") ? jtext(dev, "listen") : "device ?");
    fputs(" &middot; ", o);
    esc(o, jtext(rep, "started") ? jtext(rep, "started") : "date unknown");
    fputs(" &middot; iWARP MPA (RFC 5044, RFC 6581)</p>\n</header>\n", o);
    put_banner(o, rep, tests);
    fputs("<section id=\"run\">\n<h2>Run</h2>\n<dl class=\"kv\">", o);
    sb tool = {.n = 0};
    sb_add(&tool, "%s %s", jtext(rep, "tool") ? jtext(rep, "tool") : "mpa-conform",
           jtext(rep, "version") ? jtext(rep, "version") : "(version not in the report)");
    put_kv_str(o, "Tool", tool.b);
    put_kv_str(o, "Started (UTC)", jtext(rep, "started"));
    if (jnum(rep, "duration_ms", &d)) {
        char tb[32];
        fmt_ms(tb, sizeof tb, d);
        put_kv_str(o, "Duration", tb);
    }
    put_kv_str(o, "Device address", jtext(dev, "address") ? jtext(dev, "address") : "(none: no Responder tests)");
    put_kv_str(o, "Listening on", jtext(dev, "listen") ? jtext(dev, "listen") : "(none: no Initiator tests)");
    put_kv_str(o, "Transport", jtext(dev, "transport"));
    fputs("<dt>Declared capabilities</dt><dd>", o);
    put_list(o, jget(dev, "caps"), "none declared (--caps)");
    fputs("</dd>", o);
    if (jtext(dev, "command")) {
        fputs("<dt>Device command</dt><dd><code>", o);
        esc(o, jtext(dev, "command"));
        fputs("</code></dd>", o);
    }
    fputs("<dt>Selection</dt><dd>", o);
    put_list(o, jget(rep, "selection"), "every test");
    fputs("</dd>", o);
    const cJSON *su = jget(rep, "suites");
    if (cJSON_IsArray(su) && cJSON_GetArraySize(su)) {
        fputs("<dt>Suites</dt><dd>", o);
        const cJSON *s;
        int first = 1;
        cJSON_ArrayForEach(s, su)
        {
            if (!first)
                fputs(", ", o);
            first = 0;
            esc(o, jtext(s, "name") ? jtext(s, "name") : "?");
            if (jnum(s, "tests", &d))
                outf(o, " (%.0f)", d);
        }
        fputs("</dd>", o);
    }
    fputs("</dl>\n</section>\n", o);
    want(ns, rep, "", "tool", T_STR, 1);
    want(ns, rep, "", "version", T_STR, 1);
    want(ns, rep, "", "started", T_STR, 1);
    want(ns, rep, "", "duration_ms", T_NUM, 0);
    want(ns, rep, "", "device", T_OBJ, 1);
    want(ns, rep, "", "selection", T_ARR, 0);
    want(ns, rep, "", "suites", T_ARR, 0);
    want(ns, rep, "", "tests", T_ARR, 1);
    want(ns, rep, "", "summary", T_OBJ, 0);
    if (cJSON_IsObject(dev)) {
        want(ns, dev, "device: ", "address", T_STR | T_NULL, 0);
        want(ns, dev, "device: ", "listen", T_STR | T_NULL, 0);
        want(ns, dev, "device: ", "transport", T_STR, 1);
        want(ns, dev, "device: ", "caps", T_ARR, 0);
        want(ns, dev, "device: ", "command", T_STR | T_NULL, 0);
    }
}

static int is_mandatory(const cJSON *t)
{
    const char *c = jstr(t, "class");
    return c && !strcmp(c, "M");
}

static void count_tests(const cJSON *tests, counts *all, counts *mand, counts *fyi)
{
    memset(all, 0, sizeof *all);
    memset(mand, 0, sizeof *mand);
    memset(fyi, 0, sizeof *fyi);
    const cJSON *t;
    cJSON_ArrayForEach(t, tests)
    {
        vd v = verdict_of(jstr(t, "verdict"));
        if (v == V_DONE || v == V_NOTRUN)
            v = V_UNKNOWN; /* step verdicts, not test verdicts */
        counts *c = is_mandatory(t) ? mand : fyi;
        all->total++;
        all->v[v]++;
        c->total++;
        c->v[v]++;
    }
}

static void count_row(FILE *o, const char *name, const counts *c, int unknown_col)
{
    outf(o, "<tr><th>%s</th><td class=\"n\">%d</td>", name, c->total);
    static const vd cols[] = {V_PASS, V_FAIL, V_ERROR, V_SKIP};
    for (int i = 0; i < 4; i++) {
        int n = c->v[cols[i]];
        if (n && cols[i] != V_PASS)
            outf(o, "<td class=\"n hot c-%s\">%d</td>", vds[cols[i]].cls, n);
        else
            outf(o, "<td class=\"n\">%d</td>", n);
    }
    if (unknown_col)
        outf(o, "<td class=\"n\">%d</td>", c->v[V_UNKNOWN]);
    fputs("</tr>\n", o);
}

/* The result in one word and one sentence. */
static void put_banner(FILE *o, const cJSON *rep, const cJSON *tests)
{
    counts all, mand, fyi;
    count_tests(tests, &all, &mand, &fyi);
    const char *cls, *word;
    sb why = {.n = 0};
    int run = all.total - all.v[V_SKIP];
    if (mand.v[V_FAIL]) {
        cls = "fail";
        word = "FAIL: the device does not conform";
        sb_add(&why, "%d mandatory test%s failed", mand.v[V_FAIL], mand.v[V_FAIL] == 1 ? "" : "s");
        if (all.v[V_ERROR])
            sb_add(&why, "; %d test%s could not be run", all.v[V_ERROR], all.v[V_ERROR] == 1 ? "" : "s");
        sb_add(&why, ".");
    } else if (all.v[V_ERROR] || all.v[V_UNKNOWN]) {
        cls = "error";
        word = "INCOMPLETE: no verdict on every test";
        sb_add(&why, "No mandatory test failed, but %d test%s could not be run (error)",
               all.v[V_ERROR], all.v[V_ERROR] == 1 ? "" : "s");
        if (all.v[V_UNKNOWN])
            sb_add(&why, " and %d ha%s no known verdict", all.v[V_UNKNOWN], all.v[V_UNKNOWN] == 1 ? "s" : "ve");
        sb_add(&why, ".");
    } else if (run == 0) {
        cls = "skip";
        word = "NO RESULT: no test was run";
        sb_add(&why, "%s", all.total ? "Every selected test was skipped." : "The report holds no test.");
    } else {
        cls = "pass";
        word = "PASS: every mandatory test that ran passed";
        sb_add(&why, "%d of %d tests ran and passed", all.v[V_PASS], all.total);
        if (fyi.v[V_FAIL])
            sb_add(&why, "; %d informational (FYI) test%s failed, which does not affect conformance",
                   fyi.v[V_FAIL], fyi.v[V_FAIL] == 1 ? "" : "s");
        sb_add(&why, ".");
    }
    if (all.v[V_SKIP])
        sb_add(&why, " %d test%s skipped (the device lacks a declared capability): %s not covered.",
               all.v[V_SKIP], all.v[V_SKIP] == 1 ? " was" : "s were", all.v[V_SKIP] == 1 ? "it is" : "they are");
    outf(o, "<div class=\"banner b-%s\" role=\"status\"><div class=\"big\">%s</div><p>", cls, word);
    esc(o, why.b);
    double es;
    if (jnum(jget(rep, "summary"), "exit_status", &es))
        outf(o, " <span class=\"mute\">(exit status %.0f)</span>", es);
    fputs("</p></div>\n", o);
}

/* The counts, by verdict and class. */
static void put_summary(FILE *o, const cJSON *rep, const cJSON *tests, notes *ns)
{
    counts all, mand, fyi;
    count_tests(tests, &all, &mand, &fyi);
    fputs("<section id=\"summary\">\n<h2>Summary</h2>\n<table class=\"counts\"><tr><th></th><th class=\"n\">Tests</th>"
          "<th class=\"n\">Pass</th><th class=\"n\">Fail</th><th class=\"n\">Error</th><th class=\"n\">Skip</th>",
          o);
    int unk = all.v[V_UNKNOWN] != 0;
    if (unk)
        fputs("<th class=\"n\">Unknown</th>", o);
    fputs("</tr>\n", o);
    count_row(o, "All", &all, unk);
    count_row(o, "Mandatory (M)", &mand, unk);
    count_row(o, "For information (FYI)", &fyi, unk);
    fputs("</table>\n<p class=\"mute\">M: the requirement is mandatory (MUST) and the test decides "
          "conformance. FYI: informational (SHOULD/MAY, measurements); a failure is reported but does not "
          "make the device non-conformant. Error: the test could not be run to a verdict. Skip: the test needs "
          "a capability that was not declared.</p>\n",
          o);
    /* the report's own summary should say the same */
    const cJSON *sum = jget(rep, "summary");
    if (cJSON_IsObject(sum)) {
        static const char *const k[] = {"pass", "fail", "error", "skip"};
        static const vd kv[] = {V_PASS, V_FAIL, V_ERROR, V_SKIP};
        double d;
        if (jnum(sum, "total", &d) && d != all.total)
            note(ns, "summary: \"total\" is %.0f, but the report lists %d tests", d, all.total);
        for (int i = 0; i < 4; i++)
            if (jnum(sum, k[i], &d) && d != all.v[kv[i]])
                note(ns, "summary: \"%s\" is %.0f, but %d of the tests listed have that verdict", k[i], d,
                     all.v[kv[i]]);
        const cJSON *m = jget(sum, "mandatory");
        if (jnum(m, "fail", &d) && d != mand.v[V_FAIL])
            note(ns, "summary: mandatory \"fail\" is %.0f, but %d mandatory tests failed", d, mand.v[V_FAIL]);
    }
    fputs("</section>\n", o);
}

/* Requirement ids of a test: objects with "id", or plain strings. */
static void put_req_ids(FILE *o, const cJSON *reqs)
{
    const cJSON *r;
    int first = 1;
    cJSON_ArrayForEach(r, reqs)
    {
        const char *id = cJSON_IsString(r) ? r->valuestring : jstr(r, "id");
        if (!id)
            continue;
        if (!first)
            fputs(" ", o);
        first = 0;
        fputs("<span class=\"rid\">", o);
        esc(o, id);
        fputs("</span>", o);
    }
    if (first)
        fputs("&ndash;", o);
}

/* One line on why a test did not pass, for the table: the deciding
 * step's headline, else the reason. */
static void short_reason(char *b, size_t n, const cJSON *t, vd v)
{
    b[0] = 0;
    int decided = jint(t, "decided_at_step", 0);
    const cJSON *st;
    int i = 0;
    if (v == V_FAIL || v == V_ERROR)
        cJSON_ArrayForEach(st, jget(t, "steps"))
        {
            i++;
            int idx = jint(st, "index", i);
            vd sv = verdict_of(jstr(st, "verdict"));
            if ((decided && idx == decided) || (!decided && (sv == V_FAIL || sv == V_ERROR))) {
                char h[200];
                headline(h, sizeof h, jstr(st, "what"), jstr(st, "detail"), sv);
                snprintf(b, n, "step %d: %s", idx, h);
                return;
            }
        }
    if (jtext(t, "reason"))
        snprintf(b, n, "%s", jtext(t, "reason"));
}

static void put_test_table(FILE *o, const cJSON *tests)
{
    fputs("<section id=\"tests\">\n<h2>Tests</h2>\n"
          "<div id=\"filters\" hidden>Show: <button data-f=\"all\" aria-pressed=\"true\">all</button>"
          "<button data-f=\"notpass\">not passed</button><button data-f=\"fail\">fail</button>"
          "<button data-f=\"error\">error</button><button data-f=\"skip\">skip</button>"
          "<button data-f=\"pass\">pass</button></div>\n"
          "<table class=\"tests\"><tr><th class=\"n\">#</th><th>Test</th><th>Class</th><th>Verdict</th>"
          "<th>Requirements</th><th class=\"n\">Duration</th></tr>\n",
          o);
    int n = cJSON_GetArraySize(tests);
    for (int i = 0; i < n; i++) {
        const cJSON *t = cJSON_GetArrayItem(tests, i);
        char anchor[160];
        anchor_of(anchor, sizeof anchor, tests, i);
        const char *vs = jstr(t, "verdict");
        vd v = verdict_of(vs);
        if (v == V_DONE || v == V_NOTRUN)
            v = V_UNKNOWN;
        outf(o, "<tr class=\"r-%s\" data-verdict=\"%s\"><td class=\"n\">%d</td><td><a href=\"#", vds[v].cls,
             vds[v].cls, i + 1);
        esc(o, anchor);
        fputs("\"><code>", o);
        esc(o, jtext(t, "id") ? jtext(t, "id") : "(no id)");
        fputs("</code></a>", o);
        char why[240];
        short_reason(why, sizeof why, t, v);
        if (why[0]) {
            fputs("<div class=\"why1\">", o);
            esc_trunc(o, why, 110);
            fputs("</div>", o);
        }
        fputs("</td><td>", o);
        esc(o, jtext(t, "class") ? jtext(t, "class") : "?");
        fputs("</td><td>", o);
        badge(o, v, vs);
        fputs("</td><td class=\"reqs\">", o);
        put_req_ids(o, jget(t, "requirements"));
        fputs("</td><td class=\"n\">", o);
        double d;
        if (jnum(t, "duration_ms", &d)) {
            char tb[32];
            fmt_ms(tb, sizeof tb, d);
            fputs(tb, o);
        } else {
            fputs("&ndash;", o);
        }
        fputs("</td></tr>\n", o);
    }
    if (!n)
        fputs("<tr><td colspan=\"6\" class=\"mute\">The report lists no tests.</td></tr>\n", o);
    fputs("</table>\n</section>\n", o);
}

static void check_test(const cJSON *t, notes *ns)
{
    want(ns, t, "", "id", T_STR, 1);
    want(ns, t, "", "class", T_STR, 1);
    want(ns, t, "", "verdict", T_STR, 1);
    want(ns, t, "", "description", T_STR, 0);
    want(ns, t, "", "device_role", T_STR, 0);
    want(ns, t, "", "requirements", T_ARR, 0);
    want(ns, t, "", "quirks", T_ARR, 0);
    want(ns, t, "", "steps", T_ARR, 1);
    want(ns, t, "", "findings", T_ARR, 0);
    want(ns, t, "", "duration_ms", T_NUM, 0);
    want(ns, t, "", "reason", T_STR, 0);
    want(ns, t, "", "decided_at_step", T_NUM, 0);
    want(ns, t, "", "trace", T_STR | T_NULL, 0);
    const char *c = jstr(t, "class");
    if (c && strcmp(c, "M") && strcmp(c, "FYI"))
        note(ns, "\"class\" is \"%.40s\", neither \"M\" nor \"FYI\": counted as FYI", c);
    const char *vs = jstr(t, "verdict");
    vd v = verdict_of(vs);
    if (vs && (v == V_UNKNOWN || v == V_DONE || v == V_NOTRUN))
        note(ns, "\"verdict\" is \"%.40s\", not one of pass, fail, error, skip", vs);
    if ((v == V_FAIL || v == V_ERROR || v == V_SKIP) && !jtext(t, "reason"))
        note(ns, "a %s without a \"reason\"", vds[v].json);
    const cJSON *steps = jget(t, "steps");
    const cJSON *st;
    int i = 0;
    cJSON_ArrayForEach(st, steps)
    {
        i++;
        char where[32];
        snprintf(where, sizeof where, "step %d: ", i);
        if (!cJSON_IsObject(st)) {
            note(ns, "step %d is %s, not an object", i, jtype(st));
            continue;
        }
        want(ns, st, where, "verb", T_STR, 1);
        want(ns, st, where, "verdict", T_STR, 1);
        want(ns, st, where, "what", T_STR, 0);
        want(ns, st, where, "detail", T_STR, 0);
        want(ns, st, where, "t_ms", T_NUM, 0);
        want(ns, st, where, "took_ms", T_NUM, 0);
        const char *sv = jstr(st, "verdict");
        vd svd = verdict_of(sv);
        if (sv && (svd == V_UNKNOWN || svd == V_SKIP))
            note(ns, "step %d: \"verdict\" is \"%.40s\", not one of done, pass, fail, error, not run", i, sv);
        const char *verb = jstr(st, "verb");
        if (verb && !in_list(verb, (const char *const[]){"open", "send", "expect", "sleep", "close", "abort", NULL}))
            note(ns, "step %d: unknown verb \"%.40s\"", i, verb);
    }
}

static void put_requirements(FILE *o, const cJSON *reqs)
{
    if (!cJSON_IsArray(reqs) || !cJSON_GetArraySize(reqs)) {
        fputs("<p class=\"mute\">The test names no requirement.</p>\n", o);
        return;
    }
    fputs("<table class=\"reqt\"><tr><th>Requirement</th><th>Level</th><th>Source</th><th>Text</th></tr>\n", o);
    const cJSON *r;
    cJSON_ArrayForEach(r, reqs)
    {
        const char *id = cJSON_IsString(r) ? r->valuestring : jstr(r, "id");
        const char *lv = jstr(r, "level");
        fputs("<tr><td><code>", o);
        esc(o, id ? id : "?");
        fputs("</code></td><td>", o);
        if (lv) {
            const char *lc = !strcmp(lv, "MUST") ? "MUST" : !strcmp(lv, "SHOULD") ? "SHOULD" : "other";
            outf(o, "<span class=\"lvl lvl-%s\">", lc);
            esc(o, lv);
            fputs("</span>", o);
        } else {
            fputs("&ndash;", o);
        }
        fputs("</td><td class=\"mute\">", o);
        esc(o, jtext(r, "clause") ? jtext(r, "clause") : "");
        fputs("</td><td>", o);
        if (jtext(r, "text"))
            esc(o, jtext(r, "text"));
        else
            fputs("<span class=\"mute\">(no text in the report)</span>", o);
        fputs("</td></tr>\n", o);
    }
    fputs("</table>\n", o);
}

static void put_quirks(FILE *o, const cJSON *qs)
{
    if (!cJSON_IsArray(qs) || !cJSON_GetArraySize(qs))
        return;
    fputs("<h3>Quirks</h3>\n", o);
    const cJSON *q;
    cJSON_ArrayForEach(q, qs)
    {
        fputs("<div class=\"quirk\"><span class=\"ql\">QUIRK</span><code>", o);
        esc(o, jtext(q, "id") ? jtext(q, "id") : cJSON_IsString(q) ? q->valuestring : "?");
        fputs("</code> ", o);
        if (jtext(q, "text"))
            esc(o, jtext(q, "text"));
        fputs("</div>\n", o);
    }
}

static void put_steps(FILE *o, const cJSON *steps)
{
    if (!cJSON_IsArray(steps) || !cJSON_GetArraySize(steps)) {
        fputs("<p class=\"mute\">No steps.</p>\n", o);
        return;
    }
    fputs("<table class=\"steps\"><tr><th class=\"n\">#</th><th>Verb</th><th>Verdict</th><th>What</th>"
          "<th>Detail</th><th class=\"n\">At</th></tr>\n",
          o);
    const cJSON *st;
    int i = 0;
    cJSON_ArrayForEach(st, steps)
    {
        i++;
        double d;
        int idx = jint(st, "index", i);
        const char *vs = jstr(st, "verdict");
        vd v = verdict_of(vs);
        outf(o, "<tr class=\"r-%s\"><td class=\"n\">%d</td><td>", vds[v].cls, idx);
        esc(o, jtext(st, "verb") ? jtext(st, "verb") : "?");
        fputs("</td><td>", o);
        badge(o, v, vs);
        fputs("</td><td class=\"t\">", o);
        esc(o, jtext(st, "what") ? jtext(st, "what") : "");
        const char *nt = jtext(st, "note");
        if (nt) {
            fputs("<span class=\"note\">", o);
            esc(o, nt);
            fputs("</span>", o);
        }
        fputs("</td><td class=\"d\">", o);
        esc(o, jtext(st, "detail") ? jtext(st, "detail") : "");
        const cJSON *rq = jget(st, "requirements");
        if (cJSON_IsArray(rq) && cJSON_GetArraySize(rq)) {
            fputs("<span class=\"note reqs\">", o);
            put_req_ids(o, rq);
            fputs("</span>", o);
        }
        fputs("</td><td class=\"n mute\">", o);
        if (jnum(st, "t_ms", &d)) {
            char tb[32];
            fmt_ms(tb, sizeof tb, d);
            fputs(tb, o);
        }
        fputs("</td></tr>\n", o);
    }
    fputs("</table>\n", o);
}

static void put_findings(FILE *o, const cJSON *fs)
{
    if (!cJSON_IsArray(fs) || !cJSON_GetArraySize(fs)) {
        fputs("<p class=\"mute\">libmpa found nothing to report in either direction.</p>\n", o);
        return;
    }
    fputs("<table class=\"findings\"><tr><th>Severity</th><th>Finding</th><th>In octets of</th>"
          "<th class=\"n\">Offset</th><th class=\"n\">At</th><th>Message</th></tr>\n",
          o);
    const cJSON *f;
    cJSON_ArrayForEach(f, fs)
    {
        const char *sev = jstr(f, "severity");
        const char *sc = sev && !strcmp(sev, "error") ? "fail" : sev && !strcmp(sev, "warning") ? "error" : "skip";
        outf(o, "<tr><td><span class=\"v v-%s\">", sc);
        esc(o, sev ? sev : "?");
        fputs("</span></td><td><code>", o);
        esc(o, jtext(f, "id") ? jtext(f, "id") : "?");
        fputs("</code></td><td>", o);
        const char *from = jstr(f, "from");
        esc(o, from && !strcmp(from, "injector") ? "mpa-conform" : from && !strcmp(from, "device") ? "the device"
                                                                   : from ? from : "?");
        if (cJSON_IsTrue(jget(f, "expected")))
            fputs(" <span class=\"mute\">(deliberate: the test sends it)</span>", o);
        double d;
        fputs("</td><td class=\"n\">", o);
        if (jnum(f, "stream_offset", &d))
            outf(o, "%.0f", d);
        fputs("</td><td class=\"n\">", o);
        if (jnum(f, "t_ms", &d)) {
            char tb[32];
            fmt_ms(tb, sizeof tb, d);
            fputs(tb, o);
        }
        fputs("</td><td>", o);
        esc(o, jtext(f, "message") ? jtext(f, "message") : "");
        fputs("</td></tr>\n", o);
    }
    fputs("</table>\n", o);
}

static void put_test(FILE *o, const cJSON *tests, int i, const char *base_dir)
{
    const cJSON *t = cJSON_GetArrayItem(tests, i);
    char anchor[160];
    anchor_of(anchor, sizeof anchor, tests, i);
    const char *vs = jstr(t, "verdict");
    vd v = verdict_of(vs);
    if (v == V_DONE || v == V_NOTRUN)
        v = V_UNKNOWN;
    const char *id = jtext(t, "id");
    notes ns = {.n = 0};
    if (!cJSON_IsObject(t))
        note(&ns, "the test is %s, not an object", jtype(t));
    else
        check_test(t, &ns);

    fputs("<section class=\"test t-", o);
    fputs(vds[v].cls, o);
    fputs("\" id=\"", o);
    esc(o, anchor);
    outf(o, "\" data-verdict=\"%s\">\n<h2>", vds[v].cls);
    badge(o, v, vs);
    fputs(" <code>", o);
    esc(o, id ? id : "(no id)");
    fputs("</code></h2>\n<p class=\"meta\">", o);
    const char *cl = jstr(t, "class");
    if (cl && !strcmp(cl, "M"))
        fputs("Mandatory (M)", o);
    else if (cl && !strcmp(cl, "FYI"))
        fputs("For information (FYI)", o);
    else {
        fputs("class ", o);
        esc(o, cl ? cl : "?");
    }
    const char *role = jstr(t, "device_role");
    fputs(" &middot; the device is the ", o);
    esc(o, role && !strcmp(role, "responder") ? "MPA Responder" : role && !strcmp(role, "initiator") ? "MPA Initiator"
                                                                 : role ? role : "(role not given)");
    double d;
    if (jnum(t, "duration_ms", &d)) {
        char tb[32];
        fmt_ms(tb, sizeof tb, d);
        outf(o, " &middot; %s", tb);
    }
    if (jtext(t, "suite")) {
        fputs(" &middot; suite ", o);
        esc(o, jtext(t, "suite"));
    }
    const cJSON *needs = jget(t, "needs");
    if (cJSON_IsArray(needs) && cJSON_GetArraySize(needs)) {
        fputs(" &middot; needs ", o);
        put_list(o, needs, "");
    }
    if (jtext(t, "file") || jtext(t, "name")) {
        fputs("<br>", o);
        if (jtext(t, "name")) {
            fputs("scenario <i>", o);
            esc(o, jtext(t, "name"));
            fputs("</i> ", o);
        }
        if (jtext(t, "file")) {
            fputs("<code>", o);
            esc(o, jtext(t, "file"));
            fputs("</code>", o);
        }
    }
    if (jtext(t, "device_address") || jtext(t, "local_address")) {
        fputs("<br>device ", o);
        esc(o, jtext(t, "device_address") ? jtext(t, "device_address") : "?");
        fputs(", mpa-conform ", o);
        esc(o, jtext(t, "local_address") ? jtext(t, "local_address") : "?");
    }
    fputs("</p>\n", o);
    put_notes(o, &ns, "The report lacks, or has in another form than documented:");

    fputs("<p><b>Purpose.</b> ", o);
    if (jtext(t, "description"))
        esc(o, jtext(t, "description"));
    else
        fputs("<span class=\"mute\">(no description in the report)</span>", o);
    fputs("</p>\n", o);

    /* verdict and reason */
    int decided = jint(t, "decided_at_step", 0);
    const char *reason = jtext(t, "reason");
    outf(o, "<div class=\"verdict t-%s\">", vds[v].cls);
    badge(o, v, vs);
    switch (v) {
    case V_PASS: fputs(" every step went as the test expects.", o); break;
    case V_FAIL:
        if (decided)
            outf(o, " the device deviated at step %d.", decided);
        else
            fputs(" the device deviated (a finding about what it sent).", o);
        break;
    case V_ERROR: fputs(" the test could not be run to a verdict; this says nothing about conformance.", o); break;
    case V_SKIP: fputs(" the test was not run; it says nothing about conformance.", o); break;
    case V_DONE:
    case V_NOTRUN:
    case V_UNKNOWN: fputs(" the report gives no known verdict.", o); break;
    }
    if (reason) {
        fputs("<div class=\"why\">", o);
        esc(o, reason);
        fputs("</div>", o);
    }
    fputs("</div>\n", o);

    fputs("<h3>Requirements</h3>\n", o);
    put_requirements(o, jget(t, "requirements"));
    put_quirks(o, jget(t, "quirks"));
    if (jtext(t, "setup")) {
        fputs("<h3>Setup</h3>\n<p>", o);
        esc(o, jtext(t, "setup"));
        fputs("</p>\n", o);
    }
    if (jtext(t, "problems")) {
        fputs("<h3>Known problems</h3>\n<p>", o);
        esc(o, jtext(t, "problems"));
        fputs("</p>\n", o);
    }

    const cJSON *steps = jget(t, "steps");
    int nsteps = cJSON_IsArray(steps) ? cJSON_GetArraySize(steps) : 0;
    if (v != V_SKIP) {
        fputs("<h3>Ladder diagram</h3>\n", o);
        put_ladder(o, t, steps, nsteps, reason, decided);
    }
    fputs("<h3>Steps</h3>\n", o);
    if (v == V_SKIP && !nsteps)
        fputs("<p class=\"mute\">Skipped: no step was run.</p>\n", o);
    else
        put_steps(o, steps);
    fputs("<h3>Findings</h3>\n", o);
    put_findings(o, jget(t, "findings"));
    fputs("<h3>Trace</h3>\n", o);
    put_trace(o, t, base_dir, anchor);
    fputs("<p class=\"noprint mute\"><a href=\"#tests\">&uarr; all tests</a></p>\n</section>\n", o);
}

static void put_legend(FILE *o)
{
    fputs("<div class=\"legend\"><span><i style=\"border-color:#1f2328\"></i>sent by mpa-conform</span>"
          "<span><i style=\"border-color:#0969da\"></i>TCP connect, FIN, RST</span>"
          "<span><i style=\"border-color:#1a7f37\"></i>\xE2\x9C\x93 received as expected</span>"
          "<span><i style=\"border-color:#cf222e;border-top-width:3px\"></i>\xE2\x9C\x97 the deviation</span>"
          "<span><i style=\"border-color:#b35900;border-top-style:dashed;border-top-width:3px\"></i>"
          "\xE2\x9A\xA0 error</span>"
          "<span><i style=\"border-color:#afb8c1;border-top-style:dashed\"></i>not run</span></div>\n"
          "<p class=\"mute\">In the ladder diagrams time runs downwards; the margin gives the step and the "
          "time since the test began (for an expectation, when the device's answer came). Hover over an "
          "arrow for the step's full text.</p>\n",
          o);
}

int conform_html(const cJSON *report, const char *base_dir, FILE *out, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = 0;
    if (!report || !out) {
        if (err && errlen)
            snprintf(err, errlen, "conform_html: %s is NULL", report ? "out" : "report");
        return -1;
    }
    FILE *o = out;
    notes ns = {.n = 0};
    const cJSON *tests = jget(report, "tests");
    if (!cJSON_IsObject(report))
        note(&ns, "the report is %s, not a JSON object", jtype(report));
    const cJSON *dev = jget(report, "device");

    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
          o);
    fputs("MPA conformance: ", o);
    esc(o, jtext(dev, "address") ? jtext(dev, "address") : jtext(dev, "listen") ? jtext(dev, "listen") : "device");
    fputs(", ", o);
    esc(o, jtext(report, "started") ? jtext(report, "started") : "date unknown");
    fputs("</title>\n<style>\n", o);
    for (const char *const *c = css; *c; c++)
        fputs(*c, o);
    fputs("</style>\n</head>\n<body>\n", o);

    /* a tests value that is not an array reads as empty */
    const cJSON *tl = cJSON_IsArray(tests) ? tests : NULL;
    put_header(o, report, tl, &ns);
    put_summary(o, report, tl, &ns);
    put_notes(o, &ns, "The report lacks, or has in another form than documented:");
    put_test_table(o, tl);
    int n = cJSON_GetArraySize(tl);
    if (n) {
        fputs("<section id=\"details\">\n<h2>Test details</h2>\n", o);
        put_legend(o);
        fputs("</section>\n", o);
    }
    for (int i = 0; i < n; i++)
        put_test(o, tl, i, base_dir);

    fputs("<footer>Made by ", o);
    esc(o, jtext(report, "tool") ? jtext(report, "tool") : "mpa-conform");
    fputs(" ", o);
    esc(o, jtext(report, "version") ? jtext(report, "version") : "");
    fputs(" from its JSON report (docs/mpa-conform-json.md). This page is self-contained: styles, diagrams and "
          "traces are inside it, and it reads the same without its script. Requirement ids are those of the "
          "toolkit's catalogue (docs/requirements.md).</footer>\n",
          o);
    fputs("<script>", o);
    fputs(script, o);
    fputs("</script>\n</body>\n</html>\n", o);
    if (ferror(o)) {
        if (err && errlen)
            snprintf(err, errlen, "writing the HTML report failed");
        return -1;
    }
    return 0;
}
