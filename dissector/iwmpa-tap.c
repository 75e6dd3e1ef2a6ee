/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The plugin's tap ("iwmpa") and its two statistics tables, both for
 * tshark (-z iwmpa,conv[,FILTER] and -z iwmpa,findings[,FILTER]) and for
 * the GUI (Statistics > iWARP MPA ...), through Wireshark's table-based
 * statistics (epan/stat_tap_ui.h: one registration serves both; the API
 * is the same in 4.0, 4.4 and 4.6).
 *
 * What is counted comes from the first pass only: the tap carries the
 * frame's iw_frame, which iwmpa-track.c filled once, in capture order,
 * from libmpa's stream engine.  Every FPDU and every finding belongs to
 * exactly one frame there, so a run over the frames counts each once, on
 * whichever pass tshark (-2: the second) or the GUI (every retap) taps.
 * A frame tapped twice in a row (the same frame drawn twice in one
 * dissection) is counted once.
 */
#include <wireshark.h>

#include <epan/packet.h>
#include <epan/tap.h>
#include <epan/stat_tap_ui.h>
#include <epan/to_str.h>
#include <string.h>

#include "iwmpa.h"
#include "ws-compat.h"
#include "mpa/findings.h"

int iw_tap = -1;

/* ---- the connections table ---------------------------------------------- */

/* Columns: A is the Initiator when the startup frames say so, else the
 * TCP client (the sender of direction 0). */
enum {
    CV_STREAM, CV_A, CV_A_ROLE, CV_B, CV_B_ROLE, CV_REV, CV_M_AB, CV_M_BA, CV_C, CV_IRD, CV_ORD, CV_RTR,
    CV_FPDU_AB, CV_OCT_AB, CV_FPDU_BA, CV_OCT_BA, CV_CRC_BAD, CV_TERM, CV_MUST, CV_SHOULD, CV_NOTE, CV__N
};

static stat_tap_table_item conv_fields[CV__N] = {
    {TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "Stream", "%u"},
    {TABLE_ITEM_STRING, TAP_ALIGN_LEFT, "Endpoint A", "%s"},
    {TABLE_ITEM_STRING, TAP_ALIGN_LEFT, "Role A", "%s"},
    {TABLE_ITEM_STRING, TAP_ALIGN_LEFT, "Endpoint B", "%s"},
    {TABLE_ITEM_STRING, TAP_ALIGN_LEFT, "Role B", "%s"},
    {TABLE_ITEM_STRING, TAP_ALIGN_RIGHT, "Rev", "%s"},
    {TABLE_ITEM_STRING, TAP_ALIGN_RIGHT, "M A>B", "%s"},
    {TABLE_ITEM_STRING, TAP_ALIGN_RIGHT, "M B>A", "%s"},
    {TABLE_ITEM_STRING, TAP_ALIGN_RIGHT, "C", "%s"},
    {TABLE_ITEM_STRING, TAP_ALIGN_RIGHT, "IRD", "%s"},
    {TABLE_ITEM_STRING, TAP_ALIGN_RIGHT, "ORD", "%s"},
    {TABLE_ITEM_STRING, TAP_ALIGN_LEFT, "RTR", "%s"},
    {TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "FPDUs A>B", "%u"},
    {TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "Octets A>B", "%u"},
    {TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "FPDUs B>A", "%u"},
    {TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "Octets B>A", "%u"},
    {TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "CRC errors", "%u"},
    {TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "TERMINATEs", "%u"},
    {TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "MUST", "%u"},
    {TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "SHOULD", "%u"},
    {TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "NOTE", "%u"},
};

/* ---- the findings table ------------------------------------------------- */

enum { FD_ID, FD_LEVEL, FD_COUNT, FD_FIRST, FD_RULE, FD__N };

static stat_tap_table_item find_fields[FD__N] = {
    {TABLE_ITEM_STRING, TAP_ALIGN_LEFT, "Requirement", "%s"},
    {TABLE_ITEM_STRING, TAP_ALIGN_LEFT, "Level", "%s"},
    {TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "Count", "%u"},
    {TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, "First frame", "%u"},
    {TABLE_ITEM_STRING, TAP_ALIGN_LEFT, "Rule", "%s"},
};

