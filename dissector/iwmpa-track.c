/*
 * The first pass of the iWARP MPA plugin (iwmpa.h): TCP connections in
 * capture order -> libmpa's stream engine -> what each frame holds.
 *
 * MPA has no port (RFC 5044 7.1): a connection is taken for MPA when the
 * first octets of either direction are an MPA key ("MPA "), on a port
 * named in the preferences, or when Decode As gave it to iwmpa; the
 * same rule as mpa-audit's.  TCP is reassembled by mpa-audit's own
 * reassembler (conformance/audit/tcp.c), so the plugin and the auditor
 * see the same octets in the same order, holes included.
 *
 * The engine calls back with events while a segment is fed; each event
 * becomes an item of the frame being followed.  An item whose octets all
 * lie in this frame's TCP payload is shown there; one that began in an
 * earlier frame (an FPDU across segments) is copied out of a per-direction
 * history of the last octets, and shown as a reassembled data source.
 */
#include "iwmpa.h"

#include <string.h>

#include "mpa/describe.h"
#include "tcp.h"

#define HIST 81920u          /* > the largest FPDU on the wire (66060 octets) */
#define UNDECIDED_MAX 65536u /* octets held before MPA is decided */
#define PENDING_MAX (4u << 20)

enum { ST_UNDECIDED = 0, ST_MPA, ST_IGNORED };
enum { Q_DATA = 0, Q_GAP, Q_END };
enum { V_NONE = 0, V_MPA, V_OTHER, V_LOST };

typedef struct qitem {
    struct qitem *next;
    uint8_t kind, flag;
    uint64_t seq, len;
    uint32_t used;
    uint8_t data[];
} qitem;

typedef struct conn {
    iw_conv *conv;              /* file scope: frames point at it */
    address client;             /* the client's address (dir 0) */
    uint16_t client_port;
    int state, listed, forced;
    int syn_seen;
    uint32_t client_isn;
    uint16_t mss[2];
    tcp_dir tcp[2];
    tcp_sink sink;
    mpa_stream *ms;
    uint8_t first[2][4], nfirst[2], verdict[2];
    qitem *qh[2], *qt[2];
    uint64_t qbytes[2], qseq;
    /* the last HIST delivered octets of each direction, for items that
     * span segments */
    uint8_t *hist[2];
    uint64_t hist_end[2];       /* stream offset after the last kept octet */
    uint64_t hole_end[2];       /* octets before this are not all in hist */
    int ended;
    int cut_done;               /* MPA-CAP-TRUNCATED said */
    int announced;              /* the caller was told it is MPA */
} conn;

/* The frame being followed. */
typedef struct cur {
    conn *c;
    uint32_t num;
    int dir;
    uint64_t seg_off;           /* stream offset of this frame's payload */
    uint32_t seg_len;
    int have_seg;
    GArray *items, *findings;
    const iw_prefs *prefs;
} cur;

static GHashTable *g_conns; /* tcp.stream -> conn */
static cur g_cur;
static tcp_budget g_budget;

/* ---- items and findings ----------------------------------------------- */

/* Where an item's octets are: this frame's payload, or a copy. */
static void place(iw_item *it)
{
    conn *c = g_cur.c;
    it->in_frame = -1;
    it->bytes = NULL;
    it->bytes_len = 0;
    if (!it->len)
        return;
    if (g_cur.have_seg && it->dir == g_cur.dir && it->off >= g_cur.seg_off &&
        it->off < g_cur.seg_off + g_cur.seg_len) {
        /* In this frame (all of it, or what there is of a frame whose
         * length field claims more than was sent: an unknown key). */
        it->in_frame = (int32_t)(it->off - g_cur.seg_off);
        uint64_t have = g_cur.seg_off + g_cur.seg_len - it->off;
        it->bytes_len = have < it->len ? (uint32_t)have : it->len;
        return;
    }
    uint8_t *h = c->hist[it->dir];
    uint64_t end = c->hist_end[it->dir];
    uint64_t lo = end > HIST ? end - HIST : 0;
    if (lo < c->hole_end[it->dir])
        lo = c->hole_end[it->dir];
    if (!h || it->off < lo || it->off >= end)
        return;
    uint64_t stop = it->off + it->len < end ? it->off + it->len : end;
    uint32_t n = (uint32_t)(stop - it->off);
    uint8_t *copy = wmem_alloc(wmem_file_scope(), n);
    for (uint32_t i = 0; i < n; i++)
        copy[i] = h[(it->off + i) % HIST];
    it->bytes = copy;
    it->bytes_len = n;
}

