/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ladder diagram (ladder.h): rows laid out first (their heights
 * decide the picture's), then drawn.
 */
#include "ladder.h"

#include <stdlib.h>
#include <string.h>

#include "brief.h"
#include "esc.h"
#include "jget.h"
#include "sb.h"
#include "verdict.h"

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
    int pause;       /* a break drawn above: 1 a pause between steps, 2 a wait */
    double pause_ms;
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
        size_t take = html_cp_prefix(t + i, n - i, cols);
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
    size_t keep = html_cp_prefix(reason, len, BOX_COLS * BOX_LINES + 1);
    if (keep > n - 1)
        keep = html_cp_prefix(reason, n - 1, (n - 1) / 4);
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

/* A TCP connect (or one accepted from the device). */
static void row_open(row *r, const char *what, const char *detail, vd v, const char *mark, const char *role)
{
    int accept = (what && (strstr(what, "listen") || strstr(what, "accept"))) ||
                 (!(what && *what) && role && !strcmp(role, "initiator"));
    r->dir = accept ? -1 : 1;
    if (r->style == ST_PLAIN)
        r->style = ST_TCP;
    sb_add(&r->label, "%s%s", mark, accept ? "TCP connect from the device (accepted)" : "TCP connect");
    if (detail && *detail)
        sb_add(&r->sub, "%s", detail);
    r->xhead = v == VD_ERROR || v == VD_FAIL;
}

static void row_send(row *r, const char *what, const char *detail, const char *mark)
{
    const char *t2 = brief_after(what, "send ");
    sb_add(&r->label, "%s", mark);
    if (t2)
        brief_thing(&r->label, t2);
    else
        sb_add(&r->label, "send");
    if (detail && *detail)
        sb_add(&r->sub, "%s", detail);
}

/* close (a FIN) or abort (an RST). */
static void row_close(row *r, const char *verb, const char *detail, const char *mark)
{
    int rst = verb[0] == 'a';
    if (r->style == ST_PLAIN)
        r->style = ST_TCP;
    sb_add(&r->label, "%s%s", mark, rst ? "RST (abort)" : "FIN (close)");
    if (detail && *detail)
        sb_add(&r->sub, "%s", detail);
    r->xhead = rst;
}

/* An expectation: what came (or that nothing did), what was expected
 * under it; its time is when the answer came. */
static void row_expect(row *r, const cJSON *st, const char *what, const char *detail, vd v, const char *mark)
{
    r->dir = -1;
    const char *got = brief_after(detail, "got ");
    const char *exp = brief_after(what, "expect ");
    if (got && !strncmp(got, "nothing", 7) && v != VD_NOTRUN) {
        r->kind = RK_MISS;
        const char *how = got + 7;
        while (*how == ' ' || *how == ':')
            how++;
        sb_add(&r->label, "%snothing came from the device%s%s", mark, *how && strncmp(how, "within", 6) ? ": " : " ",
               how);
    } else if (got && v != VD_NOTRUN) {
        sb_add(&r->label, "%s", mark);
        brief_thing(&r->label, got);
        if (strstr(got, "(already received)"))
            sb_add(&r->label, " (already received)");
    } else {
        sb_add(&r->label, "%s", mark);
        if (exp)
            brief_expect(&r->label, exp);
        else
            sb_add(&r->label, "expect");
    }
    if (exp && v != VD_NOTRUN) {
        sb_add(&r->sub, "expected: ");
        brief_expect(&r->sub, exp);
    }
    double took;
    if (r->has_t && jget_num(st, "took_ms", &took) && v != VD_NOTRUN)
        r->t += took;
}

/* A step that did not run: its verb (and label) in grey, no time. */
static void row_not_run(row *r, const char *verb, const char *what)
{
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

/* Builds the row of one step. reason: the test's reason, used for the
 * step that decided it. */
static void step_row(row *r, const cJSON *st, int i, const char *role, int deciding, const char *reason)
{
    memset(r, 0, sizeof *r);
    r->step = st;
    r->index = jget_int(st, "index", i + 1);
    const char *verb = jget_str(st, "verb");
    const char *what = jget_str(st, "what");
    const char *detail = jget_str(st, "detail");
    vd v = vd_of(jget_str(st, "verdict"));
    r->has_t = jget_num(st, "t_ms", &r->t);
    r->kind = RK_ARROW;
    r->dir = 1;
    r->style = v == VD_PASS ? ST_PASS : v == VD_FAIL ? ST_FAIL : v == VD_ERROR ? ST_ERROR
             : v == VD_NOTRUN ? ST_NOTRUN : ST_PLAIN;
    /* a check mark, a cross, a warning sign */
    const char *mark = v == VD_PASS    ? "\xE2\x9C\x93 "
                       : v == VD_FAIL  ? "\xE2\x9C\x97 "
                       : v == VD_ERROR ? "\xE2\x9A\xA0 "
                                       : "";
    if (!verb)
        verb = "?";

    if (!strcmp(verb, "open")) {
        row_open(r, what, detail, v, mark, role);
    } else if (!strcmp(verb, "send")) {
        row_send(r, what, detail, mark);
    } else if (!strcmp(verb, "close") || !strcmp(verb, "abort")) {
        row_close(r, verb, detail, mark);
    } else if (!strcmp(verb, "expect")) {
        row_expect(r, st, what, detail, v, mark);
    } else if (!strcmp(verb, "sleep")) {
        r->kind = RK_GAP;
        sb_add(&r->label, "%s", what && *what ? what : "sleep");
    } else {
        r->kind = RK_GAP;
        sb_add(&r->label, "step verb \"%s\": %s", verb, what ? what : "");
    }
    if (v == VD_NOTRUN)
        row_not_run(r, verb, what);
    if (v == VD_FAIL || v == VD_ERROR) {
        r->box = deciding && reason && *reason ? reason : detail && *detail ? detail : reason;
        brief_headline(r->headline, sizeof r->headline, what, detail, v);
    }
}

static void svg_text(FILE *o, int x, int y, const char *cls, const char *anchor, const char *s, size_t max)
{
    html_printf(o, "<text x=\"%d\" y=\"%d\" class=\"%s\"%s%s%s>", x, y, cls, anchor ? " text-anchor=\"" : "",
                anchor ? anchor : "", anchor ? "\"" : "");
    html_esc_trunc(o, s, max);
    fputs("</text>", o);
}

static void svg_arrow(FILE *o, int x1, int x2, int y, int xhead, int dashed)
{
    int dir = x2 > x1 ? 1 : -1;
    int tip = x2 - dir * (xhead ? 7 : 1);
    html_printf(o, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"%s/>", x1, y, tip - dir * (xhead ? 0 : 9), y,
                dashed ? " stroke-dasharray=\"6 4\"" : "");
    if (xhead) {
        html_printf(o, "<path class=\"x\" d=\"M%d %dL%d %dM%d %dL%d %d\"/>", x2 - 6, y - 6, x2 + 6, y + 6, x2 - 6,
                    y + 6, x2 + 6, y - 6);
    } else {
        html_printf(o, "<polygon points=\"%d,%d %d,%d %d,%d\"/>", tip, y, tip - dir * 11, y - 5, tip - dir * 11, y + 5);
    }
}

/* The step's full texts, for the tooltip. */
static void row_title(FILE *o, const row *r)
{
    const cJSON *st = r->step;
    fputs("<title>", o);
    html_printf(o, "step %d", r->index);
    const char *verb = jget_str(st, "verb"), *vs = jget_str(st, "verdict");
    if (verb || vs) {
        fputs(" (", o);
        html_esc(o, verb ? verb : "?");
        fputs(", ", o);
        html_esc(o, vs ? vs : "?");
        fputs(")", o);
    }
    const char *keys[] = {"what", "detail", "note"};
    for (int k = 0; k < 3; k++) {
        const char *s = jget_text(st, keys[k]);
        if (s) {
            fputs("\n", o);
            html_esc(o, s);
        }
    }
    fputs("</title>", o);
}

/* The arrow, band or crossed box of a row, with its labels. */
static void draw_shape(FILE *o, const row *r)
{
    int y = r->y;
    switch (r->kind) {
    case RK_ARROW: {
        int x1 = r->dir > 0 ? LXL : LXR, x2 = r->dir > 0 ? LXR : LXL;
        html_printf(o, "<circle cx=\"%d\" cy=\"%d\" r=\"2.5\"/>", x1, y);
        svg_arrow(o, x1, x2, y, r->xhead, r->style == ST_NOTRUN);
        svg_text(o, LMID, y - 7, "lb", "middle", r->label.b, LABEL_MAX);
        if (r->sub.n)
            svg_text(o, LMID, y + 15, "sub", "middle", r->sub.b, SUB_MAX);
        break;
    }
    case RK_GAP:
        html_printf(o, "<rect class=\"gap\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"18\" rx=\"9\"/>", LXL + 40, y - 12,
                    LXR - LXL - 80);
        svg_text(o, LMID, y + 1, "gl", "middle", r->label.b, LABEL_MAX);
        break;
    case RK_MISS:
        html_printf(o, "<rect class=\"miss\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"22\"/>", LXL + 20, y - 14,
                    LXR - LXL - 40);
        html_printf(o, "<path class=\"x\" d=\"M%d %dL%d %dM%d %dL%d %d\"/>", LXL - 6, y - 9, LXL + 6, y + 3, LXL - 6,
                    y + 3, LXL + 6, y - 9);
        svg_text(o, LMID, y + 1, "lb", "middle", r->label.b, LABEL_MAX);
        if (r->sub.n)
            svg_text(o, LMID, y + 22, "sub", "middle", r->sub.b, SUB_MAX);
        break;
    }
}

/* The reason box under the deciding row: its headline, then the reason
 * wrapped (an ellipsis when it was cut). */
static void draw_box(FILE *o, const row *r)
{
    size_t off[BOX_LINES], len[BOX_LINES];
    int cut;
    char text[BOX_COLS * BOX_LINES * 4 + 8];
    box_text(text, sizeof text, r->box);
    unsigned n = wrap(text, BOX_COLS, off, len, BOX_LINES, &cut);
    int by = r->y + (r->sub.n ? 28 : 16);
    int bh = 24 + 14 * (int)n + 6;
    html_printf(o, "<rect class=\"rbox\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"3\"/>", LXL + 14, by,
                LXR - LXL - 28, bh);
    html_printf(o, "<text x=\"%d\" y=\"%d\" class=\"rh\">", LXL + 24, by + 16);
    html_esc_trunc(o, r->headline, BOX_COLS - 4);
    fputs("</text>", o);
    html_printf(o, "<text class=\"rt\" x=\"%d\" y=\"%d\">", LXL + 24, by + 22);
    for (unsigned k = 0; k < n; k++) {
        html_printf(o, "<tspan x=\"%d\" dy=\"14\">", LXL + 24);
        html_esc_n(o, text + off[k], len[k]);
        if ((cut || strlen(r->box) > strlen(text) + 1) && k + 1 == n)
            fputs("\xE2\x80\xA6", o);
        fputs("</tspan>", o);
    }
    fputs("</text>", o);
}

static void draw_row(FILE *o, const row *r)
{
    char tb[32];
    int y = r->y;
    html_printf(o, "<g class=\"%s\">", style_cls(r->style));
    row_title(o, r);
    /* the margin: step number and time */
    html_printf(o, "<text x=\"%d\" y=\"%d\" class=\"ix\" text-anchor=\"end\">%d</text>", LXT - 30, y + 4, r->index);
    if (r->has_t) {
        sb_fmt_ms(tb, sizeof tb, r->t);
        html_printf(o, "<text x=\"%d\" y=\"%d\" class=\"tm\" text-anchor=\"end\">%s</text>", LXT + 62, y + 4, tb);
    }
    draw_shape(o, r);
    if (r->box)
        draw_box(o, r);
    fputs("</g>\n", o);
}

/* A break in time between rows: "... 3.00 s ...". */
static void draw_pause(FILE *o, int y, double ms, const char *what)
{
    char tb[32];
    sb_fmt_ms(tb, sizeof tb, ms);
    fputs("<g class=\"pause\">", o);
    for (int k = 0; k < 2; k++) {
        int x = k ? LXR : LXL;
        html_printf(o, "<rect x=\"%d\" y=\"%d\" width=\"20\" height=\"9\"/><path d=\"M%d %dl16 -6M%d %dl16 -6\"/>",
                    x - 10, y - 6, x - 8, y + 1, x - 8, y + 6);
    }
    html_printf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"gl\">%s %s</text></g>\n", LMID, y + 2, what,
                tb);
}

/* A pause above row r (at t_ms t): time between steps (since *prev_end,
 * negative before the first timed step), or an expect that waited. */
static void find_pause(row *r, const cJSON *st, double t, double *prev_end)
{
    double took = 0;
    int has_took = jget_num(st, "took_ms", &took);
    const char *verb = jget_str(st, "verb");
    int waits = verb && !strcmp(verb, "expect") && has_took && took >= 50;
    if (*prev_end >= 0 && t - *prev_end >= 50) {
        r->pause = 1;
        r->pause_ms = t - *prev_end;
    } else if (waits) {
        r->pause = 2;
        r->pause_ms = took;
    }
    *prev_end = t + (has_took ? took : 0);
}

/* How tall row r is: its shape, the line under it, the reason box. */
static int row_height(row *r)
{
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
    return h;
}

/* Builds and places the rows of the first shown steps; returns the
 * bottom of the last one. */
static int layout(row *rows, int shown, const cJSON *test, const cJSON *steps, const char *reason, int decided)
{
    const char *role = jget_str(test, "device_role");
    /* the deciding step: decided_at_step, else the first that failed */
    int first_bad = -1;
    for (int i = 0; i < shown; i++) {
        vd v = vd_of(jget_str(cJSON_GetArrayItem(steps, i), "verdict"));
        if ((v == VD_FAIL || v == VD_ERROR) && first_bad < 0)
            first_bad = i;
    }
    int y = LHEAD + 40;
    double prev_end = -1;
    for (int i = 0; i < shown; i++) {
        const cJSON *st = cJSON_GetArrayItem(steps, i);
        int idx = jget_int(st, "index", i + 1);
        int deciding = decided > 0 ? idx == decided : i == first_bad;
        row *r = &rows[i];
        step_row(r, st, i, role, deciding, reason);
        double t;
        if (jget_num(st, "t_ms", &t)) {
            find_pause(r, st, t, &prev_end);
            if (r->pause)
                y += 26;
        }
        r->y = y;
        r->h = row_height(r);
        y += r->h;
    }
    return y;
}

/* The two head boxes (name, MPA role, address) and their lifelines down
 * to height, and the margin's column heads. */
static void draw_heads(FILE *o, const cJSON *test, int height)
{
    const char *role = jget_str(test, "device_role");
    const char *us_role = role && !strcmp(role, "initiator") ? "MPA Responder"
                         : role && !strcmp(role, "responder") ? "MPA Initiator" : "role ?";
    const char *dev_role = role && !strcmp(role, "initiator") ? "MPA Initiator"
                          : role && !strcmp(role, "responder") ? "MPA Responder" : "role ?";
    const char *addr[2] = {jget_text(test, "local_address"), jget_text(test, "device_address")};
    const char *name[2] = {"mpa-conform", "device under test"};
    const char *rl[2] = {us_role, dev_role};
    int xs[2] = {LXL, LXR};
    html_printf(o, "<text x=\"%d\" y=\"%d\" class=\"mh\" text-anchor=\"end\">step</text>", LXT - 22, LHEAD + 14);
    html_printf(o, "<text x=\"%d\" y=\"%d\" class=\"mh\" text-anchor=\"end\">time</text>", LXT + 62, LHEAD + 14);
    for (int k = 0; k < 2; k++) {
        html_printf(o, "<g class=\"hd\"><rect x=\"%d\" y=\"6\" width=\"190\" height=\"%d\" rx=\"4\"/>", xs[k] - 95,
                    LHEAD - 12);
        html_printf(o, "<text x=\"%d\" y=\"26\" class=\"hn\" text-anchor=\"middle\">%s</text>", xs[k], name[k]);
        html_printf(o, "<text x=\"%d\" y=\"43\" class=\"hr\" text-anchor=\"middle\">%s</text>", xs[k], rl[k]);
        if (addr[k])
            svg_text(o, xs[k], 58, "ha", "middle", addr[k], 30);
        html_printf(o, "</g><line class=\"life\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", xs[k], LHEAD - 6, xs[k],
                    height - 14);
    }
}

void ladder_put(FILE *o, const cJSON *test, const cJSON *steps, int nsteps, const char *reason, int decided)
{
    const char *id = jget_str(test, "id");
    int shown = nsteps > ROWS_MAX ? ROWS_MAX : nsteps;
    row *rows = shown ? calloc((size_t)shown, sizeof *rows) : NULL;
    if (shown && !rows) {
        fputs("<p class=\"problems\">The ladder diagram could not be drawn (out of memory).</p>\n", o);
        return;
    }
    int height = layout(rows, shown, test, steps, reason, decided) + 30;
    int empty = shown == 0;
    if (empty)
        height += 30;

    html_printf(o,
                "<figure class=\"ladder\"><svg class=\"lad\" role=\"img\" viewBox=\"0 0 %d %d\" width=\"%d\" "
                "height=\"%d\">",
                LW, height, LW, height);
    fputs("<title>Ladder diagram of ", o);
    html_esc(o, id ? id : "the test");
    fputs("</title>\n", o);
    draw_heads(o, test, height);
    if (empty)
        html_printf(o, "<text x=\"%d\" y=\"%d\" class=\"gl\" text-anchor=\"middle\">%s</text>\n", LMID, LHEAD + 40,
                    cJSON_IsArray(steps) ? "(the report lists no steps for this test)"
                                         : "(the report has no steps for this test)");
    for (int i = 0; i < shown; i++) {
        if (rows[i].pause)
            draw_pause(o, rows[i].y - 34, rows[i].pause_ms, rows[i].pause == 2 ? "waiting" : "pause,");
        draw_row(o, &rows[i]);
    }
    /* the end of the test */
    double dur;
    if (shown && jget_num(test, "duration_ms", &dur)) {
        char tb[32];
        sb_fmt_ms(tb, sizeof tb, dur);
        html_printf(o, "<text x=\"%d\" y=\"%d\" class=\"tm\" text-anchor=\"end\">end %s</text>", LXT + 62, height - 12,
                    tb);
    }
    fputs("</svg>", o);
    if (nsteps > shown)
        html_printf(o, "<figcaption>The first %d of %d steps are drawn; the table lists them all.</figcaption>", shown,
                    nsteps);
    fputs("</figure>\n", o);
    free(rows);
}