/* Per table: where each connection's (finding id's) row is, and the last
 * frame counted.  Cleared with the table. */
typedef struct tap_state {
    GHashTable *rows;  /* iw_conv * -> row + 1 (connections) */
    guint find_row[MPA_F__COUNT]; /* row + 1 (findings) */
    guint32 last_num;
} tap_state;

static tap_state conv_st, find_st;

static const char conv_title[] = "iWARP MPA Connections";
static const char find_title[] = "iWARP MPA Findings";

/* Strings a row owns (endpoints, settings) are g_strdup'ed; the others
 * (levels, roles, rule ids and texts) are static. */
static gboolean owned_string(const stat_tap_table *t, guint col)
{
    if (t->num_fields == CV__N)
        return col == CV_A || col == CV_B || (col >= CV_REV && col <= CV_RTR);
    return FALSE;
}

static void free_item(stat_tap_table *t, guint row _U_, guint col, stat_tap_table_item_type *f)
{
    if (f->type == TABLE_ITEM_STRING && owned_string(t, col)) {
        g_free((char *)f->value.string_value);
        f->value.string_value = NULL;
    }
}

/* Empties table t (a new tap run: tshark's start, the GUI's retap). */
static void reset_table(stat_tap_table *t)
{
    for (guint r = 0; r < t->num_elements; r++) {
        for (guint c = 0; c < t->num_fields; c++)
            free_item(t, r, c, &t->elements[r][c]);
        g_free(t->elements[r]);
    }
    g_free(t->elements);
    t->elements = NULL;
    t->num_elements = 0;
    tap_state *st = t->num_fields == CV__N ? &conv_st : &find_st;
    if (st->rows)
        g_hash_table_remove_all(st->rows);
    memset(st->find_row, 0, sizeof st->find_row);
    st->last_num = 0;
}

static void init_table(stat_tap_table_ui *ui, const char *title, guint nfields)
{
    stat_tap_table *t = stat_tap_find_table(ui, title);
    if (t) {
        reset_table(t);
        return;
    }
    t = stat_tap_init_table(title, (int)nfields, 0, NULL);
    stat_tap_add_table(ui, t);
    reset_table(t);
}

static void conv_init(stat_tap_table_ui *ui)
{
    if (!conv_st.rows)
        conv_st.rows = g_hash_table_new(g_direct_hash, g_direct_equal);
    init_table(ui, conv_title, CV__N);
}

static void find_init(stat_tap_table_ui *ui)
{
    init_table(ui, find_title, FD__N);
}

static stat_tap_table *first_table(void *tapdata)
{
    stat_data_t *sd = (stat_data_t *)tapdata;
    if (!sd || !sd->stat_tap_data || !sd->stat_tap_data->tables || !sd->stat_tap_data->tables->len)
        return NULL;
    return g_array_index(sd->stat_tap_data->tables, stat_tap_table *, 0);
}

/* The same frame again, right after itself: not counted twice. */
static gboolean seen(tap_state *st, const packet_info *pinfo)
{
    if (st->last_num == pinfo->num)
        return TRUE;
    st->last_num = pinfo->num;
    return FALSE;
}

/* A new row's values: zero, each of its column's type. */
static void blank_row(stat_tap_table_item_type *items, const stat_tap_table_item *cols, guint n)
{
    memset(items, 0, n * sizeof *items);
    for (guint c = 0; c < n; c++)
        items[c].type = cols[c].type;
}

static void set_str(stat_tap_table *t, guint row, guint col, char *s)
{
    stat_tap_table_item_type *f = stat_tap_get_field_data(t, row, col);
    g_free((char *)f->value.string_value);
    f->value.string_value = s;
}

static void add_uint(stat_tap_table *t, guint row, guint col, guint n)
{
    if (!n)
        return;
    stat_tap_table_item_type *f = stat_tap_get_field_data(t, row, col);
    f->value.uint_value += n;
}

static char *endpoint(const iw_conv *cv, int side)
{
    char *a = address_to_str(NULL, &cv->addr[side]);
    char *s = g_strdup_printf(cv->addr[side].type == AT_IPv6 ? "[%s]:%u" : "%s:%u", a, cv->port[side]);
    wmem_free(NULL, a);
    return s;
}