static void add_item(iw_item *it)
{
    place(it);
    g_array_append_val(g_cur.items, *it);
}

static void on_event(void *user, const mpa_event *ev)
{
    conn *c = user;
    iw_conv *cv = c->conv;
    iw_item it;
    memset(&it, 0, sizeof it);
    it.dir = (uint8_t)ev->dir;
    it.off = ev->off;
    it.seq = ev->seq;
    it.first_frame = g_cur.num;
    switch (ev->type) {
    case MPA_EV_FRAME:
        it.kind = IW_FRAME;
        it.len = (uint32_t)(ev->u.frame.frame.frame_len < UINT32_MAX ? ev->u.frame.frame.frame_len : UINT32_MAX);
        if (!it.len) /* an unknown key: its 20-octet header is what was read */
            it.len = MPA_FRAME_HDR_LEN;
        it.u.frame.fr = ev->u.frame.frame;
        it.u.frame.fr.pd = NULL;
        it.u.frame.role = ev->u.frame.role;
        if (!cv->have_frame[ev->dir]) {
            cv->have_frame[ev->dir] = 1;
            cv->frame[ev->dir] = it.u.frame.fr;
            cv->frame_num[ev->dir] = g_cur.num;
        }
        if (ev->u.frame.role != MPA_ROLE_UNKNOWN)
            cv->role[ev->dir] = ev->u.frame.role;
        add_item(&it);
        break;
    case MPA_EV_FPDU: {
        const mpa_ev_fpdu *f = &ev->u.fpdu;
        it.kind = IW_FPDU;
        it.len = f->wire_len;
        it.u.fpdu.index = f->index;
        it.u.fpdu.ulpdu_len = f->ulpdu_len;
        it.u.fpdu.pad_len = f->pad_len;
        it.u.fpdu.n_markers = f->n_markers;
        it.u.fpdu.markers = (uint8_t)cv->markers[ev->dir];
        it.u.fpdu.crc_checked = f->crc != MPA_CRC_NOT_CHECKED;
        it.u.fpdu.crc_ok = f->crc_wire == f->crc_calc;
        it.u.fpdu.crc_wire = f->crc_wire;
        it.u.fpdu.crc_calc = f->crc_calc;
        it.u.fpdu.rtr = (uint8_t)f->rtr;
        it.u.fpdu.negotiated_rtr = (uint8_t)f->negotiated_rtr;
        it.u.fpdu.mphase = f->marker_phase;
        if (f->negotiated_rtr && !cv->rtr_frame) {
            cv->rtr_frame = g_cur.num;
            cv->rtr = f->rtr;
        }
        add_item(&it);
        break;
    }
    case MPA_EV_DATA:
        it.kind = IW_DATA;
        it.len = (uint32_t)(ev->u.data.len < UINT32_MAX ? ev->u.data.len : UINT32_MAX);
        it.u.data.why = ev->u.data.why;
        it.u.data.len = ev->u.data.len;
        add_item(&it);
        break;
    case MPA_EV_MODE:
        it.kind = IW_MODE;
        it.u.mode.mode = (uint8_t)ev->u.mode.mode;
        it.u.mode.markers = (uint8_t)ev->u.mode.markers;
        it.u.mode.crc = (uint8_t)ev->u.mode.crc;
        it.u.mode.why = ev->u.mode.why;
        if (ev->u.mode.mode == MPA_MODE_FPDU) {
            cv->fpdu_mode[ev->dir] = 1;
            cv->markers[ev->dir] = ev->u.mode.markers;
            cv->crc[ev->dir] = ev->u.mode.crc;
            cv->mode_frame[ev->dir] = g_cur.num;
        }
        g_array_append_val(g_cur.items, it);
        break;
    case MPA_EV_FINDING: {
        iw_finding f;
        f.id = ev->u.finding.id;
        f.dir = (uint8_t)ev->dir;
        f.off = ev->off;
        f.msg = wmem_strdup(wmem_file_scope(), ev->u.finding.msg);
        g_array_append_val(g_cur.findings, f);
        break;
    }
    case MPA_EV_MARKER:
        /* Markers are shown inside their FPDU, from its octets. */
        break;
    }
}

