/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The first pass of the iWARP MPA plugin (iwmpa.h): TCP connections in
 * capture order -> libmpa's stream engine -> what each frame holds.
 *
 * Each TCP connection (tcp.stream) goes through the capture layer's
 * MPA-connection layer (capture/mpaconn.h), the very one under mpa-audit:
 * the same reassembly, the same decision whether it speaks MPA (an MPA
 * key first, a port named in the preferences, or Decode As), the same
 * holding and feeding of the engine and the same capture notes, so the
 * plugin and the auditor see the same octets in the same order and say
 * the same things.
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
#include "mpaconn.h"

#define HIST 81920u          /* > the largest FPDU on the wire (66060 octets) */
#define HIST_MIN 2048u       /* the smallest buffer of held octets */
#define CARRIED 64u          /* frames remembered per direction */

typedef struct conn {
    iw_conv *conv;              /* file scope: frames point at it */
    address client;             /* the client's address (dir 0) */
    uint16_t client_port;
    int forced;
    mc_conn *mc;                /* NULL once the connection is over */
    /* the delivered octets of each direction not shown yet (from
     * used_end on, at most the last HIST), for items that span segments:
     * hist_len octets up to hist_end, in a buffer of hist_cap that grows
     * to what is held (one FPDU, usually) rather than HIST per direction
     * of every open connection */
    uint8_t *hist[2];
    uint32_t hist_len[2], hist_cap[2];
    uint64_t hist_end[2];       /* stream offset after the last kept octet */
    uint64_t hole_end[2];       /* octets before this are not all in hist */
    /* the frames that carried the last delivered octets of each direction
     * (octets queued behind a hole reach the engine while a later frame,
     * such as the peer's ACK, is followed: their items say where they
     * were carried) */
    struct carried {
        uint64_t off;
        uint32_t len, frame;
    } *carried[2];              /* CARRIED each, while the connection is open */
    unsigned ncarried[2];
    int announced;              /* the caller was told it is MPA */
    /* the stream offset of each direction up to which the delivered
     * octets were shown (items, holes): hist_end - used_end are held */
    uint64_t used_end[2];
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
/* The common frame as the first pass keeps it (iw_frame_keep()): one
 * FPDU, all of it in the frame's payload (which starts it, in the frame's
 * own octets), no finding, nothing held.  64 octets, where the whole
 * iw_frame takes 120; iw_frame_get() makes the whole one again. */
typedef struct iw_short {
    iw_conv *conv;              /* conv and num where iw_frame has them */
    uint32_t num, seq;
    uint64_t off;
    iw_fpdu fpdu;
    uint32_t len;
    uint16_t pay_off;
    uint8_t dir, in_layer;
} iw_short;
G_STATIC_ASSERT(sizeof(iw_short) <= 64);

/* What the first pass kept, in frame order (the frame numbers grow with
 * k): the file's frames that have something to show.  An entry is an
 * iw_frame, or an iw_short with its lowest bit set. */
static struct {
    guintptr *at;
    guint n, cap, hint;
} g_frames;
static void frames_reset(void);
static cur g_cur;
static mc_shared g_sh;      /* memory shared by all connections */

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
    const uint8_t *h = c->hist[it->dir];
    uint64_t end = c->hist_end[it->dir];
    uint64_t base = end - c->hist_len[it->dir];
    uint64_t lo = base < c->hole_end[it->dir] ? c->hole_end[it->dir] : base;
    if (!h || it->off < lo || it->off >= end)
        return;
    uint64_t stop = it->off + it->len < end ? it->off + it->len : end;
    uint32_t n = (uint32_t)(stop - it->off);
    it->bytes = wmem_memdup(wmem_file_scope(), h + (it->off - base), n);
    it->bytes_len = n;
}

static void add_item(iw_item *it)
{
    place(it);
    uint64_t end = it->off + (it->kind == IW_DATA && it->u.data.len > it->len ? it->u.data.len : it->len);
    if (g_cur.c && end > g_cur.c->used_end[it->dir & 1])
        g_cur.c->used_end[it->dir & 1] = end;
    g_array_append_val(g_cur.items, *it);
}