/* The role of side k (the sender of direction k): its own startup
 * frame's, else the other of the peer's. */
static mpa_role role_of(const iw_conv *cv, int k)
{
    if (cv->role[k] != MPA_ROLE_UNKNOWN)
        return cv->role[k];
    return cv->role[!k] == MPA_ROLE_INITIATOR ? MPA_ROLE_RESPONDER
           : cv->role[!k] == MPA_ROLE_RESPONDER ? MPA_ROLE_INITIATOR : MPA_ROLE_UNKNOWN;
}

static const char *role_name(mpa_role r)
{
    return r == MPA_ROLE_INITIATOR ? "Initiator" : r == MPA_ROLE_RESPONDER ? "Responder" : "unknown";
}

static char *flag(int known, int v)
{
    return g_strdup(known ? (v ? "1" : "0") : "-");
}

static const char *rtr_name(mpa_rtr_kind k)
{
    return k == MPA_RTR_SEND ? "Send" : k == MPA_RTR_WRITE ? "Write" : k == MPA_RTR_READ ? "Read" : "none";
}

/* The row of connection cv (made on its first frame), its settings as
 * the first pass knows them now (all of them by the end of the run). */
static guint conv_row(stat_tap_table *t, const iw_conv *cv, int *a_dir)
{
    int a = role_of(cv, 1) == MPA_ROLE_INITIATOR && role_of(cv, 0) != MPA_ROLE_INITIATOR ? 1 : 0;
    *a_dir = a;
    guint row;
    gpointer v = g_hash_table_lookup(conv_st.rows, cv);
    if (v) {
        row = GPOINTER_TO_UINT(v) - 1;
    } else {
        stat_tap_table_item_type items[CV__N];
        blank_row(items, conv_fields, CV__N);
        items[CV_STREAM].value.uint_value = cv->stream;
        row = t->num_elements;
        stat_tap_init_table_row(t, row, CV__N, items);
        g_hash_table_insert(conv_st.rows, (gpointer)cv, GUINT_TO_POINTER(row + 1));
    }
    /* The endpoints and roles (A may change from client to Initiator
     * once the Request is seen). */
    set_str(t, row, CV_A, endpoint(cv, a));
    set_str(t, row, CV_B, endpoint(cv, !a));
    stat_tap_get_field_data(t, row, CV_A_ROLE)->value.string_value = role_name(role_of(cv, a));
    stat_tap_get_field_data(t, row, CV_B_ROLE)->value.string_value = role_name(role_of(cv, !a));
    /* Negotiated: Rev (of the Reply; of the Request while there is no
     * Reply), IRD and ORD of the Reply (enhanced, else the legacy
     * header), markers per direction and CRC as in force. */
    int init = role_of(cv, a) == MPA_ROLE_INITIATOR ? a : -1;
    const mpa_frame *rep = init >= 0 && cv->have_frame[!init] ? &cv->frame[!init] : NULL;
    const mpa_frame *req = init >= 0 && cv->have_frame[init] ? &cv->frame[init] : NULL;
    set_str(t, row, CV_REV, rep ? g_strdup_printf("%u", rep->rev) : req ? g_strdup_printf("%u", req->rev) : g_strdup("-"));
    set_str(t, row, CV_M_AB, flag(cv->fpdu_mode[a], cv->markers[a]));
    set_str(t, row, CV_M_BA, flag(cv->fpdu_mode[!a], cv->markers[!a]));
    int cdir = cv->fpdu_mode[0] ? 0 : 1;
    set_str(t, row, CV_C, flag(cv->fpdu_mode[0] || cv->fpdu_mode[1], cv->crc[cdir]));
    if (rep && req && rep->has_enh && req->has_enh) {
        set_str(t, row, CV_IRD, g_strdup_printf("%u", rep->enh.ird));
        set_str(t, row, CV_ORD, g_strdup_printf("%u", rep->enh.ord));
    } else if (rep && rep->leg.order != MPA_LEG_NONE) {
        set_str(t, row, CV_IRD, g_strdup_printf("%u", rep->leg.ird));
        set_str(t, row, CV_ORD, g_strdup_printf("%u", rep->leg.ord));
    } else {
        set_str(t, row, CV_IRD, g_strdup("-"));
        set_str(t, row, CV_ORD, g_strdup("-"));
    }
    set_str(t, row, CV_RTR, g_strdup(cv->rtr_frame ? rtr_name(cv->rtr) : "-"));
    return row;
}