/* ---- the engine, fed in order ---------------------------------------- */

static void q_push(conn *c, int dir, int kind, int flag, const uint8_t *p, uint64_t len)
{
    size_t extra = kind == Q_DATA ? (size_t)len : 0;
    if (kind == Q_DATA && c->qbytes[dir] + len > (c->state == ST_UNDECIDED ? UNDECIDED_MAX : PENDING_MAX)) {
        /* Too much to hold for a direction that waits: a hole. */
        kind = Q_GAP;
        extra = 0;
    }
    qitem *q = g_malloc(sizeof *q + extra);
    q->next = NULL;
    q->kind = (uint8_t)kind;
    q->flag = (uint8_t)flag;
    q->seq = c->qseq++;
    q->len = len;
    q->used = 0;
    if (extra)
        memcpy(q->data, p, extra);
    c->qbytes[dir] += extra;
    if (c->qt[dir])
        c->qt[dir]->next = q;
    else
        c->qh[dir] = q;
    c->qt[dir] = q;
}

static void q_pop(conn *c, int dir)
{
    qitem *q = c->qh[dir];
    c->qh[dir] = q->next;
    if (!c->qh[dir])
        c->qt[dir] = NULL;
    if (q->kind == Q_DATA)
        c->qbytes[dir] -= q->len;
    g_free(q);
}

static void q_clear(conn *c)
{
    for (int dir = 0; dir < 2; dir++)
        while (c->qh[dir])
            q_pop(c, dir);
}

/* Queued items of both directions in arrival order, skipping a direction
 * the engine holds back (the Initiator's octets before the Reply). */
static void pump(conn *c)
{
    for (;;) {
        int dir = -1;
        for (int k = 0; k < 2; k++) {
            if (!c->qh[k] || mpa_stream_waiting(c->ms, k))
                continue;
            if (dir < 0 || c->qh[k]->seq < c->qh[dir]->seq)
                dir = k;
        }
        if (dir < 0)
            return;
        qitem *q = c->qh[dir];
        switch (q->kind) {
        case Q_DATA: {
            if (q->flag && q->used == 0)
                mpa_stream_segment(c->ms, dir);
            size_t n = mpa_stream_feed(c->ms, dir, q->data + q->used, (size_t)(q->len - q->used));
            q->used += (uint32_t)n;
            if (q->used < q->len && (n || mpa_stream_waiting(c->ms, dir)))
                continue;
            break;
        }
        case Q_GAP:
            mpa_stream_gap(c->ms, dir, q->len);
            break;
        case Q_END:
            mpa_stream_end(c->ms, dir, q->flag ? MPA_END_RST : MPA_END_FIN);
            break;
        }
        q_pop(c, dir);
    }
}

static int on_port_list(const iw_prefs *p, uint16_t port)
{
    return p && p->ports && value_is_in_range(p->ports, port);
}