static uint32_t carrier(const conn *c, int dir, uint64_t off);

static void on_event(void *user, const mpa_event *ev)
{
    conn *c = user;
    iw_conv *cv = c->conv;
    iw_item it;
    memset(&it, 0, sizeof it);
    it.dir = (uint8_t)ev->dir;
    it.off = ev->off;
    it.seq = ev->seq;
    it.first_frame = carrier(c, ev->dir, ev->off);
    switch (ev->type) {
    case MPA_EV_FRAME:
        it.kind = IW_FRAME;
        it.len = (uint32_t)(ev->u.frame.frame.frame_len < UINT32_MAX ? ev->u.frame.frame.frame_len : UINT32_MAX);
        if (!it.len) /* an unknown key: its 20-octet header is what was read */
            it.len = MPA_FRAME_HDR_LEN;
        {
            mpa_frame *kept = wmem_new(wmem_file_scope(), mpa_frame);
            *kept = ev->u.frame.frame;
            kept->pd = NULL;
            it.u.frame.fr = kept;
        }
        it.u.frame.role = ev->u.frame.role;
        if (!cv->have_frame[ev->dir]) {
            cv->have_frame[ev->dir] = 1;
            cv->frame[ev->dir] = *it.u.frame.fr;
            cv->frame_num[ev->dir] = g_cur.num;
        }
        if (ev->u.frame.role != MPA_ROLE_UNKNOWN)
            cv->role[ev->dir] = ev->u.frame.role;
        add_item(&it);
        break;
    case MPA_EV_FPDU: {
        const mpa_ev_fpdu *f = &ev->u.fpdu;
        it.kind = IW_FPDU;
        cv->fpdu_mode[ev->dir] = 1;
        it.len = f->wire_len;
        /* Numbered by the plugin along the direction: libmpa's count starts
         * again where the framing is found again (after a mode change, a
         * resync), which would number two FPDUs of one frame alike. */
        it.u.fpdu.index = (uint32_t)cv->n_fpdu[ev->dir]++;
        it.u.fpdu.ulpdu_len = f->ulpdu_len;
        it.u.fpdu.pad_len = f->pad_len;
        it.u.fpdu.n_markers = f->n_markers;
        it.u.fpdu.markers = cv->markers[ev->dir] != 0;
        cv->mark_base[ev->dir] = ev->seq - f->marker_phase;
        it.u.fpdu.crc_checked = f->crc != MPA_CRC_NOT_CHECKED;
        it.u.fpdu.crc_ok = f->crc_wire == f->crc_calc;
        it.u.fpdu.crc_wire = f->crc_wire;
        it.u.fpdu.crc_calc = f->crc_calc;
        it.u.fpdu.rtr = (uint8_t)f->rtr;
        it.u.fpdu.negotiated_rtr = (uint8_t)f->negotiated_rtr;
        it.u.fpdu.is_term = f->ddp_status == MPA_OK && f->ddp.hdr.opcode == MPA_RDMAP_TERMINATE;
        it.u.fpdu.term_quirk = f->term_quirk;
        it.u.fpdu.term_read = f->term_read;
        it.u.fpdu.mphase = f->marker_phase;
        it.u.fpdu.mform.order = f->marker_order;
        it.u.fpdu.mform.nocrc = f->marker_nocrc;
        cv->mform[ev->dir] = it.u.fpdu.mform;
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
        it.u.data.fpdu_cut = (uint8_t)(ev->u.data.fpdu_cut != 0);
        add_item(&it);
        break;
    case MPA_EV_MODE:
        it.kind = IW_MODE;
        it.u.mode.mode = (uint8_t)ev->u.mode.mode;
        it.u.mode.markers = (uint8_t)ev->u.mode.markers;
        it.u.mode.crc = (uint8_t)ev->u.mode.crc;
        it.u.mode.why = ev->u.mode.why;
        if (ev->u.mode.mode == MPA_MODE_FPDU) {
            /* After a reject the engine only probes: FPDU mode is
             * reached with the first FPDU. */
            if (!ev->u.mode.probe)
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

/* ---- what the capture layer tells ------------------------------------- */

/* Keeps the octets delivered at off, and of those before them the ones
 * not shown yet (an item that spans segments begins there): the shown
 * ones are dropped, and all before a hole. */
static void hist_put(conn *c, int dir, uint64_t off, const uint8_t *p, uint32_t len)
{
    uint64_t end = c->hist_end[dir];
    uint32_t keep = c->hist_len[dir];
    if (off != end)
        keep = 0;
    else if (c->used_end[dir] > end - keep)
        keep = c->used_end[dir] < end ? (uint32_t)(end - c->used_end[dir]) : 0;
    c->hist_end[dir] = off + len;
    if (len >= HIST) {
        p += len - HIST;
        len = HIST;
        keep = 0;
    } else if (keep > HIST - len) {
        keep = HIST - len;
    }
    uint32_t need = keep + len;
    uint8_t *h = c->hist[dir];
    if (keep && keep < c->hist_len[dir])
        memmove(h, h + (c->hist_len[dir] - keep), keep);
    /* Grow to what is held; give back a buffer four times too large. */
    if (need > c->hist_cap[dir] || (c->hist_cap[dir] > HIST_MIN * 4 && need < c->hist_cap[dir] / 4)) {
        uint32_t cap = HIST_MIN;
        while (cap < need)
            cap *= 2;
        c->hist[dir] = h = g_realloc(h, MIN(cap, HIST));
        c->hist_cap[dir] = MIN(cap, HIST);
    }
    memcpy(h + keep, p, len);
    c->hist_len[dir] = need;
}

static void on_data(void *user, int dir, uint64_t off, const uint8_t *p, uint32_t len, uint64_t frame)
{
    conn *c = user;
    hist_put(c, dir, off, p, len);
    if (!c->carried[dir])
        return;
    struct carried *k = &c->carried[dir][c->ncarried[dir]++ % CARRIED];
    k->off = off;
    k->len = len;
    k->frame = (uint32_t)frame;
}

/* The frame that carried octet off of dir, or the frame being followed. */
static uint32_t carrier(const conn *c, int dir, uint64_t off)
{
    unsigned n = !c->carried[dir] ? 0 : c->ncarried[dir] < CARRIED ? c->ncarried[dir] : CARRIED;
    for (unsigned i = 0; i < n; i++) {
        const struct carried *k = &c->carried[dir][(c->ncarried[dir] - 1 - i) % CARRIED];
        if (off >= k->off && off < k->off + k->len)
            return k->frame ? k->frame : g_cur.num;
    }
    return g_cur.num;
}

static void on_gap(void *user, int dir, uint64_t off, uint64_t len, uint64_t frame)
{
    conn *c = user;
    (void)frame;
    c->hole_end[dir] = off + len;
    if (off + len > c->used_end[dir])
        c->used_end[dir] = off + len; /* never held: missing */
    if (mc_get_state(c->mc) == MC_MPA) {
        iw_item it;
        memset(&it, 0, sizeof it);
        it.kind = IW_HOLE;
        it.dir = (uint8_t)dir;
        it.off = off;
        it.u.data.len = len;
        it.in_frame = -1;
        g_array_append_val(g_cur.items, it);
    }
}

/* A finding of the capture layer (MPA-CAP-*), as mpa-audit says it. */
static void cap_finding(mpa_finding_id id, int dir, uint64_t off, const char *msg)
{
    iw_finding f;
    f.id = id;
    f.dir = (uint8_t)(dir < 0 ? 0 : dir);
    f.off = off;
    f.msg = wmem_strdup(wmem_file_scope(), msg);
    g_array_append_val(g_cur.findings, f);
}

static void on_note(void *user, mpa_finding_id id, int dir, uint64_t off, uint64_t frame, const char *msg)
{
    (void)user;
    (void)frame;
    cap_finding(id, dir, off, msg);
}

/* The memory all connections share ran out: said on the frame where it
 * happened. */
static void on_shared_note(void *user, mpa_finding_id id, const char *msg)
{
    (void)user;
    if (g_cur.findings)
        cap_finding(id, g_cur.dir, UINT64_MAX, msg);
}

static void on_starting(void *user)
{
    conn *c = user;
    c->conv->is_mpa = 1;
    c->conv->midstream = mc_midstream(c->mc);
}

static int on_port_list(const iw_prefs *p, uint16_t port)
{
    return p && p->ports && value_is_in_range(p->ports, port);
}

/* What the preferences (and Decode As) say of a connection. */
static mc_cfg conn_cfg(const conn *c)
{
    const iw_prefs *p = g_cur.prefs;
    mc_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.listed = c->forced || on_port_list(p, c->conv->port[0]) || on_port_list(p, c->conv->port[1]);
    /* dir 0 goes to the server's port (the one Decode As names), dir 1 to
     * the client's. */
    cfg.to_port[0] = (uint8_t)(on_port_list(p, c->conv->port[1]) || c->forced);
    cfg.to_port[1] = (uint8_t)on_port_list(p, c->conv->port[0]);
    /* Markers are drawn inside their FPDU, from its octets: libmpa reads
     * past those that break no rule without an event. */
    cfg.quiet_markers = 1;
    for (int i = 0; i < 2; i++) {
        cfg.mid_markers[i] = p ? p->mid_markers[i] : 0;
        cfg.mid_crc[i] = p ? p->mid_crc[i] : 0;
    }
    return cfg;
}

/* ---- connections ------------------------------------------------------ */

/* What it holds goes; what it learnt stays in its iw_conv. */
static void conn_release(conn *c)
{
    for (int dir = 0; dir < 2; dir++) {
        g_free(c->hist[dir]);
        c->hist[dir] = NULL;
        c->hist_len[dir] = c->hist_cap[dir] = 0;
    }
    mc_free(c->mc);
    c->mc = NULL;
    for (int dir = 0; dir < 2; dir++) {
        g_free(c->carried[dir]);
        c->carried[dir] = NULL;
    }
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
    frames_reset();
    memset(&g_sh, 0, sizeof g_sh);
    g_sh.budget.cap = (size_t)256 << 20;
    g_sh.cap_desc = "the plugin's 256 MiB";
    g_sh.global_note = on_shared_note;
}

void iw_track_cleanup(void)
{
    if (g_conns)
        g_hash_table_destroy(g_conns);
    g_conns = NULL;
    frames_reset();
}

static conn *conn_get(const iw_seg *seg, int forced, int *fresh)
{
    conn *c = g_hash_table_lookup(g_conns, GUINT_TO_POINTER(seg->stream + 1));
    *fresh = !c;
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
    c->forced = forced;
    for (int dir = 0; dir < 2; dir++)
        c->carried[dir] = g_new(struct carried, CARRIED);
    mc_cfg cfg = conn_cfg(c);
    mc_hooks h = {c, on_event, on_note, on_data, on_gap, NULL, on_starting};
    c->mc = mc_new(&cfg, &h, &g_sh);
    g_hash_table_insert(g_conns, GUINT_TO_POINTER(seg->stream + 1), c);
    return c;
}

/* ---- the frames kept -------------------------------------------------- */

static void frames_reset(void)
{
    g_free(g_frames.at);
    memset(&g_frames, 0, sizeof g_frames);
}

static uint32_t kept_num(guintptr e)
{
    return e & 1 ? ((const iw_short *)(e & ~(guintptr)1))->num : ((const iw_frame *)e)->num;
}

/* Frames come in order on the first pass; one record a frame (a second
 * one for the same frame, which the callers never make, is not kept: the
 * first is the one found, as p_get_proto_data() would). */
static void frames_add(uint32_t num, guintptr e)
{
    if (g_frames.n && kept_num(g_frames.at[g_frames.n - 1]) >= num)
        return;
    if (g_frames.n == g_frames.cap) {
        g_frames.cap = g_frames.cap ? g_frames.cap * 2 : 1024;
        g_frames.at = g_renew(guintptr, g_frames.at, g_frames.cap);
    }
    g_frames.at[g_frames.n++] = e;
}

void iw_frame_keep(const iw_frame *fr)
{
    const iw_item *it = fr->items;
    if (fr->n_items == 1 && !fr->n_findings && !fr->held && fr->pay_src == 0 && fr->pay_off >= 0 &&
        fr->pay_off <= 65535 && it->kind == IW_FPDU && it->dir == fr->dir && it->in_frame == 0 && !it->bytes &&
        it->bytes_len == it->len && it->len == fr->pay_len && it->first_frame == fr->num) {
        iw_short *sh = wmem_new(wmem_file_scope(), iw_short);
        sh->conv = fr->conv;
        sh->num = fr->num;
        sh->seq = it->seq;
        sh->off = it->off;
        sh->fpdu = it->u.fpdu;
        sh->len = it->len;
        sh->pay_off = (uint16_t)fr->pay_off;
        sh->dir = fr->dir;
        sh->in_layer = fr->in_layer;
        frames_add(fr->num, (guintptr)sh | 1);
        return;
    }
    size_t size = sizeof(iw_frame) + fr->n_items * sizeof(iw_item) + fr->n_findings * sizeof(iw_finding);
    frames_add(fr->num, (guintptr)wmem_memdup(wmem_file_scope(), fr, size));
}

/* The whole frame of a short one. */
static iw_frame *unpack(const iw_short *sh, wmem_allocator_t *scope)
{
    iw_frame *fr = wmem_alloc0(scope, sizeof(iw_frame) + sizeof(iw_item));
    fr->conv = sh->conv;
    fr->num = sh->num;
    fr->pay_off = sh->pay_off;
    fr->pay_len = sh->len;
    fr->pay_src = 0;
    fr->n_items = 1;
    fr->dir = sh->dir;
    fr->in_layer = sh->in_layer;
    iw_item *it = fr->items;
    it->off = sh->off;
    it->u.fpdu = sh->fpdu;
    it->len = sh->len;
    it->in_frame = 0;
    it->bytes_len = sh->len;
    it->first_frame = sh->num;
    it->seq = sh->seq;
    it->kind = IW_FPDU;
    it->dir = sh->dir;
    return fr;
}

static iw_frame *kept_frame(guintptr e, wmem_allocator_t *scope)
{
    return e & 1 ? unpack((const iw_short *)(e & ~(guintptr)1), scope) : (iw_frame *)e;
}

iw_frame *iw_frame_get(uint32_t num, wmem_allocator_t *scope)
{
    /* The passes after the first go in order too, mostly: the one after
     * the last found is tried first. */
    guint h = g_frames.hint;
    if (h < g_frames.n && kept_num(g_frames.at[h]) == num) {
        g_frames.hint = h + 1;
        return kept_frame(g_frames.at[h], scope);
    }
    guint lo = 0, hi = g_frames.n;
    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;
        if (kept_num(g_frames.at[mid]) < num)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < g_frames.n && kept_num(g_frames.at[lo]) == num) {
        g_frames.hint = lo + 1;
        return kept_frame(g_frames.at[lo], scope);
    }
    return NULL;
}

/* Findings go to the item of this frame that holds their octet, the
 * others (a rule about the connection, an octet of another frame) to the
 * protocol item: they are put first, n_loose of them. */
static iw_frame *finish_frame(conn *c, uint32_t num, int dir, uint32_t held, wmem_allocator_t *scope)
{
    if (!g_cur.items->len && !g_cur.findings->len && !held)
        return NULL;
    guint n_items = MIN(g_cur.items->len, 65535u);
    guint nf = MIN(g_cur.findings->len, 65535u);
    /* One allocation: the frame, its items, its findings. */
    iw_frame *fr = wmem_alloc(scope, sizeof(iw_frame) + n_items * sizeof(iw_item) + nf * sizeof(iw_finding));
    memset(fr, 0, sizeof *fr);
    fr->num = num;
    fr->held = held;
    fr->conv = c->conv;
    fr->dir = (uint8_t)dir;
    fr->n_items = (uint16_t)n_items;
    memcpy(fr->items, g_cur.items->data, n_items * sizeof(iw_item));
    fr->n_findings = (uint16_t)nf;
    iw_finding *fs = (iw_finding *)(void *)(fr->items + n_items);
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
            fs[n++] = all[i];
    fr->n_loose = (uint16_t)n;
    for (int k = 0; k < fr->n_items; k++) {
        fr->items[k].first_finding = (uint16_t)n;
        for (guint i = 0; i < nf; i++)
            if (owner[i] == k)
                fs[n++] = all[i];
        fr->items[k].n_findings = (uint16_t)(n - fr->items[k].first_finding);
    }
    g_free(owner);
    return fr;
}

iw_frame *iw_track(const iw_seg *seg, uint32_t num, const iw_prefs *settings, int forced, int *became_mpa,
                   int *first_seen, wmem_allocator_t *scope)
{
    *became_mpa = 0;
    if (!g_conns)
        iw_track_init();
    g_cur.prefs = settings;
    conn *c = conn_get(seg, forced, first_seen);
    if (!c->mc)
        return NULL; /* over, or out of memory */
    if (forced && !c->forced) {
        /* Decode As came later than the connection's start. */
        c->forced = 1;
        mc_cfg cfg = conn_cfg(c);
        mc_force(c->mc, &cfg);
    }
    if (mc_get_state(c->mc) == MC_IGNORED)
        return NULL;
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

    const uint8_t *p = seg->payload_len ? tvb_get_ptr(seg->tvb, seg->payload_off, seg->payload_len) : NULL;
    mc_seg ms = {
        .dir = dir,
        .seq = seg->seq,
        .ack = seg->ack,
        .syn = (uint8_t)(seg->syn != 0),
        .ack_flag = (uint8_t)(seg->ack_flag != 0),
        .fin = (uint8_t)(seg->fin != 0),
        .rst = (uint8_t)(seg->rst != 0),
        .mss = seg->mss,
        .payload = p,
        .len = seg->payload_len,
        .wire = seg->payload_wire,
        .frame = num,
    };
    uint64_t off;
    if ((seg->payload_len || seg->payload_wire || seg->fin) && mc_payload_offset(c->mc, &ms, &off)) {
        g_cur.seg_off = off;
        g_cur.seg_len = seg->payload_len;
        g_cur.have_seg = 1;
    }
    mc_segment(c->mc, &ms);
    int over = mc_over(c->mc);
    if (over)
        mc_close(c->mc, num); /* what is left incomplete is said on this frame */
    mc_state st = mc_get_state(c->mc);
    if (st == MC_MPA && !c->announced) {
        c->announced = 1;
        *became_mpa = 1;
    }
    /* Octets of this frame's direction delivered to the engine but not
     * shown yet (the first part of an FPDU or startup frame that goes
     * on in a later segment, octets searched for a boundary): said on a
     * frame that carried payload of that direction. */
    uint32_t held = 0;
    if (st == MC_MPA && g_cur.have_seg && g_cur.seg_len && c->hist_end[dir] > c->used_end[dir])
        held = (uint32_t)MIN(c->hist_end[dir] - c->used_end[dir], (uint64_t)UINT32_MAX);
    iw_frame *fr = st == MC_MPA || g_cur.items->len ? finish_frame(c, num, dir, held, scope) : NULL;
    if (over || st == MC_IGNORED)
        conn_release(c);
    return fr;
}