static tap_packet_status conv_packet(void *tapdata, packet_info *pinfo, epan_dissect_t *edt _U_, const void *data,
                                     tap_flags_t flags _U_)
{
    const iw_frame *fr = data;
    stat_tap_table *t = first_table(tapdata);
    if (!fr || !fr->conv || !t || seen(&conv_st, pinfo))
        return TAP_PACKET_DONT_REDRAW;
    int a;
    guint row = conv_row(t, fr->conv, &a);
    for (unsigned k = 0; k < fr->n_items; k++) {
        const iw_item *it = &fr->items[k];
        if (it->kind != IW_FPDU)
            continue;
        int ab = it->dir == a;
        add_uint(t, row, ab ? CV_FPDU_AB : CV_FPDU_BA, 1);
        add_uint(t, row, ab ? CV_OCT_AB : CV_OCT_BA, it->len);
        add_uint(t, row, CV_CRC_BAD, it->u.fpdu.crc_checked && !it->u.fpdu.crc_ok);
        add_uint(t, row, CV_TERM, it->u.fpdu.is_term);
    }
    for (unsigned k = 0; k < fr->n_findings; k++) {
        const mpa_rule *r = mpa_rule_get(iw_findings(fr)[k].id);
        if (!r)
            continue;
        add_uint(t, row, !strcmp(r->level, "MUST") ? CV_MUST : !strcmp(r->level, "SHOULD") ? CV_SHOULD : CV_NOTE, 1);
    }
    return TAP_PACKET_REDRAW;
}

static tap_packet_status find_packet(void *tapdata, packet_info *pinfo, epan_dissect_t *edt _U_, const void *data,
                                     tap_flags_t flags _U_)
{
    const iw_frame *fr = data;
    stat_tap_table *t = first_table(tapdata);
    if (!fr || !fr->n_findings || !t || seen(&find_st, pinfo))
        return TAP_PACKET_DONT_REDRAW;
    for (unsigned k = 0; k < fr->n_findings; k++) {
        mpa_finding_id id = iw_findings(fr)[k].id;
        const mpa_rule *r = mpa_rule_get(id);
        if (!r)
            continue;
        if (!find_st.find_row[id]) {
            stat_tap_table_item_type items[FD__N];
            blank_row(items, find_fields, FD__N);
            items[FD_ID].value.string_value = r->id;
            items[FD_LEVEL].value.string_value = r->level;
            items[FD_FIRST].value.uint_value = pinfo->num;
            items[FD_RULE].value.string_value = r->text;
            find_st.find_row[id] = t->num_elements + 1;
            stat_tap_init_table_row(t, t->num_elements, FD__N, items);
        }
        add_uint(t, find_st.find_row[id] - 1, FD_COUNT, 1);
    }
    return TAP_PACKET_REDRAW;
}

void iw_tap_register(void)
{
    iw_tap = register_tap("iwmpa");

    static stat_tap_table_ui conv_ui = {
        REGISTER_PACKET_STAT_GROUP_UNSORTED, conv_title, "iwmpa", "iwmpa,conv", conv_init, conv_packet, reset_table,
        free_item, NULL, G_N_ELEMENTS(conv_fields), conv_fields, 0, NULL, NULL, 0};
    static stat_tap_table_ui find_ui = {
        REGISTER_PACKET_STAT_GROUP_UNSORTED, find_title, "iwmpa", "iwmpa,findings", find_init, find_packet, reset_table,
        free_item, NULL, G_N_ELEMENTS(find_fields), find_fields, 0, NULL, NULL, 0};
    register_stat_tap_table_ui(&conv_ui);
    register_stat_tap_table_ui(&find_ui);
}