static void start_engine(conn *c)
{
    iw_conv *cv = c->conv;
    mpa_stream_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    int starts_mpa = 0;
    for (int dir = 0; dir < 2; dir++) {
        cfg.isn[dir] = c->tcp[dir].base_seq;
        cfg.emss[dir] = c->mss[!dir];
        starts_mpa |= c->verdict[dir] == V_MPA;
    }
    if ((c->listed || c->forced) && !c->syn_seen && !starts_mpa) {
        cfg.midstream = 1;
        cv->midstream = 1;
        for (int dir = 0; dir < 2; dir++) {
            int to_port = on_port_list(g_cur.prefs, cv->port[!dir]) || (c->forced && dir == 0);
            cfg.markers[dir] = g_cur.prefs ? g_cur.prefs->mid_markers[to_port ? 0 : 1] : 0;
            cfg.crc[dir] = g_cur.prefs ? g_cur.prefs->mid_crc[to_port ? 0 : 1] : 0;
        }
        cfg.initiator = 1;
    }
    c->ms = g_malloc(mpa_stream_size());
    mpa_stream_init(c->ms, &cfg, on_event, c);
    c->state = ST_MPA;
    cv->is_mpa = 1;
}

static void ignore(conn *c)
{
    c->state = ST_IGNORED;
    q_clear(c);
    for (int dir = 0; dir < 2; dir++) {
        g_free(c->hist[dir]);
        c->hist[dir] = NULL;
    }
}

static void decide(conn *c)
{
    if (c->state != ST_UNDECIDED)
        return;
    int mpa = c->verdict[0] == V_MPA || c->verdict[1] == V_MPA;
    if (!mpa && (c->listed || c->forced) && (c->verdict[0] != V_NONE || c->verdict[1] != V_NONE))
        mpa = 1;
    if (mpa) {
        start_engine(c);
        pump(c);
        return;
    }
    int settled = (c->verdict[0] == V_OTHER || c->verdict[0] == V_LOST) &&
                  (c->verdict[1] == V_OTHER || c->verdict[1] == V_LOST);
    if (settled || c->qbytes[0] + c->qbytes[1] >= UNDECIDED_MAX)
        ignore(c);
}

/* ---- the TCP sink ----------------------------------------------------- */

static void hist_put(conn *c, int dir, uint64_t off, const uint8_t *p, uint32_t len)
{
    if (!c->hist[dir])
        c->hist[dir] = g_malloc(HIST);
    uint32_t k = len > HIST ? len - HIST : 0;
    for (uint32_t i = k; i < len;) {
        uint64_t at = (off + i) % HIST;
        uint32_t n = len - i < HIST - at ? len - i : (uint32_t)(HIST - at);
        memcpy(c->hist[dir] + at, p + i, n);
        i += n;
    }
    c->hist_end[dir] = off + len;
}

static void t_data(void *user, int dir, uint64_t off, const uint8_t *p, uint32_t len, int seg_start, uint64_t frame)
{
    conn *c = user;
    (void)frame;
    if (c->state == ST_IGNORED)
        return;
    hist_put(c, dir, off, p, len);
    if (c->state == ST_MPA) {
        if (!c->qh[dir]) {
            if (seg_start)
                mpa_stream_segment(c->ms, dir);
            size_t n = mpa_stream_feed(c->ms, dir, p, len);
            if (n < len)
                q_push(c, dir, Q_DATA, 0, p + n, len - n);
        } else {
            q_push(c, dir, Q_DATA, seg_start, p, len);
        }
        if (c->qh[0] || c->qh[1])
            pump(c);
        return;
    }
    if (c->verdict[dir] == V_NONE) {
        if (off > c->nfirst[dir])
            c->verdict[dir] = V_LOST;
        while (c->verdict[dir] == V_NONE && c->nfirst[dir] < 4 && c->nfirst[dir] < off + len) {
            c->first[dir][c->nfirst[dir]] = p[c->nfirst[dir] - off];
            c->nfirst[dir]++;
        }
        if (c->verdict[dir] == V_NONE && c->nfirst[dir] == 4)
            c->verdict[dir] = memcmp(c->first[dir], "MPA ", 4) == 0 ? V_MPA : V_OTHER;
    }
    q_push(c, dir, Q_DATA, seg_start, p, len);
    decide(c);
}

static void t_gap(void *user, int dir, uint64_t off, uint64_t len, uint64_t frame)
{
    conn *c = user;
    (void)frame;
    if (c->state == ST_IGNORED)
        return;
    c->hole_end[dir] = off + len;
    if (c->state == ST_MPA) {
        iw_item it;
        memset(&it, 0, sizeof it);
        it.kind = IW_HOLE;
        it.dir = (uint8_t)dir;
        it.off = off;
        it.u.data.len = len;
        it.in_frame = -1;
        g_array_append_val(g_cur.items, it);
    }
    if (c->state == ST_UNDECIDED) {
        if (c->verdict[dir] == V_NONE)
            c->verdict[dir] = V_LOST;
        q_push(c, dir, Q_GAP, 0, NULL, len);
        decide(c);
        return;
    }
    if (!c->qh[dir])
        mpa_stream_gap(c->ms, dir, len);
    else
        q_push(c, dir, Q_GAP, 0, NULL, len);
    pump(c);
}

static void t_end(void *user, int dir, int rst, uint64_t frame)
{
    conn *c = user;
    (void)frame;
    if (c->state == ST_IGNORED)
        return;
    if (c->state == ST_UNDECIDED) {
        if (c->verdict[dir] == V_NONE)
            c->verdict[dir] = V_LOST;
        q_push(c, dir, Q_END, rst, NULL, 0);
        decide(c);
        return;
    }
    if (!c->qh[dir])
        mpa_stream_end(c->ms, dir, rst ? MPA_END_RST : MPA_END_FIN);
    else
        q_push(c, dir, Q_END, rst, NULL, 0);
    pump(c);
}

/* What the capture could not show, as mpa-audit says it (MPA-CAP-*). */
static void cap_finding(mpa_finding_id id, int dir, uint64_t off, const char *msg)
{
    iw_finding f;
    f.id = id;
    f.dir = (uint8_t)dir;
    f.off = off;
    f.msg = wmem_strdup(wmem_file_scope(), msg);
    g_array_append_val(g_cur.findings, f);
}

static void t_note(void *user, int dir, tcp_note what, uint64_t off, uint64_t len, uint64_t frame)
{
    conn *c = user;
    (void)frame;
    if (c->state != ST_MPA)
        return;
    char msg[200];
    switch (what) {
    case TCP_NOTE_CONFLICT:
        snprintf(msg, sizeof msg,
                 "retransmitted octets at offset %" PRIu64 " (%" PRIu64 " octets checked) differ from the first copy, "
                 "which is kept",
                 off, len);
        cap_finding(MPA_F_CAP_OVERLAP, dir, off, msg);
        break;
    case TCP_NOTE_OUT_OF_WINDOW:
        snprintf(msg, sizeof msg,
                 "segment of %" PRIu64 " octets outside the window (its sequence number is more than 2^30 from the "
                 "expected one, or before the start of the stream): ignored",
                 len);
        cap_finding(MPA_F_CAP_UNREADABLE, dir, UINT64_MAX, msg);
        break;
    case TCP_NOTE_EARLY_HOLE:
        break;
    }
}

/* ---- connections ------------------------------------------------------ */

static void conn_release(conn *c)
{
    for (int dir = 0; dir < 2; dir++) {
        tcp_dir_free(&c->tcp[dir], &g_budget);
        g_free(c->hist[dir]);
        c->hist[dir] = NULL;
    }
    q_clear(c);
    g_free(c->ms);
    c->ms = NULL;
}

static void conn_free(gpointer p)
{
    conn *c = p;
    conn_release(c);
    g_free(c);
}

void iw_track_init(void)
{
    g_conns = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, conn_free);
    memset(&g_budget, 0, sizeof g_budget);
    g_budget.cap = (size_t)256 << 20;
}

void iw_track_cleanup(void)
{
    if (g_conns)
        g_hash_table_destroy(g_conns);
    g_conns = NULL;
}

static conn *conn_get(const iw_seg *seg)
{
    conn *c = g_hash_table_lookup(g_conns, GUINT_TO_POINTER(seg->stream + 1));
    if (c)
        return c;
    c = g_new0(conn, 1);
    c->conv = wmem_new0(wmem_file_scope(), iw_conv);
    c->conv->stream = seg->stream;
    /* The client sent the SYN; without one, the side that sends to a
     * named port; else the first sender. */
    int client_is_src = 1;
    if (seg->syn && seg->ack_flag)
        client_is_src = 0;
    else if (!seg->syn && on_port_list(g_cur.prefs, seg->sport) && !on_port_list(g_cur.prefs, seg->dport))
        client_is_src = 0;
    copy_address_wmem(wmem_file_scope(), &c->client, client_is_src ? seg->src : seg->dst);
    c->client_port = client_is_src ? seg->sport : seg->dport;
    copy_address_wmem(wmem_file_scope(), &c->conv->addr[0], client_is_src ? seg->src : seg->dst);
    copy_address_wmem(wmem_file_scope(), &c->conv->addr[1], client_is_src ? seg->dst : seg->src);
    c->conv->port[0] = client_is_src ? seg->sport : seg->dport;
    c->conv->port[1] = client_is_src ? seg->dport : seg->sport;
    c->sink.user = c;
    c->sink.data = t_data;
    c->sink.gap = t_gap;
    c->sink.end = t_end;
    c->sink.note = t_note;
    c->listed = on_port_list(g_cur.prefs, seg->sport) || on_port_list(g_cur.prefs, seg->dport);
    g_hash_table_insert(g_conns, GUINT_TO_POINTER(seg->stream + 1), c);
    return c;
}

/* Findings go to the item of this frame that holds their octet, the
 * others (a rule about the connection, an octet of another frame) to the
 * protocol item: they are put first, n_loose of them. */
static iw_frame *finish_frame(conn *c, const iw_seg *seg, int dir)
{
    if (!g_cur.items->len && !g_cur.findings->len)
        return NULL;
    iw_frame *fr = wmem_new0(wmem_file_scope(), iw_frame);
    fr->conv = c->conv;
    fr->stream = seg->stream;
    fr->dir = (uint8_t)dir;
    fr->seg_off = g_cur.seg_off;
    fr->seg_len = g_cur.seg_len;
    fr->n_items = (uint16_t)MIN(g_cur.items->len, 65535u);
    fr->items = wmem_memdup(wmem_file_scope(), g_cur.items->data, fr->n_items * sizeof(iw_item));
    guint nf = MIN(g_cur.findings->len, 65535u);
    fr->n_findings = (uint16_t)nf;
    fr->findings = wmem_alloc(wmem_file_scope(), nf * sizeof(iw_finding) + 1);
    const iw_finding *all = (const iw_finding *)(void *)g_cur.findings->data;
    int *owner = g_new(int, nf + 1);
    for (guint i = 0; i < nf; i++) {
        owner[i] = -1;
        for (int k = fr->n_items - 1; k >= 0; k--) {
            const iw_item *it = &fr->items[k];
            if (it->kind == IW_MODE || it->dir != all[i].dir)
                continue;
            if (all[i].off >= it->off && (all[i].off < it->off + it->len || (it->len == 0 && all[i].off == it->off))) {
                owner[i] = k;
                break;
            }
        }
    }
    guint n = 0;
    for (guint i = 0; i < nf; i++)
        if (owner[i] < 0)
            fr->findings[n++] = all[i];
    fr->n_loose = (uint16_t)n;
    for (int k = 0; k < fr->n_items; k++) {
        fr->items[k].first_finding = (uint16_t)n;
        for (guint i = 0; i < nf; i++)
            if (owner[i] == k)
                fr->findings[n++] = all[i];
        fr->items[k].n_findings = (uint16_t)(n - fr->items[k].first_finding);
    }
    g_free(owner);
    return fr;
}

iw_frame *iw_track(const iw_seg *seg, uint32_t num, const iw_prefs *settings, int forced, int *became_mpa)
{
    *became_mpa = 0;
    if (!g_conns)
        iw_track_init();
    g_cur.prefs = settings;
    conn *c = conn_get(seg);
    if (forced)
        c->forced = 1;
    if (c->state == ST_IGNORED && !c->forced)
        return NULL;
    if (c->state == ST_IGNORED && c->forced) {
        /* Decode As came late: take it from here, mid-stream. */
        c->state = ST_UNDECIDED;
        c->verdict[0] = c->verdict[1] = V_LOST;
    }
    int dir = addresses_equal(seg->src, &c->client) && seg->sport == c->client_port ? 0 : 1;
    if (!g_cur.items) {
        g_cur.items = g_array_new(FALSE, FALSE, sizeof(iw_item));
        g_cur.findings = g_array_new(FALSE, FALSE, sizeof(iw_finding));
    }
    g_array_set_size(g_cur.items, 0);
    g_array_set_size(g_cur.findings, 0);
    g_cur.c = c;
    g_cur.num = num;
    g_cur.dir = dir;
    g_cur.have_seg = 0;

    uint32_t seq = seg->seq;
    if (seg->syn) {
        if (seg->mss)
            c->mss[dir] = seg->mss;
        if (!seg->ack_flag) {
            c->syn_seen = 1;
            c->client_isn = seg->seq;
        }
        if (!c->tcp[dir].have_base)
            tcp_dir_start(&c->tcp[dir], seg->seq + 1);
        seq = seg->seq + 1;
    }
    if (seg->ack_flag && c->tcp[!dir].have_base)
        tcp_dir_acked(&c->tcp[!dir], !dir, seg->ack, num, &c->sink, &g_budget);
    uint32_t wire = seg->payload_wire > seg->payload_len ? seg->payload_wire : seg->payload_len;
    if (wire || seg->fin) {
        if (!c->tcp[dir].have_base)
            tcp_dir_start(&c->tcp[dir], seq);
        uint64_t off;
        if (tcp_dir_offset(&c->tcp[dir], seq, &off)) {
            g_cur.seg_off = off;
            g_cur.seg_len = seg->payload_len;
            g_cur.have_seg = 1;
        }
        if (wire > seg->payload_len && c->state == ST_MPA && !c->cut_done) {
            c->cut_done = 1;
            char msg[160];
            snprintf(msg, sizeof msg,
                     "packet cut by the snap length: %u of %u payload octets captured (later cut packets of this "
                     "connection are not reported again)",
                     seg->payload_len, wire);
            cap_finding(MPA_F_CAP_TRUNCATED, dir, UINT64_MAX, msg);
        }
        const uint8_t *p = seg->payload_len ? tvb_get_ptr(seg->tvb, seg->payload_off, seg->payload_len) : NULL;
        tcp_dir_segment(&c->tcp[dir], dir, seq, p, seg->payload_len, wire, seg->fin, num, &c->sink, &g_budget);
    }
    if (seg->rst && c->tcp[dir].have_base)
        tcp_dir_rst(&c->tcp[dir], dir, num, &c->sink, &g_budget);
    if (c->state == ST_MPA && !c->announced) {
        c->announced = 1;
        *became_mpa = 1;
    }
    if (c->state == ST_IGNORED) {
        for (int side = 0; side < 2; side++)
            tcp_dir_free(&c->tcp[side], &g_budget);
    }
    iw_frame *fr = c->state == ST_MPA || g_cur.items->len ? finish_frame(c, seg, dir) : NULL;
    if ((seg->rst || (c->tcp[0].ended && c->tcp[1].ended)) && c->state != ST_UNDECIDED && !c->ended) {
        /* Over: what it holds goes; what it learnt stays in its iw_conv. */
        c->ended = 1;
        conn_release(c);
        c->state = ST_IGNORED;
    }
    return fr;
}
