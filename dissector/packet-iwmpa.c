/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iWARP MPA, DDP and RDMAP for Wireshark 4.0, decoded and judged by
 * libmpa: MPA (RFC 5044, RFC 6581), DDP (RFC 5041), RDMAP (RFC 5040,
 * RFC 7306).  Protocols iwmpa, iwddp, iwrdmap (the built-in dissectors
 * are iwarp_mpa, iwarp_ddp, iwarp_rdma; "ddp" is AppleTalk's).
 *
 * How it reaches the octets.  MPA has no port of its own, and the ports
 * iWARP runs on are claimed by other dissectors (445 SMB Direct, 5445,
 * 3260 iSER, 4791, 20049 NFS/RDMA).  Three ways, one first pass
 * (first_pass) and one drawing (render): TCP's heuristic table for a
 * segment that starts with "MPA " no port took (heur_iwmpa); the
 * connection taken over from TCP once it speaks MPA (dissect_iwmpa_claim,
 * or Decode As); and a postdissector for the frames neither reached (a
 * startup frame on a port another dissector owns, a pure ACK that settles
 * a hole).  The first two run inside TCP's dissection, so iwmpa, iwddp,
 * iwrdmap (called as dissectors) and the upper layers (the
 * iwarp_ddp_rdmap heuristic table) are layers of the frame.  By default
 * the plugin turns the built-in iwarp_mpa off (preference "in_charge")
 * and fills its fields (preference "compat_fields").
 *
 * Why two halves.  Wireshark dissects frames again in any order (GUI),
 * while MPA can only be decoded along each TCP stream.  So the first
 * pass follows the streams (iwmpa-track.c) and keeps, per frame, what
 * libmpa said; this file draws a frame's tree from that on every pass.
 * Field values come from libmpa's decoders (mpa_frame_decode,
 * mpa_fpdu_layout, mpa_ddp_decode) run on the frame's octets; the CRC
 * verdict and the findings are the stream engine's from the first pass.
 */
#include <wireshark.h>

#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/prefs.h>
#include <epan/conversation.h>
#include <epan/to_str.h>
#include <epan/show_exception.h>
#include <epan/tap.h>
#include <epan/exceptions.h>
#include <epan/dissectors/packet-iwarp-ddp-rdmap.h>
#include <string.h>

#include "iwmpa.h"
#include "ws-compat.h"
#include "mpa/ddp.h"
#include "mpa/describe.h"
#include "mpa/fpdu.h"
#include "mpa/frame.h"

void proto_register_iwmpa(void);
void proto_reg_handoff_iwmpa(void);

static int proto_iwmpa = -1, proto_iwddp = -1, proto_iwrdmap = -1;
/* The protocols' names (see dissector/README.md). */
#define IW_LONG_MPA "iWARP Marker PDU Aligned Framing"
#define IW_SHORT_MPA "iWARP-MPA"
#define IW_LONG_DDP "iWARP Direct Data Placement"
#define IW_SHORT_DDP "iWARP-DDP"
#define IW_LONG_RDMAP "iWARP Remote Direct Memory Access Protocol"
#define IW_SHORT_RDMAP "iWARP-RDMAP"
static dissector_handle_t iwmpa_post_handle, iwmpa_port_handle, iwmpa_claim_handle, iwmpa_probe_handle, iwddp_handle,
    iwrdmap_handle;
/* The upper layers (SMB Direct, RPC-over-RDMA, ...): the table Wireshark's
 * own DDP/RDMAP dissector hands its payloads to (NULL when absent). */
static heur_dissector_list_t ulp_heur;
/* Per dissection of a frame: the tree the upper layers are drawn in (the
 * top of the frame, as the built-in does) and whether one of them took a
 * payload (then the columns are theirs). */
static proto_tree *g_top_tree;
static gboolean g_ulp_took;
/* The highest of our layers drawn in the frame: its short name goes in
 * the Protocol column. */
static int g_col_layer; /* 0 MPA, 1 DDP, 2 RDMAP */
/* A TERMINATE was drawn in the frame (for the Info marker). */
static gboolean g_term_seen;
static const char *const col_proto[] = {IW_SHORT_MPA, IW_SHORT_DDP, IW_SHORT_RDMAP};

/* TCP's fields, found by name at handoff. */
static int hf_tcp_len = -1, hf_tcp_stream = -1;

/* ---- fields ------------------------------------------------------------ */

static int hf_direction = -1, hf_conv = -1, hf_conv_initiator = -1, hf_conv_responder = -1, hf_conv_request_frame = -1,
           hf_conv_reply_frame = -1, hf_conv_rev = -1, hf_conv_enhanced = -1, hf_conv_crc = -1, hf_conv_markers_c2s = -1,
           hf_conv_markers_s2c = -1, hf_conv_ird = -1, hf_conv_ord = -1, hf_conv_rtr = -1, hf_conv_rtr_frame = -1,
           hf_conv_midstream = -1;
static int hf_frame = -1, hf_key = -1, hf_key_kind = -1, hf_role = -1, hf_m = -1, hf_c = -1, hf_r = -1, hf_s = -1,
           hf_res = -1, hf_rev = -1, hf_sk_m = -1, hf_sk_c = -1, hf_sk_res = -1, hf_sk_rev = -1, hf_pd_length = -1,
           hf_enh = -1, hf_enh_a = -1, hf_enh_b = -1, hf_enh_ird = -1, hf_enh_c = -1, hf_enh_d = -1, hf_enh_ord = -1,
           hf_private_data = -1, hf_leg = -1, hf_leg_ird = -1, hf_leg_ord = -1, hf_leg_swapped = -1,
           hf_key_expected = -1, hf_held = -1;
static int hf_fpdu = -1, hf_fpdu_index = -1, hf_ulpdu_length = -1, hf_ulpdu = -1, hf_pad = -1, hf_crc = -1,
           hf_crc_status = -1, hf_crc_computed = -1, hf_crc_register = -1, hf_marker = -1, hf_marker_res = -1, hf_marker_ptr = -1, hf_rtr = -1,
           hf_rtr_negotiated = -1, hf_fpdu_first_frame = -1;
static int hf_not_mpa = -1, hf_not_mpa_data = -1, hf_not_mpa_why = -1, hf_hole = -1, hf_mode = -1, hf_finding = -1,
           hf_finding_detail = -1, hf_finding_rule = -1;
static int hf_ddp_t = -1, hf_ddp_l = -1, hf_ddp_rsvd = -1, hf_ddp_dv = -1, hf_ddp_rsvdulp = -1, hf_ddp_stag = -1,
           hf_ddp_to = -1, hf_ddp_qn = -1, hf_ddp_msn = -1, hf_ddp_mo = -1, hf_ddp_payload_len = -1;
static int hf_rdmap_rv = -1, hf_rdmap_rsvd = -1, hf_rdmap_opcode = -1, hf_rdmap_inv_stag = -1, hf_rr_sink_stag = -1,
           hf_rr_sink_to = -1, hf_rr_size = -1, hf_rr_src_stag = -1, hf_rr_src_to = -1, hf_term_layer = -1,
           hf_term_etype = -1, hf_term_code = -1, hf_term_name = -1, hf_term_m = -1, hf_term_d = -1, hf_term_r = -1,
           hf_term_rsvd = -1, hf_term_siw_name = -1, hf_term_seglen = -1, hf_term_ddp_hdr = -1, hf_term_rdma_hdr = -1, hf_at_aop = -1,
           hf_at_rsvd = -1, hf_at_req_id = -1, hf_at_stag = -1, hf_at_to = -1, hf_at_add_swap = -1,
           hf_at_add_swap_mask = -1, hf_at_compare = -1, hf_at_compare_mask = -1, hf_ar_orig_req_id = -1,
           hf_ar_orig_value = -1, hf_imm_data = -1;

static gint ett_iwmpa = -1, ett_conv = -1, ett_frame = -1, ett_enh = -1, ett_fpdu = -1, ett_marker = -1,
            ett_ddp = -1, ett_rdmap = -1, ett_term = -1, ett_term_ddp = -1, ett_crc = -1, ett_finding = -1;

/* One expert info per rule of the table (include/mpa/findings.def). */
static expert_field ei_rule[MPA_F__COUNT];

/* ---- preferences --------------------------------------------------------- */

static iw_pref_bool pref_in_charge = TRUE;
static range_t *pref_ports;
static gint pref_mid_markers_to = MPA_TRI_UNKNOWN, pref_mid_markers_from = MPA_TRI_UNKNOWN,
            pref_mid_crc_to = MPA_TRI_UNKNOWN, pref_mid_crc_from = MPA_TRI_UNKNOWN;
static iw_prefs g_prefs;
static gboolean decode_as_used; /* the tcp.port dissector ran once */

static const enum_val_t tri_vals[] = {
    {"auto", "Inferred from the octets", MPA_TRI_UNKNOWN},
    {"on", "On", MPA_TRI_ON},
    {"off", "Off", MPA_TRI_OFF},
    {NULL, NULL, 0},
};

static const value_string opcode_vals[] = {
    {MPA_RDMAP_RDMA_WRITE, "RDMA Write"},
    {MPA_RDMAP_READ_REQUEST, "RDMA Read Request"},
    {MPA_RDMAP_READ_RESPONSE, "RDMA Read Response"},
    {MPA_RDMAP_SEND, "Send"},
    {MPA_RDMAP_SEND_INVALIDATE, "Send with Invalidate"},
    {MPA_RDMAP_SEND_SE, "Send with Solicited Event"},
    {MPA_RDMAP_SEND_SE_INVALIDATE, "Send with Solicited Event and Invalidate"},
    {MPA_RDMAP_TERMINATE, "Terminate"},
    {MPA_RDMAP_IMMEDIATE, "Immediate Data"},
    {MPA_RDMAP_IMMEDIATE_SE, "Immediate Data with Solicited Event"},
    {MPA_RDMAP_ATOMIC_REQUEST, "Atomic Request"},
    {MPA_RDMAP_ATOMIC_RESPONSE, "Atomic Response"},
    {0, NULL},
};

static const value_string layer_vals[] = {
    {MPA_TERM_LAYER_RDMAP, "RDMAP"}, {MPA_TERM_LAYER_DDP, "DDP"}, {MPA_TERM_LAYER_LLP, "LLP (MPA)"}, {0, NULL}};

static const value_string dir_vals[] = {{0, "client->server"}, {1, "server->client"}, {0, NULL}};

static void apply_prefs(void)
{
    g_prefs.ports = pref_ports;
    g_prefs.mid_markers[0] = (uint8_t)pref_mid_markers_to;
    g_prefs.mid_markers[1] = (uint8_t)pref_mid_markers_from;
    g_prefs.mid_crc[0] = (uint8_t)pref_mid_crc_to;
    g_prefs.mid_crc[1] = (uint8_t)pref_mid_crc_from;
    /* One decoder at a time: ours, or the built-in ones. */
    static const char *const builtin[] = {"iwarp_mpa", "iwarp_ddp", "iwarp_rdma"};
    for (unsigned i = 0; i < G_N_ELEMENTS(builtin); i++) {
        int id = proto_get_id_by_filter_name(builtin[i]);
        if (id >= 0)
            proto_set_decoding(id, !pref_in_charge);
    }
}

/* ---- the built-ins' fields ------------------------------------------------
 * With the built-in iWARP dissectors turned off (in_charge), their
 * display filters (iwarp_mpa.*, iwarp_ddp.*, iwarp_rdma.*) would match
 * nothing.  So, by the preference compat_fields, each of our frames also
 * carries, hidden, the built-ins' fields for what it decoded, with the
 * same meaning: a filter selects the frames it selected without the
 * plugin.  Found by name at handoff; one that a release lacks is left out. */
enum {
    C_MPA, C_DDP_RDMAP, C_REQ, C_REP, C_FPDU, C_KEY_REQ, C_KEY_REP, C_MARKER_FLAG, C_CRC_FLAG, C_REJ_FLAG, C_REV,
    C_PDLEN, C_ULPDULEN, C_CRC_CHECK, C_FPDUPTR, C_DDP_T, C_DDP_L, C_DDP_DV, C_DDP_STAG, C_DDP_TO, C_DDP_QN, C_DDP_MSN,
    C_DDP_MO, C_RDMA_VER, C_RDMA_OP, C_RDMA_INV, C_RR_SINKSTAG, C_RR_SINKTO, C_RR_SIZE, C_RR_SRCSTAG, C_RR_SRCTO,
    C__COUNT
};
static const char *const compat_names[C__COUNT] = {
    "iwarp_mpa", "iwarp_ddp_rdmap", "iwarp_mpa.req", "iwarp_mpa.rep", "iwarp_mpa.fpdu", "iwarp_mpa.key.req",
    "iwarp_mpa.key.rep", "iwarp_mpa.marker_flag", "iwarp_mpa.crc_flag", "iwarp_mpa.rej_flag", "iwarp_mpa.rev",
    "iwarp_mpa.pdlength", "iwarp_mpa.ulpdulength", "iwarp_mpa.crc_check", "iwarp_mpa.marker_fpduptr",
    "iwarp_ddp.tagged_flag", "iwarp_ddp.last_flag", "iwarp_ddp.dv", "iwarp_ddp.stag", "iwarp_ddp.tagged_offset",
    "iwarp_ddp.qn", "iwarp_ddp.msn", "iwarp_ddp.mo", "iwarp_rdma.version", "iwarp_rdma.opcode",
    "iwarp_rdma.inval_stag", "iwarp_rdma.sinkstag", "iwarp_rdma.sinkto", "iwarp_rdma.rdmardsz",
    "iwarp_rdma.srcstag", "iwarp_rdma.srcto",
};
static int hf_compat[C__COUNT];
/* How each is added (its type, looked up once at handoff). */
enum { CK_NONE, CK_ITEM, CK_BOOLEAN, CK_UINT, CK_UINT64 };
static guint8 compat_kind[C__COUNT];
static iw_pref_bool pref_compat = TRUE;

/* The built-in's field c, hidden, at [off, off+len) of tvb: v is the
 * value (for a field with a bit mask, the octets it is masked from). */
static void compat(proto_tree *tree, int c, tvbuff_t *tvb, int off, int len, guint64 v)
{
    int hf = hf_compat[c];
    if (!tree || !compat_kind[c] || !pref_in_charge || !pref_compat || !tvb)
        return;
    /* In a tree nobody sees, a field nothing asks for (no filter,
     * column, tap or -e names it) is not made: Wireshark would fake it,
     * or make it hidden where nobody looks. */
    if (!proto_field_is_referenced(tree, hf))
        return;
    if ((guint)off + (guint)len > tvb_captured_length(tvb))
        off = len = 0;
    proto_item *pi = NULL;
    switch (compat_kind[c]) {
    case CK_ITEM:
        pi = proto_tree_add_item(tree, hf, tvb, off, len, ENC_NA);
        break;
    case CK_BOOLEAN:
        pi = proto_tree_add_boolean(tree, hf, tvb, off, len, (guint32)v);
        break;
    case CK_UINT:
        pi = proto_tree_add_uint(tree, hf, tvb, off, len, (guint32)v);
        break;
    case CK_UINT64:
        pi = proto_tree_add_uint64(tree, hf, tvb, off, len, v);
        break;
    default:
        break;
    }
    proto_item_set_hidden(pi);
}

/* The kind of the built-in's field hf (CK_NONE: absent, or of a type
 * not filled). */
static guint8 compat_kind_of(int hf)
{
    if (hf <= 0)
        return CK_NONE;
    switch (proto_registrar_get_nth((guint)hf)->type) {
    case FT_PROTOCOL:
    case FT_NONE:
    case FT_BYTES:
        return CK_ITEM;
    case FT_BOOLEAN:
        return CK_BOOLEAN;
    case FT_UINT8:
    case FT_UINT16:
    case FT_UINT24:
    case FT_UINT32:
        return CK_UINT;
    case FT_UINT64:
        return CK_UINT64;
    default:
        return CK_NONE;
    }
}

/* ---- finding the TCP segment --------------------------------------------- */

/* The field hf of the TCP header at [lo, hi) of tvb, or NULL. */
static field_info *field_in(proto_tree *tree, int hf, tvbuff_t *tvb, int lo, int hi)
{
    GPtrArray *a = hf >= 0 ? proto_get_finfo_ptr_array(tree, hf) : NULL;
    if (!a)
        return NULL;
    for (guint i = a->len; i-- > 0;) {
        field_info *fi = g_ptr_array_index(a, i);
        if (fi->ds_tvb == tvb && fi->start >= lo && fi->start < hi)
            return fi;
    }
    return NULL;
}

static guint32 fi_uint(field_info *fi)
{
    if (!fi)
        return 0;
    enum ftenum t = fi->hfinfo->type;
    if (IW_FT_IS_UINT32(t))
        return fvalue_get_uinteger(IW_FI_VALUE(fi));
    if (IW_FT_IS_UINT64(t) || t == FT_BOOLEAN)
        return (guint32)fvalue_get_uinteger64(IW_FI_VALUE(fi));
    return 0;
}

/* The innermost TCP header of the frame, and where its payload is.  Of
 * TCP's fields two are wanted, both generated without text: tcp.len,
 * which TCP adds at the header's start once it has judged the header's
 * length, and tcp.stream.  The rest is read from the header's octets
 * where TCP read them.  (Each wanted field costs a list per packet; a
 * wanted tcp.srcport or tcp.hdr_len has its text made even where nobody
 * shows it, and a wanted "tcp" makes all of TCP's fields real from
 * Wireshark 4.6 on.) */
static gboolean find_tcp(packet_info *pinfo, proto_tree *tree, iw_seg *seg)
{
    if (!tree)
        return FALSE;
    GPtrArray *la = proto_get_finfo_ptr_array(tree, hf_tcp_len);
    if (!la || !la->len)
        return FALSE;
    field_info *ln = g_ptr_array_index(la, la->len - 1);
    tvbuff_t *tvb = ln->ds_tvb;
    int lo = ln->start, hi = ln->start + 60;
    field_info *st = field_in(tree, hf_tcp_stream, tvb, lo, hi);
    GPtrArray *sa = proto_get_finfo_ptr_array(tree, hf_tcp_stream);
    int have = tvb && lo >= 0 ? tvb_captured_length_remaining(tvb, lo) : 0;
    /* The flags are the 14th octet. */
    if (have < 14)
        return FALSE;
    /* tcp.stream is a generated field: the last one when none is here. */
    if (!st && sa && sa->len)
        st = g_ptr_array_index(sa, sa->len - 1);
    if (!st)
        return FALSE;
    const guint8 *h = tvb_get_ptr(tvb, lo, 14);
    guint32 hdr = (guint32)(h[12] >> 4) * 4;
    if (hdr < 20)
        return FALSE; /* TCP gave up on this header */
    memset(seg, 0, sizeof *seg);
    seg->stream = fi_uint(st);
    seg->src = &pinfo->net_src;
    seg->dst = &pinfo->net_dst;
    int n = MIN(have, (int)hdr);
    h = tvb_get_ptr(tvb, lo, n);
    seg->sport = (uint16_t)(h[0] << 8 | h[1]);
    seg->dport = (uint16_t)(h[2] << 8 | h[3]);
    seg->seq = (guint32)h[4] << 24 | (guint32)h[5] << 16 | (guint32)h[6] << 8 | h[7];
    seg->syn = (h[13] & 0x02) != 0;
    seg->ack_flag = (h[13] & 0x10) != 0;
    seg->fin = (h[13] & 0x01) != 0;
    seg->rst = (h[13] & 0x04) != 0;
    /* TCP shows the acknowledgement number with ACK set only */
    if (seg->ack_flag)
        seg->ack = (guint32)h[8] << 24 | (guint32)h[9] << 16 | (guint32)h[10] << 8 | h[11];
    /* MSS: the last well-formed option of kind 2 among the captured options */
    for (int o = 20; o < n;) {
        if (h[o] == 0)
            break;
        if (h[o] == 1) {
            o++;
            continue;
        }
        if (o + 1 >= n || h[o + 1] < 2 || o + h[o + 1] > n)
            break;
        if (h[o] == 2 && h[o + 1] == 4)
            seg->mss = (uint16_t)(h[o + 2] << 8 | h[o + 3]);
        o += h[o + 1];
    }
    seg->tvb = tvb;
    seg->payload_off = lo + (int)hdr;
    seg->payload_wire = fi_uint(ln);
    int cap = (int)tvb_captured_length(tvb) - seg->payload_off;
    if (cap < 0)
        cap = 0;
    seg->payload_len = (uint32_t)MIN((guint32)cap, seg->payload_wire);
    return TRUE;
}

/* The index of tvb among the frame's data sources, or -1. */
static int data_src_index(packet_info *pinfo, tvbuff_t *tvb)
{
    int i = 0;
    for (GSList *l = pinfo->data_src; l; l = l->next, i++)
        if (get_data_source_tvb((struct data_source *)l->data) == tvb)
            return i;
    return -1;
}

/* A later pass: the payload where the first pass found it. */
static tvbuff_t *payload_again(packet_info *pinfo, const iw_frame *fr)
{
    if (fr->pay_src < 0)
        return NULL;
    GSList *l = g_slist_nth(pinfo->data_src, (guint)fr->pay_src);
    if (!l)
        return NULL;
    tvbuff_t *src = get_data_source_tvb((struct data_source *)l->data);
    if (!src || tvb_captured_length(src) < (guint)fr->pay_off + fr->pay_len)
        return NULL;
    return tvb_new_subset_length(src, fr->pay_off, (gint)fr->pay_len);
}

/* ---- drawing ----------------------------------------------------------- */

/* A line's text put together without printf, for the lines drawn for
 * every FPDU, marker and frame: Wireshark formats each line's text when
 * the item is made (tshark -V, -T fields and the GUI show the tree), and
 * a format with numbers costs it twice what "%s" of the finished text
 * does.  The text is kept to what a line holds (ITEM_LABEL_LENGTH - 1
 * characters, where Wireshark's own formatting would also stop). */
typedef struct iw_label {
    char s[ITEM_LABEL_LENGTH];
    size_t n;
} iw_label;

static void label_str(iw_label *l, const char *t)
{
    size_t k = strlen(t), room = sizeof l->s - 1 - l->n;
    if (k > room)
        k = room;
    memcpy(l->s + l->n, t, k);
    l->n += k;
    l->s[l->n] = 0;
}

/* Whether the text of a line added under tree is made: the tree is
 * shown (Wireshark formats no text for a tree nobody sees). */
static gboolean lines_shown(proto_tree *tree)
{
    return tree && PTREE_DATA(tree)->visible;
}

static void label_dec(iw_label *l, uint64_t v)
{
    char t[21];
    size_t k = sizeof t - 1;
    t[k] = 0;
    do {
        t[--k] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    label_str(l, t + k);
}


/* The fields a finding can be about.  While an item (startup frame, FPDU)
 * is drawn, g_anchor[] holds the tree items of its fields; each finding
 * of the item hangs on the item of the field its rule is about (the CRC
 * finding on the CRC, MPA-ENH-A-ECHO on the A bit, ...), or on the item's
 * own line when the rule is about no one field. */
enum {
    A_NONE, A_KEY, A_R, A_S, A_RES, A_REV, A_PDLEN, A_ENH, A_ENH_A, A_ENH_IRD, A_ENH_ORD, A_LEG, A_ULPDU_LEN, A_PAD,
    A_CRC, A_MARKER, A_DDP_T, A_DDP_L, A_DDP_RSVD, A_DDP_DV, A_RV, A_RDMAP_RSVD, A_OPCODE, A_QN, A_MSN, A_MO, A_TO,
    A_TERM, A_AOP, A__COUNT
};
static proto_item *g_anchor[A__COUNT];
/* The CRC of the FPDU being drawn, as its field shows it, when it is bad
 * (g_crc_bad): the CRC finding's detail says the values that way too.  A
 * CRC finding on an FPDU whose own CRC is good is about other octets
 * (those libmpa tried as an FPDU before it found the framing again): it
 * keeps libmpa's words and hangs on the FPDU's line. */
static guint32 g_crc_field, g_crc_should;
static gboolean g_crc_bad;

static unsigned anchor_of(mpa_finding_id id)
{
    switch (id) {
    case MPA_F_FRM_KEY_REQ: case MPA_F_FRM_KEY_REP: case MPA_F_FRM_KEY_CHECK: case MPA_F_LEG_STARTKEY:
    case MPA_F_LEG_RTR_FRAME:
        return A_KEY;
    case MPA_F_FRM_REV: case MPA_F_FRM_REV_ENH: return A_REV;
    case MPA_F_FRM_RES: return A_RES;
    case MPA_F_FRM_R_REQ: return A_R;
    case MPA_F_FRM_PDLEN_MAX: case MPA_F_FRM_PDLEN_MATCH: case MPA_F_FRM_S_PDLEN: return A_PDLEN;
    case MPA_F_ENH_REPLY_ENH: case MPA_F_ENH_REPLY_PLAIN: return A_S;
    case MPA_F_ENH_A_ECHO: return A_ENH_A;
    case MPA_F_ENH_BCD_ZERO: case MPA_F_ENH_INIT_OPTS: case MPA_F_ENH_RESP_OPT: case MPA_F_ENH_3FFF: return A_ENH;
    case MPA_F_ENH_ORD_LE_IRD: return A_ENH_ORD;
    case MPA_F_ENH_IRD_GE_ORD: return A_ENH_IRD;
    case MPA_F_QRK_LEG_IRDORD: return A_LEG;
    case MPA_F_FPD_PAD: return A_PAD;
    case MPA_F_FPD_ULPDU_MAX: case MPA_F_FPD_ZERO_LEN: return A_ULPDU_LEN;
    case MPA_F_CRC_VALID: return A_CRC;
    case MPA_F_MRK_PRESENT: case MPA_F_MRK_PTR: case MPA_F_MRK_SAME_FPDU: case MPA_F_MRK_RES: case MPA_F_MRK_LEN_AGREE:
    case MPA_F_QRK_MRK_PTR_ORDER: case MPA_F_QRK_MRK_GRID: case MPA_F_STA_FIRST_MARKER:
        return A_MARKER;
    case MPA_F_DDP_VERSION: case MPA_F_QRK_DDP_VERSION: return A_DDP_DV;
    case MPA_F_RDMAP_VERSION: case MPA_F_RDMAP_VERSION_SAME: return A_RV;
    case MPA_F_DDP_RSVD: return A_DDP_RSVD;
    case MPA_F_RDMAP_RSVD: return A_RDMAP_RSVD;
    case MPA_F_RDMAP_OPCODE: return A_OPCODE;
    case MPA_F_RDMAP_TAGGED: return A_DDP_T;
    case MPA_F_DDP_QN: return A_QN;
    case MPA_F_DDP_MSN_START: case MPA_F_DDP_MSN_NEXT: case MPA_F_DDP_MSN_SAME: return A_MSN;
    case MPA_F_DDP_LAST: return A_DDP_L;
    case MPA_F_DDP_MO_ORDER: return A_MO;
    case MPA_F_DDP_TO_ORDER: return A_TO;
    case MPA_F_TRM_CODE: case MPA_F_TRM_HDRCT: case MPA_F_QRK_TRM_NIBBLES: case MPA_F_QRK_TRM_ZERO: return A_TERM;
    case MPA_F_RDMAP_ATOMIC: return A_AOP;
    default: return A_NONE;
    }
}

/* Keeps pi as the item of field a (the first one drawn: a marker). */
static void anchor(unsigned a, proto_item *pi)
{
    if (a < A__COUNT && !g_anchor[a])
        g_anchor[a] = pi;
}

static void add_findings(packet_info *pinfo, proto_item *pi, const iw_frame *fr, unsigned first, unsigned n,
                         proto_tree *tree, tvbuff_t *tvb)
{
    for (unsigned i = first; i < first + n && i < fr->n_findings; i++) {
        const iw_finding *f = &iw_findings(fr)[i];
        const mpa_rule *r = mpa_rule_get(f->id);
        if (!r)
            continue;
        /* On the field it is about, when that was drawn: its fields go
         * under that field's line, the expert info on it (clicking the
         * finding in the Expert Information dialog selects the field). */
        unsigned a = anchor_of(f->id);
        proto_item *at = a == A_CRC && !g_crc_bad ? NULL : g_anchor[a];
        proto_tree *ft = at ? proto_item_add_subtree(at, ett_finding) : tree;
        proto_item *fi = proto_tree_add_string(ft, hf_finding, tvb, 0, 0, r->id);
        proto_item_set_generated(fi);
        /* The expert info's summary is fixed per id (so -z expert and the
         * Expert Information dialog group the instances): what went wrong.
         * The rule and the instance values are fields of their own. */
        proto_item *ri = proto_tree_add_string(ft, hf_finding_rule, tvb, 0, 0,
                                               wmem_strdup_printf(pinfo->pool, "%s (%s)", r->text, r->clause));
        proto_item_set_generated(ri);
        const char *msg = f->msg ? f->msg : "";
        if (f->id == MPA_F_CRC_VALID && at)
            msg = wmem_strdup_printf(pinfo->pool, "CRC field 0x%08x, should be 0x%08x", g_crc_field, g_crc_should);
        proto_item *di = proto_tree_add_string(ft, hf_finding_detail, tvb, 0, 0, msg);
        proto_item_set_generated(di);
        expert_add_info(pinfo, at ? at : pi ? pi : fi, &ei_rule[f->id]);
    }
    memset(g_anchor, 0, sizeof g_anchor);
    g_crc_bad = FALSE;
}

/* The octets of an item: this frame's payload, or the copy track kept. */
static tvbuff_t *item_tvb(const iw_item *it, packet_info *pinfo, tvbuff_t *payload, const char *what)
{
    if (it->in_frame >= 0 && payload && it->bytes_len &&
        (guint)it->in_frame + it->bytes_len <= tvb_captured_length(payload))
        return tvb_new_subset_length(payload, it->in_frame, (gint)it->bytes_len);
    if (it->bytes && payload) {
        tvbuff_t *t = tvb_new_child_real_data(payload, it->bytes, it->bytes_len, it->bytes_len);
        add_new_data_source(pinfo, t, what);
        return t;
    }
    return NULL;
}

/* A frame whose key is none of the known ones is set against the key its
 * sender's role sends (the Initiator a Request, the Responder a Reply)
 * when the role is known, else against the nearest one (libmpa's
 * guess): *diff is the first octet that differs from it. */
static mpa_key_kind unknown_key_want(const mpa_frame *f, mpa_role role, int *diff)
{
    mpa_key_kind want = role == MPA_ROLE_INITIATOR ? MPA_KEY_REQ : role == MPA_ROLE_RESPONDER ? MPA_KEY_REP : f->nearest;
    const uint8_t *wk = mpa_key_bytes(want);
    *diff = -1;
    for (size_t i = 0; wk && i < MPA_KEY_LEN && *diff < 0; i++)
        if (f->key[i] != wk[i])
            *diff = (int)i;
    return want;
}

static const char *role_owner(mpa_role role)
{
    return role == MPA_ROLE_INITIATOR ? "the Initiator's" : role == MPA_ROLE_RESPONDER ? "the Responder's" : "nearest";
}

/* The role of the sender of an unknown key: the one track gave the item,
 * else the connection's for that direction, else the opposite of the
 * peer's, else by TCP (the side that opened the connection, direction 0,
 * is the one that sends the Request). */
static mpa_role sender_role(const iw_item *it, const iw_frame *fr)
{
    if (it->u.frame.role != MPA_ROLE_UNKNOWN)
        return it->u.frame.role;
    const iw_conv *cv = fr->conv;
    int d = it->dir ? 1 : 0;
    if (cv && cv->role[d] != MPA_ROLE_UNKNOWN)
        return cv->role[d];
    if (cv && cv->role[!d] != MPA_ROLE_UNKNOWN)
        return cv->role[!d] == MPA_ROLE_INITIATOR ? MPA_ROLE_RESPONDER : MPA_ROLE_INITIATOR;
    return d == 0 ? MPA_ROLE_INITIATOR : MPA_ROLE_RESPONDER;
}

static void draw_frame(const iw_item *it, packet_info *pinfo, proto_tree *tree, tvbuff_t *payload,
                       const iw_frame *fr, wmem_strbuf_t *info)
{
    tvbuff_t *t = item_tvb(it, pinfo, payload, "Reassembled MPA startup frame");
    const mpa_frame *f = it->u.frame.fr;
    mpa_role role = f->kind == MPA_KEY_UNKNOWN ? sender_role(it, fr) : it->u.frame.role;
    char sum[256];
    if (f->kind == MPA_KEY_UNKNOWN) {
        int diff;
        mpa_key_kind want = unknown_key_want(f, role, &diff);
        snprintf(sum, sizeof sum, "MPA unknown key (%s %s expected, octet %d differs)", role_owner(role),
                 mpa_key_kind_name(want), diff);
    } else {
        mpa_frame_summary(f, sum, sizeof sum);
    }
    if (info)
        wmem_strbuf_append_printf(info, "%s%s", wmem_strbuf_get_len(info) ? ", " : "", sum);
    proto_item *ti = proto_tree_add_none_format(tree, hf_frame, t ? t : payload, 0, t ? -1 : 0, "%s", sum);
    proto_tree *st = proto_item_add_subtree(ti, ett_frame);
    if (!t || tvb_captured_length(t) < MPA_KEY_LEN) {
        /* Its octets are not at hand: what the first pass said. */
        add_findings(pinfo, ti, fr, it->first_finding, it->n_findings, st, payload);
        return;
    }
    proto_item *x = proto_tree_add_uint(st, hf_direction, t, 0, 0, it->dir);
    proto_item_set_generated(x);
    x = proto_tree_add_string(st, hf_role, t, 0, 0, mpa_role_str(it->u.frame.role));
    proto_item_set_generated(x);
    /* The values are libmpa's, decoded again from the octets when they
     * are here (private data included), else the first pass's. */
    mpa_frame d = *f;
    guint avail = t ? tvb_captured_length(t) : 0;
    if (t) {
        size_t need;
        mpa_frame_decode(tvb_get_ptr(t, 0, avail), avail, &d, &need);
    }
    size_t klen = d.kind == MPA_KEY_STARTKEY ? 15 : MPA_KEY_LEN;
    if (avail < (d.kind == MPA_KEY_STARTKEY ? 16u : (guint)MPA_FRAME_HDR_LEN)) {
        anchor(A_KEY, proto_tree_add_bytes(st, hf_key, t, 0, (gint)MIN(klen, avail), d.key));
        add_findings(pinfo, ti, fr, it->first_finding, it->n_findings, st, t);
        return;
    }
    /* The key is text ("MPA ID Req Frame"): shown as such, the field
     * keeps its octets. */
    char ktext[MPA_KEY_LEN + 1];
    for (size_t i = 0; i < klen && i < MPA_KEY_LEN; i++)
        ktext[i] = d.key[i] >= 0x20 && d.key[i] < 0x7f ? (char)d.key[i] : '.';
    ktext[MIN(klen, (size_t)MPA_KEY_LEN)] = 0;
    anchor(A_KEY, proto_tree_add_bytes_format_value(st, hf_key, t, 0, t ? (gint)klen : 0, d.key, "\"%s\"", ktext));
    x = proto_tree_add_string(st, hf_key_kind, t, 0, t ? (gint)klen : 0, mpa_key_kind_name(d.kind));
    proto_item_set_generated(x);
    if (d.kind == MPA_KEY_UNKNOWN) {
        /* Not a startup frame: the octets after the key are no control
         * word (no M, C, R, S, Rev or PD_Length is shown). */
        int diff;
        mpa_key_kind want = unknown_key_want(&d, role, &diff);
        x = proto_tree_add_string_format_value(st, hf_key_expected, t, 0, (gint)klen, mpa_key_kind_name(want),
                                               "%s (%s; octet %d differs)", mpa_key_kind_name(want), role_owner(role),
                                               diff);
        proto_item_set_generated(x);
        add_findings(pinfo, ti, fr, it->first_finding, it->n_findings, st, t);
        return;
    }
    if (d.kind == MPA_KEY_STARTKEY) {
        proto_tree_add_boolean(st, hf_sk_m, t, 15, 1, d.m ? 0x80 : 0);
        proto_tree_add_boolean(st, hf_sk_c, t, 15, 1, d.c ? 0x40 : 0);
        anchor(A_RES, proto_tree_add_uint(st, hf_sk_res, t, 15, 1, (guint32)d.res << 4));
        anchor(A_REV, proto_tree_add_uint(st, hf_sk_rev, t, 15, 1, d.rev));
    } else {
        proto_tree_add_boolean(st, hf_m, t, 16, 1, d.m ? 0x80 : 0);
        proto_tree_add_boolean(st, hf_c, t, 16, 1, d.c ? 0x40 : 0);
        if (d.kind == MPA_KEY_REQ)
            /* R means a rejection in a Reply only (RFC 5044 7.1.1); in a
             * Request it is a bit that must be zero. */
            anchor(A_R, proto_tree_add_boolean_format(st, hf_r, t, 16, 1, d.r ? 0x20 : 0,
                                                      "R: %s (in a Request: reserved, 0)", d.r ? "1" : "0"));
        else
            anchor(A_R, proto_tree_add_boolean(st, hf_r, t, 16, 1, d.r ? 0x20 : 0));
        anchor(A_S, proto_tree_add_boolean(st, hf_s, t, 16, 1, d.s ? 0x10 : 0));
        anchor(A_RES, proto_tree_add_uint(st, hf_res, t, 16, 1, d.res));
        anchor(A_REV, proto_tree_add_uint(st, hf_rev, t, 17, 1, d.rev));
        anchor(A_PDLEN, proto_tree_add_uint(st, hf_pd_length, t, 18, 2, d.pd_len));
        if (d.kind == MPA_KEY_REQ || d.kind == MPA_KEY_REP) {
            int req = d.kind == MPA_KEY_REQ;
            compat(st, req ? C_REQ : C_REP, t, 0, (gint)MIN(avail, 20u + d.pd_len), 0);
            compat(st, req ? C_KEY_REQ : C_KEY_REP, t, 0, MPA_KEY_LEN, 0);
            guint8 b = (guint8)((d.m ? 0x80 : 0) | (d.c ? 0x40 : 0) | (d.r ? 0x20 : 0));
            compat(st, C_MARKER_FLAG, t, 16, 1, b);
            compat(st, C_CRC_FLAG, t, 16, 1, b);
            compat(st, C_REJ_FLAG, t, 16, 1, b);
            compat(st, C_REV, t, 17, 1, d.rev);
            compat(st, C_PDLEN, t, 18, 2, d.pd_len);
        }
        if (d.has_enh && avail >= 24) {
            proto_item *ei = proto_tree_add_none_format(st, hf_enh, t, 20, 4,
                                                         "Enhanced connection data (RFC 6581): IRD %u ORD %u%s%s%s%s",
                                                         d.enh.ird, d.enh.ord, d.enh.a ? " A" : "", d.enh.b ? " B" : "",
                                                         d.enh.c ? " C" : "", d.enh.d ? " D" : "");
            proto_tree *et = proto_item_add_subtree(ei, ett_enh);
            anchor(A_ENH, ei);
            guint32 w = mpa_enh_pack(&d.enh);
            anchor(A_ENH_A, proto_tree_add_boolean(et, hf_enh_a, t, 20, 4, w));
            proto_tree_add_boolean(et, hf_enh_b, t, 20, 4, w);
            anchor(A_ENH_IRD, proto_tree_add_uint(et, hf_enh_ird, t, 20, 4, w));
            proto_tree_add_boolean(et, hf_enh_c, t, 20, 4, w);
            proto_tree_add_boolean(et, hf_enh_d, t, 20, 4, w);
            anchor(A_ENH_ORD, proto_tree_add_uint(et, hf_enh_ord, t, 20, 4, w));
        }
        if (d.leg.order != MPA_LEG_NONE && avail >= 28) {
            /* The IRD/ORD header of Rev 1 stacks before RFC 6581, at the
             * start of the private data, in network order or byte-swapped
             * (libmpa recognises both). */
            guint enc = d.leg.order == MPA_LEG_LE ? ENC_LITTLE_ENDIAN : ENC_BIG_ENDIAN;
            proto_item *li = proto_tree_add_none_format(st, hf_leg, t, 20, 8,
                                                         "Legacy IRD/ORD (before RFC 6581): IRD %u ORD %u%s",
                                                         (unsigned)d.leg.ird, (unsigned)d.leg.ord,
                                                         d.leg.order == MPA_LEG_LE ? ", byte-swapped" : "");
            proto_tree *lt = proto_item_add_subtree(li, ett_enh);
            anchor(A_LEG, li);
            proto_tree_add_item(lt, hf_leg_ird, t, 20, 4, enc);
            proto_tree_add_item(lt, hf_leg_ord, t, 24, 4, enc);
            proto_item_set_generated(proto_tree_add_boolean(lt, hf_leg_swapped, t, 20, 8, d.leg.order == MPA_LEG_LE));
        }
        guint pd_at = 20 + (d.has_enh ? MPA_ENH_LEN : 0);
        if (t && d.pd_len > (d.has_enh ? MPA_ENH_LEN : 0u) && avail > pd_at)
            proto_tree_add_item(st, hf_private_data, t, pd_at, MIN(avail, 20u + d.pd_len) - pd_at, ENC_NA);
    }
    add_findings(pinfo, ti, fr, it->first_finding, it->n_findings, st, t);
}

/* The DDP header h at at of t; main: the FPDU's own header (its fields
 * are what findings hang on), not one a TERMINATE copies. */
static void draw_ddp_hdr(proto_tree *tree, tvbuff_t *t, int at, const mpa_ddp_hdr *h, int main)
{
    proto_item *a[A__COUNT];
    memset(a, 0, sizeof a);
    a[A_DDP_T] = proto_tree_add_boolean(tree, hf_ddp_t, t, at, 1, h->tagged ? 0x80 : 0);
    a[A_DDP_L] = proto_tree_add_boolean(tree, hf_ddp_l, t, at, 1, h->last ? 0x40 : 0);
    a[A_DDP_RSVD] = proto_tree_add_uint(tree, hf_ddp_rsvd, t, at, 1, (guint32)h->ddp_rsvd << 2);
    a[A_DDP_DV] = proto_tree_add_uint(tree, hf_ddp_dv, t, at, 1, h->dv);
    a[A_RV] = proto_tree_add_uint(tree, hf_rdmap_rv, t, at + 1, 1, (guint32)h->rv << 6);
    a[A_RDMAP_RSVD] = proto_tree_add_uint(tree, hf_rdmap_rsvd, t, at + 1, 1, (guint32)h->rdmap_rsvd << 4);
    a[A_OPCODE] = proto_tree_add_uint(tree, hf_rdmap_opcode, t, at + 1, 1, h->opcode);
    if (h->tagged) {
        proto_tree_add_uint(tree, hf_ddp_stag, t, at + 2, 4, h->stag);
        a[A_TO] = proto_tree_add_uint64(tree, hf_ddp_to, t, at + 6, 8, h->to);
    } else {
        if (h->opcode == MPA_RDMAP_SEND_INVALIDATE || h->opcode == MPA_RDMAP_SEND_SE_INVALIDATE)
            proto_tree_add_uint(tree, hf_rdmap_inv_stag, t, at + 2, 4, h->rsvdulp);
        else
            a[A_RDMAP_RSVD] = proto_tree_add_uint(tree, hf_ddp_rsvdulp, t, at + 2, 4, h->rsvdulp);
        a[A_QN] = proto_tree_add_uint(tree, hf_ddp_qn, t, at + 6, 4, h->qn);
        a[A_MSN] = proto_tree_add_uint(tree, hf_ddp_msn, t, at + 10, 4, h->msn);
        a[A_MO] = proto_tree_add_uint(tree, hf_ddp_mo, t, at + 14, 4, h->mo);
    }
    for (unsigned k = 0; main && k < A__COUNT; k++)
        if (a[k])
            anchor(k, a[k]);
}

/* A TERMINATE for the Info column (sender: who sent it) and the
 * iwrdmap.term.name field (sender NULL): the error's name, then
 * where it comes from (the LLP has one EType, so it is not repeated). */
static void term_summary(unsigned layer, unsigned etype, unsigned code, const char *sender, char *buf, size_t cap)
{
    const char *name = mpa_term_code_name(layer, etype, code);
    int n = sender ? snprintf(buf, cap, "TERMINATE from %s: ", sender) : 0;
    if (n < 0 || (size_t)n >= cap)
        return;
    if (layer == MPA_TERM_LAYER_LLP && etype == 0)
        snprintf(buf + n, cap - (size_t)n, "%s (LLP, code 0x%02x)", name, code);
    else
        snprintf(buf + n, cap - (size_t)n, "%s (%s, %s, code 0x%02x)", name, mpa_term_layer_name(layer),
                 mpa_term_etype_name(layer, etype), code);
}

/* The sender of direction dir of a connection, by its MPA role when known,
 * else by TCP (the side that opened the connection is the client). */
static const char *sender_of(const iw_conv *cv, unsigned dir)
{
    mpa_role r = cv ? cv->role[dir & 1] : MPA_ROLE_UNKNOWN;
    if (r == MPA_ROLE_INITIATOR)
        return "the Initiator";
    if (r == MPA_ROLE_RESPONDER)
        return "the Responder";
    return dir ? "the server" : "the client";
}

/* What the DDP and RDMAP layers of one ULPDU share (the data of their
 * dissector calls). */
typedef struct ul_ctx {
    guint ulpdu_len;
    guint avail;              /* octets of u decoded */
    wmem_strbuf_t *info;
    const mpa_term_ctl *siw;  /* see draw_ulpdu */
    mpa_ddp d;
    /* The whole ULPDU for the upper layers when u holds only its headers
     * (markers removed on demand): the FPDU's octets and layout, or NULL. */
    const uint8_t *fpdu;
    const mpa_fpdu *layout;
    tvbuff_t *fpdu_tvb;
    const char *sender;       /* who sent it ("the Initiator", ...), or NULL */
} ul_ctx;

/* DDP and RDMAP headers at the start of the ULPDU u (markers removed).
 * siw: a TERMINATE's fields as Linux siw writes them, when libmpa found
 * only that reading plausible (MPA-QRK-TRM-NIBBLES), else NULL.  Each is
 * a layer of its own (iwddp, iwrdmap: called as dissectors, so they are
 * in frame.protocols), and the RDMAP payload goes to the upper layers. */
static void draw_ulpdu(proto_tree *tree, tvbuff_t *u, guint ulpdu_len, packet_info *pinfo, wmem_strbuf_t *info,
                       const mpa_term_ctl *siw, const uint8_t *fpdu, const mpa_fpdu *layout, tvbuff_t *fpdu_tvb,
                       const char *sender)
{
    ul_ctx c;
    memset(&c, 0, sizeof c);
    c.ulpdu_len = ulpdu_len;
    c.info = info;
    c.siw = siw;
    c.fpdu = fpdu;
    c.layout = layout;
    c.fpdu_tvb = fpdu_tvb;
    c.sender = sender;
    c.avail = MIN(tvb_captured_length(u), MPA_DDP_MAX_STRUCT_LEN);
    size_t need;
    mpa_status st = mpa_ddp_decode(c.avail ? tvb_get_ptr(u, 0, c.avail) : NULL, c.avail, ulpdu_len, &c.d, &need);
    char sum[256];
    if (info) {
        if (st == MPA_OK && c.d.complete && c.d.hdr.opcode == MPA_RDMAP_TERMINATE)
            term_summary(c.d.u.term.layer, c.d.u.term.etype, c.d.u.term.code, sender, sum, sizeof sum);
        else
            mpa_ddp_summary(&c.d, st, sum, sizeof sum);
        wmem_strbuf_append_printf(info, "%s%s", wmem_strbuf_get_len(info) ? ", " : "", sum);
    }
    if (st == MPA_E_ARG || !c.d.hdr_len)
        return;
    call_dissector_only(iwddp_handle, u, pinfo, tree, &c);
}

static int dissect_iwddp(tvbuff_t *u, packet_info *pinfo, proto_tree *tree, void *data)
{
    ul_ctx *c = data;
    if (!c)
        return 0;
    const mpa_ddp d = c->d;
    guint avail = c->avail, ulpdu_len = c->ulpdu_len;
    proto_item *di = proto_tree_add_item(tree, proto_iwddp, u, 0, (gint)MIN(d.hdr_len, avail), ENC_NA);
    g_col_layer = MAX(g_col_layer, 1);
    /* The protocol's name, then what follows, set at once: an appended
     * text makes the label from the name first. */
    proto_item_set_text(di, IW_LONG_DDP ", %s, %s", d.hdr.tagged ? "tagged" : "untagged",
                        d.hdr.last ? "last" : "not last");
    proto_tree *dt = proto_item_add_subtree(di, ett_ddp);
    if (avail < d.hdr_len) {
        proto_item_append_text(di, " [cut short: the header needs %zu octets, the ULPDU holds %u]", d.hdr_len,
                               ulpdu_len);
        return (int)avail;
    }
    draw_ddp_hdr(dt, u, 0, &d.hdr, 1);
    {
        const mpa_ddp_hdr *h = &d.hdr;
        guint8 b0 = (guint8)((h->tagged ? 0x80 : 0) | (h->last ? 0x40 : 0) | (h->dv & 3));
        compat(dt, C_DDP_RDMAP, u, 0, (gint)MIN(d.need_len, avail), 0);
        compat(dt, C_DDP_T, u, 0, 1, b0);
        compat(dt, C_DDP_L, u, 0, 1, b0);
        compat(dt, C_DDP_DV, u, 0, 1, b0);
        compat(dt, C_RDMA_VER, u, 1, 1, (guint64)h->rv << 6);
        compat(dt, C_RDMA_OP, u, 1, 1, h->opcode);
        if (h->tagged) {
            compat(dt, C_DDP_STAG, u, 2, 4, h->stag);
            compat(dt, C_DDP_TO, u, 6, 8, h->to);
        } else {
            if (h->opcode == MPA_RDMAP_SEND_INVALIDATE || h->opcode == MPA_RDMAP_SEND_SE_INVALIDATE)
                compat(dt, C_RDMA_INV, u, 2, 4, h->rsvdulp);
            compat(dt, C_DDP_QN, u, 6, 4, h->qn);
            compat(dt, C_DDP_MSN, u, 10, 4, h->msn);
            compat(dt, C_DDP_MO, u, 14, 4, h->mo);
        }
    }
    proto_item *pl = proto_tree_add_uint(dt, hf_ddp_payload_len, u, 0, 0, (guint32)d.payload_len);
    proto_item_set_generated(pl);
    call_dissector_only(iwrdmap_handle, u, pinfo, tree, c);
    return (int)avail;
}

/* The RDMAP payload to the upper layers (the iwarp_ddp_rdmap heuristic
 * table), with the description of the message they expect. */
static void hand_off(tvbuff_t *u, packet_info *pinfo, const ul_ctx *c)
{
    const mpa_ddp *d = &c->d;
    switch (d->hdr.opcode) {
    case MPA_RDMAP_RDMA_WRITE:
    case MPA_RDMAP_READ_REQUEST:
    case MPA_RDMAP_READ_RESPONSE:
    case MPA_RDMAP_SEND:
    case MPA_RDMAP_SEND_INVALIDATE:
    case MPA_RDMAP_SEND_SE:
    case MPA_RDMAP_SEND_SE_INVALIDATE:
        break;
    default:
        return;
    }
    if (!d->complete)
        return;
    tvbuff_t *w = u;
    if (c->fpdu && c->layout && tvb_captured_length(u) < c->ulpdu_len) {
        /* u has the headers only: the whole ULPDU, markers removed. */
        uint8_t *copy = wmem_alloc(pinfo->pool, c->ulpdu_len ? c->ulpdu_len : 1);
        mpa_fpdu_ulpdu_copy(c->fpdu, c->layout, copy, c->ulpdu_len);
        w = tvb_new_child_real_data(c->fpdu_tvb, copy, c->ulpdu_len, c->ulpdu_len);
        add_new_data_source(pinfo, w, "ULPDU without markers");
    }
    if (tvb_captured_length(w) < d->need_len)
        return;
    rdmap_info_t ri;
    rdmap_request_t rr;
    memset(&ri, 0, sizeof ri);
    ri.opcode = d->hdr.opcode;
    ri.last_flag = d->hdr.last;
    ri.is_tagged = d->hdr.tagged;
    if (d->hdr.tagged) {
        ri.steering_tag = d->hdr.stag;
        ri.tagged_offset = d->hdr.to;
    } else {
        ri.queue_number = d->hdr.qn;
        ri.message_seq_num = d->hdr.msn;
        ri.message_offset = d->hdr.mo;
    }
    if (d->hdr.opcode == MPA_RDMAP_READ_REQUEST) {
        rr.sink_stag = d->u.rreq.sink_stag;
        rr.sink_toffset = d->u.rreq.sink_to;
        rr.source_stag = d->u.rreq.src_stag;
        rr.source_toffset = d->u.rreq.src_to;
        rr.message_size = d->u.rreq.size;
        ri.read_request = &rr;
    }
    tvbuff_t *pl = tvb_new_subset_remaining(w, (gint)d->need_len);
    heur_dtbl_entry_t *hd = NULL;
    /* An upper layer that reads past the end of a payload too short for
     * it did not recognise it (RPC-over-RDMA reads its 28-octet header
     * from any Send before it looks at it): not a malformed packet of
     * ours, so the layers it left are taken back and nothing is shown. */
    guint layers = wmem_list_count(pinfo->layers);
    gboolean took = FALSE;
    TRY {
        if (ulp_heur && dissector_try_heuristic(ulp_heur, pl, pinfo, g_top_tree, &hd, &ri))
            took = g_ulp_took = TRUE;
    }
    CATCH_BOUNDS_ERRORS {
        while (wmem_list_count(pinfo->layers) > layers)
            wmem_list_remove_frame(pinfo->layers, wmem_list_tail(pinfo->layers));
    }
    ENDTRY;
    /* A payload no upper layer took is shown as data, at the top of the
     * frame as the built-in does ("Data (16 bytes)"). */
    if (!took && tvb_reported_length(pl))
        call_data_dissector(pl, pinfo, g_top_tree);
}

static int dissect_iwrdmap(tvbuff_t *u, packet_info *pinfo _U_, proto_tree *tree, void *data)
{
    ul_ctx *c = data;
    if (!c)
        return 0;
    const mpa_ddp d = c->d;
    guint avail = c->avail, ulpdu_len = c->ulpdu_len;
    const mpa_term_ctl *siw = c->siw;
    wmem_strbuf_t *info = c->info;
    proto_item *ri = proto_tree_add_item(tree, proto_iwrdmap, u, 0, (gint)MIN(d.need_len, avail), ENC_NA);
    g_col_layer = 2;
    proto_item_set_text(ri, IW_LONG_RDMAP ", %s", val_to_str_const(d.hdr.opcode, opcode_vals, "Reserved"));
    proto_tree *rt = proto_item_add_subtree(ri, ett_rdmap);
    int at = (int)d.hdr_len;
    if (!d.complete) {
        /* The ULPDU ends inside the RDMAP header: no field of it is drawn
         * from octets that are not there (libmpa's finding says why). */
        proto_item_append_text(ri, " [cut short: the header needs %zu octets, the ULPDU holds %u]", d.need_len,
                               ulpdu_len);
        return (int)avail;
    }
    switch (d.hdr.opcode) {
    case MPA_RDMAP_READ_REQUEST:
        proto_tree_add_uint(rt, hf_rr_sink_stag, u, at, 4, d.u.rreq.sink_stag);
        proto_tree_add_uint64(rt, hf_rr_sink_to, u, at + 4, 8, d.u.rreq.sink_to);
        proto_tree_add_uint(rt, hf_rr_size, u, at + 12, 4, d.u.rreq.size);
        proto_tree_add_uint(rt, hf_rr_src_stag, u, at + 16, 4, d.u.rreq.src_stag);
        proto_tree_add_uint64(rt, hf_rr_src_to, u, at + 20, 8, d.u.rreq.src_to);
        compat(rt, C_RR_SINKSTAG, u, at, 4, d.u.rreq.sink_stag);
        compat(rt, C_RR_SINKTO, u, at + 4, 8, d.u.rreq.sink_to);
        compat(rt, C_RR_SIZE, u, at + 12, 4, d.u.rreq.size);
        compat(rt, C_RR_SRCSTAG, u, at + 16, 4, d.u.rreq.src_stag);
        compat(rt, C_RR_SRCTO, u, at + 20, 8, d.u.rreq.src_to);
        break;
    case MPA_RDMAP_TERMINATE: {
        const mpa_term *tm = &d.u.term;
        g_term_seen = TRUE;
        char name[256];
        term_summary(tm->layer, tm->etype, tm->code, NULL, name, sizeof name);
        proto_item *ti = proto_tree_add_string(rt, hf_term_name, u, at, 4, name);
        proto_item_set_generated(ti);
        anchor(A_TERM, ti);
        if (siw) {
            char how[160];
            term_summary(siw->layer, siw->etype, siw->code, NULL, how, sizeof how);
            snprintf(name, sizeof name, "%s, M=%u D=%u R=%u", how, siw->m, siw->d, siw->r);
            proto_item_set_generated(proto_tree_add_string(rt, hf_term_siw_name, u, at, 4, name));
            if (info)
                wmem_strbuf_append_printf(info, " [as siw writes it: %s]", how);
        }
        proto_tree *tt = proto_item_add_subtree(ti, ett_term);
        proto_tree_add_uint(tt, hf_term_layer, u, at, 1, (guint32)tm->layer << 4);
        /* EType and Error Code are named per Layer (RFC 5040 4.8, RFC
         * 5041 7.2, RFC 5044 8), as the built-in's per-layer fields are. */
        proto_tree_add_uint_format_value(tt, hf_term_etype, u, at, 1, tm->etype, "%s (%u)",
                                         mpa_term_etype_name(tm->layer, tm->etype), tm->etype);
        proto_tree_add_uint_format_value(tt, hf_term_code, u, at + 1, 1, tm->code, "%s (0x%02x)",
                                         mpa_term_code_name(tm->layer, tm->etype, tm->code), tm->code);
        guint32 w = (guint32)tm->m << 15 | (guint32)tm->d << 14 | (guint32)tm->r << 13 | tm->rsvd;
        proto_tree_add_boolean(tt, hf_term_m, u, at + 2, 2, w);
        proto_tree_add_boolean(tt, hf_term_d, u, at + 2, 2, w);
        proto_tree_add_boolean(tt, hf_term_r, u, at + 2, 2, w);
        proto_tree_add_uint(tt, hf_term_rsvd, u, at + 2, 2, w);
        int p = at + 4;
        if (tm->seglen_present) {
            proto_tree_add_uint(tt, hf_term_seglen, u, p, 2, tm->seglen);
            p += 2;
        }
        if (tm->has_ddp_hdr && d.complete) {
            proto_item *hi = proto_tree_add_item(tt, hf_term_ddp_hdr, u, p, (gint)tm->ddp_hdr_len, ENC_NA);
            draw_ddp_hdr(proto_item_add_subtree(hi, ett_term_ddp), u, p, &tm->ddp_hdr, 0);
            p += (int)tm->ddp_hdr_len;
        }
        if (tm->r && d.complete)
            proto_tree_add_item(tt, hf_term_rdma_hdr, u, p, (gint)tm->rdma_hdr_len, ENC_NA);
        break;
    }
    case MPA_RDMAP_ATOMIC_REQUEST: {
        const mpa_atomic_req *a = &d.u.atomic_req;
        proto_tree_add_uint(rt, hf_at_rsvd, u, at, 4, a->rsvd << 4);
        anchor(A_AOP, proto_tree_add_uint_format_value(rt, hf_at_aop, u, at, 4, a->aop, "%u (%s)", a->aop,
                                                       mpa_atomic_opcode_name(a->aop)));
        proto_tree_add_uint(rt, hf_at_req_id, u, at + 4, 4, a->req_id);
        proto_tree_add_uint(rt, hf_at_stag, u, at + 8, 4, a->stag);
        proto_tree_add_uint64(rt, hf_at_to, u, at + 12, 8, a->to);
        proto_tree_add_uint64(rt, hf_at_add_swap, u, at + 20, 8, a->add_swap_data);
        proto_tree_add_uint64(rt, hf_at_add_swap_mask, u, at + 28, 8, a->add_swap_mask);
        proto_tree_add_uint64(rt, hf_at_compare, u, at + 36, 8, a->compare_data);
        proto_tree_add_uint64(rt, hf_at_compare_mask, u, at + 44, 8, a->compare_mask);
        break;
    }
    case MPA_RDMAP_ATOMIC_RESPONSE:
        proto_tree_add_uint(rt, hf_ar_orig_req_id, u, at, 4, d.u.atomic_resp.orig_req_id);
        proto_tree_add_uint64(rt, hf_ar_orig_value, u, at + 4, 8, d.u.atomic_resp.orig_value);
        break;
    case MPA_RDMAP_IMMEDIATE:
    case MPA_RDMAP_IMMEDIATE_SE:
        proto_tree_add_uint64(rt, hf_imm_data, u, at, 8, d.u.imm.data);
        break;
    default:
        break;
    }
    hand_off(u, pinfo, c);
    return (int)avail;
}

static const char *rtr_word(unsigned k)
{
    return k == MPA_RTR_SEND ? "zero-length Send" : k == MPA_RTR_WRITE ? "zero-length RDMA Write"
                                                   : k == MPA_RTR_READ ? "zero-length RDMA Read Request" : "none";
}

static void draw_fpdu(const iw_item *it, packet_info *pinfo, proto_tree *tree, tvbuff_t *payload, const iw_frame *fr,
                      wmem_strbuf_t *info)
{
    tvbuff_t *t = item_tvb(it, pinfo, payload, "Reassembled FPDU");
    /* "FPDU #N, ULPDU L octets[, markers][, CRC good|bad]" */
    iw_label l = {.n = 0};
    if (lines_shown(tree)) {
        label_str(&l, "FPDU #");
        label_dec(&l, it->u.fpdu.index + 1);
        label_str(&l, ", ULPDU ");
        label_dec(&l, it->u.fpdu.ulpdu_len);
        label_str(&l, " octets");
        label_str(&l, it->u.fpdu.n_markers ? ", markers" : "");
        label_str(&l, it->u.fpdu.crc_checked ? (it->u.fpdu.crc_ok ? ", CRC good" : ", CRC bad") : "");
    }
    proto_item *ti = proto_tree_add_none_format(tree, hf_fpdu, t ? t : payload, 0, t ? -1 : 0, "%s", l.s);
    proto_tree *ft = proto_item_add_subtree(ti, ett_fpdu);
    proto_item *x = proto_tree_add_uint(ft, hf_direction, t, 0, 0, it->dir);
    proto_item_set_generated(x);
    x = proto_tree_add_uint64(ft, hf_fpdu_index, t, 0, 0, it->u.fpdu.index + 1);
    proto_item_set_generated(x);
    if (it->first_frame != pinfo->num || it->in_frame < 0) {
        x = proto_tree_add_uint(ft, hf_fpdu_first_frame, t, 0, 0, it->first_frame);
        proto_item_set_generated(x);
    }
    if (it->u.fpdu.rtr) {
        x = proto_tree_add_string(ft, hf_rtr, t, 0, 0, rtr_word(it->u.fpdu.rtr));
        proto_item_set_generated(x);
        x = proto_tree_add_boolean(ft, hf_rtr_negotiated, t, 0, 0, it->u.fpdu.negotiated_rtr);
        proto_item_set_generated(x);
    }
    if (!t || tvb_captured_length(t) < it->len) {
        /* The octets are gone (too long to keep): the verdicts remain. */
        if (info)
            wmem_strbuf_append_printf(info, "%sFPDU ULPDU %u octets", wmem_strbuf_get_len(info) ? ", " : "",
                                      it->u.fpdu.ulpdu_len);
        add_findings(pinfo, ti, fr, it->first_finding, it->n_findings, ft, t ? t : payload);
        return;
    }
    mpa_fpdu_cfg cfg;
    cfg.markers = it->u.fpdu.markers;
    cfg.crc = it->u.fpdu.crc_checked;
    cfg.mark_base = it->seq - it->u.fpdu.mphase;
    mpa_fpdu f;
    size_t need;
    const uint8_t *p = tvb_get_ptr(t, 0, it->len);
    if (mpa_fpdu_layout_mf(p, it->len, it->seq, &cfg, &it->u.fpdu.mform, &f, &need) != MPA_OK) {
        add_findings(pinfo, ti, fr, it->first_finding, it->n_findings, ft, t);
        return;
    }
    for (unsigned k = 0; k < f.n_markers; k++) {
        const mpa_marker *m = &f.markers[k];
        /* FPDUPTR counts back from the marker to the FPDU's start: 0 for
         * a marker that stands right before this FPDU's header. */
        iw_label ml = {.n = 0};
        if (!lines_shown(ft)) {
            /* no text */
        } else if (m->buf_off == 0) {
            label_str(&ml, "Marker before the FPDU header: FPDUPTR ");
            label_dec(&ml, m->fpduptr);
        } else {
            label_str(&ml, "Marker in the FPDU: FPDUPTR ");
            label_dec(&ml, m->fpduptr);
            label_str(&ml, " (the FPDU starts ");
            label_dec(&ml, m->fpduptr);
            label_str(&ml, " octets before it)");
        }
        proto_item *mi = proto_tree_add_none_format(ft, hf_marker, t, (gint)m->buf_off, MPA_MARKER_LEN, "%s", ml.s);
        proto_tree *mt = proto_item_add_subtree(mi, ett_marker);
        anchor(A_MARKER, mi);
        proto_tree_add_uint(mt, hf_marker_res, t, (gint)m->buf_off, 2, m->reserved);
        proto_tree_add_uint(mt, hf_marker_ptr, t, (gint)m->buf_off + 2, 2, m->fpduptr);
        compat(mt, C_FPDUPTR, t, (gint)m->buf_off + 2, 2, m->fpduptr);
    }
    int at = f.leading_marker ? MPA_MARKER_LEN : 0;
    anchor(A_ULPDU_LEN, proto_tree_add_uint(ft, hf_ulpdu_length, t, at, 2, f.ulpdu_len));
    compat(ft, C_FPDU, t, 0, (gint)f.wire_len, 0);
    compat(ft, C_ULPDULEN, t, at, 2, f.ulpdu_len);
    if (it->u.fpdu.crc_checked)
        compat(ft, C_CRC_CHECK, t, (gint)f.wire_len - 4, 4, tvb_get_ntohl(t, (gint)f.wire_len - 4)); /* as the built-in reads it */
    tvbuff_t *u;
    if (f.ulpdu) {
        u = tvb_new_subset_length(t, at + 2, f.ulpdu_len);
        proto_tree_add_item(ft, hf_ulpdu, u, 0, -1, ENC_NA);
    } else if (proto_field_is_referenced(tree, hf_ulpdu)) {
        /* Shown (or asked for): the whole ULPDU without its markers. */
        uint8_t *copy = wmem_alloc(pinfo->pool, f.ulpdu_len ? f.ulpdu_len : 1);
        mpa_fpdu_ulpdu_copy(p, &f, copy, f.ulpdu_len);
        u = tvb_new_child_real_data(t, copy, f.ulpdu_len, f.ulpdu_len);
        add_new_data_source(pinfo, u, "ULPDU without markers");
        proto_tree_add_item(ft, hf_ulpdu, u, 0, -1, ENC_NA);
    } else {
        /* Not shown: the headers are all that is read. */
        guint n = MIN(f.ulpdu_len, MPA_DDP_MAX_STRUCT_LEN);
        uint8_t *copy = wmem_alloc(pinfo->pool, n ? n : 1);
        mpa_fpdu_ulpdu_copy(p, &f, copy, n);
        u = tvb_new_child_real_data(t, copy, n, n);
    }
    int crc_at = (int)f.wire_len - 4;
    if (f.pad_len)
        anchor(A_PAD, proto_tree_add_item(ft, hf_pad, t, crc_at - f.pad_len, f.pad_len, ENC_NA));
    /* The CRC field as Wireshark shows the CRC32C of SCTP and iSCSI: the
     * four octets read most significant first, as the byte pane shows
     * them, and "should be" in the same convention.  libmpa's values are
     * the CRC register (the octets are its least significant first), so
     * the computed one is swapped; the register is a field of its own. */
    guint32 should = GUINT32_SWAP_LE_BE(it->u.fpdu.crc_calc);
    proto_item *ci = proto_tree_add_checksum(ft, t, crc_at, hf_crc, hf_crc_status, NULL, pinfo, should, ENC_BIG_ENDIAN,
                                             it->u.fpdu.crc_checked ? PROTO_CHECKSUM_VERIFY : PROTO_CHECKSUM_NO_FLAGS);
    anchor(A_CRC, ci);
    g_crc_field = tvb_get_ntohl(t, crc_at);
    g_crc_should = should;
    g_crc_bad = it->u.fpdu.crc_checked && !it->u.fpdu.crc_ok;
    if (it->u.fpdu.crc_checked) {
        proto_tree *ct = proto_item_add_subtree(ci, ett_crc);
        x = proto_tree_add_uint(ct, hf_crc_computed, t, crc_at, 4, should);
        proto_item_set_generated(x);
        x = proto_tree_add_uint(ct, hf_crc_register, t, crc_at, 4, it->u.fpdu.crc_calc);
        proto_item_set_generated(x);
    }
    /* Whatever happens drawing the headers, the verdicts are attached. */
    TRY {
        draw_ulpdu(ft, u, f.ulpdu_len, pinfo, info,
                   it->u.fpdu.term_quirk == MPA_TERM_LE_BITFIELD ? &it->u.fpdu.term_read : NULL, p, &f, t,
                   sender_of(fr->conv, it->dir));
    }
    CATCH_NONFATAL_ERRORS {
        show_exception(u, pinfo, ft, EXCEPT_CODE, GET_MESSAGE);
    }
    ENDTRY;
    add_findings(pinfo, ti, fr, it->first_finding, it->n_findings, ft, t);
}

/* The first octets of an FPDU the capture cut (a snap length, a hole,
 * the end of the capture): decoded as far as they go, its DDP and RDMAP
 * headers included when they were captured. */
static void draw_cut_fpdu(const iw_item *it, packet_info *pinfo, proto_tree *tree, tvbuff_t *t, const iw_frame *fr,
                          wmem_strbuf_t *info)
{
    const iw_conv *cv = fr->conv;
    mpa_fpdu_cfg cfg;
    cfg.markers = cv->markers[it->dir];
    cfg.crc = cv->crc[it->dir];
    cfg.mark_base = cv->mark_base[it->dir];
    guint n = tvb_captured_length(t);
    mpa_fpdu_head *h = wmem_new(pinfo->pool, mpa_fpdu_head);
    mpa_fpdu_head_decode_mf(n ? tvb_get_ptr(t, 0, n) : NULL, n, it->seq, &cfg, &cv->mform[it->dir], h);
    proto_item *ti;
    if (h->have_len)
        ti = proto_tree_add_none_format(tree, hf_fpdu, t, 0, -1,
                                        "FPDU, ULPDU %u octets, cut by the capture: %u of %u octets captured (%s)",
                                        h->ulpdu_len, n, h->wire_len, it->u.data.why);
    else
        ti = proto_tree_add_none_format(tree, hf_fpdu, t, 0, -1, "FPDU, cut by the capture: %u octets captured (%s)",
                                        n, it->u.data.why);
    proto_tree *ft = proto_item_add_subtree(ti, ett_fpdu);
    proto_item_set_generated(proto_tree_add_uint(ft, hf_direction, t, 0, 0, it->dir));
    proto_item_set_generated(proto_tree_add_uint64(ft, hf_not_mpa, t, 0, 0, it->u.data.len));
    proto_item_set_generated(proto_tree_add_string(ft, hf_not_mpa_why, t, 0, 0, it->u.data.why));
    for (unsigned k = 0; k < h->n_markers; k++) {
        const mpa_marker *m = &h->markers[k];
        proto_item *mi = proto_tree_add_none_format(ft, hf_marker, t, (gint)m->buf_off, MPA_MARKER_LEN,
                                                    "Marker: FPDUPTR %u", m->fpduptr);
        proto_tree *mt = proto_item_add_subtree(mi, ett_marker);
        proto_tree_add_uint(mt, hf_marker_res, t, (gint)m->buf_off, 2, m->reserved);
        proto_tree_add_uint(mt, hf_marker_ptr, t, (gint)m->buf_off + 2, 2, m->fpduptr);
    }
    if (info)
        wmem_strbuf_append_printf(info, "%sFPDU cut by the capture", wmem_strbuf_get_len(info) ? ", " : "");
    if (h->have_len) {
        anchor(A_ULPDU_LEN, proto_tree_add_uint(ft, hf_ulpdu_length, t, (gint)h->len_off, 2, h->ulpdu_len));
        /* The ULPDU as far as captured; reading past it is "limited
         * during capture", as Wireshark says of a snap length. */
        uint8_t *copy = wmem_memdup(pinfo->pool, h->ulpdu, h->ulpdu_avail ? h->ulpdu_avail : 1);
        tvbuff_t *u = tvb_new_child_real_data(t, copy, (guint)h->ulpdu_avail, h->ulpdu_len);
        TRY {
            draw_ulpdu(ft, u, h->ulpdu_len, pinfo, info, NULL, NULL, NULL, NULL, sender_of(cv, it->dir));
        }
        CATCH_NONFATAL_ERRORS {
            show_exception(u, pinfo, ft, EXCEPT_CODE, GET_MESSAGE);
        }
        ENDTRY;
    }
    add_findings(pinfo, ti, fr, it->first_finding, it->n_findings, ft, t);
}

/* "address:port" of side k of a connection ("[v6]:port" for IPv6), as
 * the Initiator and Responder fields show it: made once per connection
 * (every frame of it shows them). */
static const char *endpoint_str(iw_conv *cv, int k)
{
    if (!cv->endpoint[k]) {
        char *a = address_to_str(NULL, &cv->addr[k]);
        cv->endpoint[k] =
            wmem_strdup_printf(wmem_file_scope(), cv->addr[k].type == AT_IPv6 ? "[%s]:%u" : "%s:%u", a, cv->port[k]);
        wmem_free(NULL, a);
    }
    return cv->endpoint[k];
}

static void draw_conv(proto_tree *tree, tvbuff_t *tvb, iw_conv *cv)
{
    iw_label l = {.n = 0};
    if (lines_shown(tree)) {
        label_str(&l, "Connection (tcp.stream ");
        label_dec(&l, cv->stream);
        label_str(&l, cv->midstream ? "): captured mid-stream" : ")");
    }
    proto_item *ci = proto_tree_add_none_format(tree, hf_conv, tvb, 0, 0, "%s", l.s);
    proto_item_set_generated(ci);
    proto_tree *ct = proto_item_add_subtree(ci, ett_conv);
    int init = cv->role[0] == MPA_ROLE_INITIATOR ? 0 : cv->role[1] == MPA_ROLE_INITIATOR ? 1 : -1;
    if (init >= 0) {
        /* The value is what is shown, so "iwmpa.conv.initiator == ..."
         * matches what the user reads ([v6]:port for IPv6). */
        for (int k = 0; k < 2; k++)
            proto_item_set_generated(proto_tree_add_string(ct, k ? hf_conv_responder : hf_conv_initiator, tvb, 0, 0,
                                                           endpoint_str(cv, k ? !init : init)));
        if (cv->have_frame[init])
            proto_item_set_generated(proto_tree_add_uint(ct, hf_conv_request_frame, tvb, 0, 0, cv->frame_num[init]));
        if (cv->have_frame[!init])
            proto_item_set_generated(proto_tree_add_uint(ct, hf_conv_reply_frame, tvb, 0, 0, cv->frame_num[!init]));
        if (cv->have_frame[init] && cv->have_frame[!init]) {
            const mpa_frame *q = &cv->frame[init], *p = &cv->frame[!init];
            proto_item_set_generated(proto_tree_add_uint(ct, hf_conv_rev, tvb, 0, 0, p->rev));
            proto_item_set_generated(proto_tree_add_boolean(ct, hf_conv_enhanced, tvb, 0, 0, q->has_enh && p->has_enh));
            if (q->has_enh && p->has_enh) {
                proto_item_set_generated(proto_tree_add_uint(ct, hf_conv_ird, tvb, 0, 0, p->enh.ird));
                proto_item_set_generated(proto_tree_add_uint(ct, hf_conv_ord, tvb, 0, 0, p->enh.ord));
            }
        }
    }
    for (int dir = 0; dir < 2; dir++)
        if (cv->fpdu_mode[dir])
            proto_item_set_generated(
                proto_tree_add_boolean(ct, dir ? hf_conv_markers_s2c : hf_conv_markers_c2s, tvb, 0, 0, cv->markers[dir]));
    if (cv->fpdu_mode[0] || cv->fpdu_mode[1])
        proto_item_set_generated(
            proto_tree_add_boolean(ct, hf_conv_crc, tvb, 0, 0, cv->crc[cv->fpdu_mode[0] ? 0 : 1]));
    if (cv->rtr_frame) {
        proto_item_set_generated(proto_tree_add_string(ct, hf_conv_rtr, tvb, 0, 0, rtr_word(cv->rtr)));
        proto_item_set_generated(proto_tree_add_uint(ct, hf_conv_rtr_frame, tvb, 0, 0, cv->rtr_frame));
    }
    proto_item_set_generated(proto_tree_add_boolean(ct, hf_conv_midstream, tvb, 0, 0, cv->midstream));
}

/* The Info column's marker of a frame's worst finding: "[CRC bad]" for
 * MPA-CRC-VALID, "[ID]" for any other id; the worst is the most severe
 * (MUST, then SHOULD, then note), the first of them in the frame.  A
 * TERMINATE outranks every finding but a MUST one: "[TERMINATE]".  NULL
 * when there is nothing to mark. */
static const char *info_marker(const iw_frame *fr, gboolean term, packet_info *pinfo)
{
    const mpa_rule *worst = NULL;
    for (unsigned i = 0; i < fr->n_findings; i++) {
        const mpa_rule *r = mpa_rule_get(iw_findings(fr)[i].id);
        if (r && (!worst || r->severity > worst->severity))
            worst = r;
    }
    if (term && (!worst || worst->severity < MPA_SEV_ERROR))
        return "[TERMINATE]";
    if (!worst)
        return NULL;
    if (!strcmp(worst->id, "MPA-CRC-VALID"))
        return "[CRC bad]";
    return wmem_strdup_printf(pinfo->pool, "[%s]", worst->id);
}

/* The summary on the top-level line: what the frame holds (startup
 * frames by name, FPDUs by number, octets that are not MPA, a hole), and
 * the Info marker. */
static void top_summary(proto_item *ti, const iw_frame *fr, const char *mark)
{
    /* The protocol's name and what follows, set at once (as appending
     * each piece would leave it: cut to what a line holds). */
    if (!lines_shown(ti))
        return;
    iw_label l = {.n = 0};
    label_str(&l, IW_LONG_MPA);
    size_t bare = l.n;
    uint64_t first = 0, last = 0;
    unsigned n_fpdu = 0, dir = fr->dir;
    for (unsigned k = 0; k < fr->n_items; k++) {
        const iw_item *it = &fr->items[k];
        switch ((iw_kind)it->kind) {
        case IW_FRAME:
            label_str(&l, ", ");
            label_str(&l, mpa_key_kind_name(it->u.frame.fr->kind));
            break;
        case IW_FPDU:
            if (!n_fpdu++)
                first = it->u.fpdu.index;
            last = it->u.fpdu.index;
            dir = it->dir;
            break;
        case IW_DATA:
            label_str(&l, it->u.data.fpdu_cut ? ", FPDU cut by the capture" : ", not MPA");
            break;
        case IW_HOLE:
            label_str(&l, ", capture hole");
            break;
        case IW_MODE:
            break;
        }
    }
    if (n_fpdu) {
        label_str(&l, ", ");
        if (n_fpdu > 1) {
            label_dec(&l, n_fpdu);
            label_str(&l, " FPDUs ");
        } else {
            label_str(&l, "FPDU ");
        }
        label_str(&l, "#");
        label_dec(&l, first + 1);
        if (n_fpdu > 1) {
            label_str(&l, "-#");
            label_dec(&l, last + 1);
        }
        label_str(&l, " (");
        label_str(&l, dir_vals[dir & 1].strptr);
        label_str(&l, ")");
    }
    if (mark) {
        label_str(&l, " ");
        label_str(&l, mark);
    }
    if (l.n > bare)
        proto_item_set_text(ti, "%s", l.s);
}

/* The frame whose first pass was made by the in-layer path (TCP handed
 * its payload to iwmpa): the postdissector leaves it alone. */
static guint32 g_layer_num;

/* First pass: follow the frame's TCP segment and keep what happened in
 * it.  *seg gets the segment (seg->payload_len 0 when none).  in_layer:
 * drawn by TCP's call, not the postdissector. */
static iw_frame *first_pass(packet_info *pinfo, proto_tree *tree, iw_seg *seg, int in_layer)
{
    seg->payload_len = 0;
    if (!find_tcp(pinfo, tree, seg))
        return NULL;
    /* Only when Decode As gave a port to iwmpa is a conversation
     * looked up (it costs, on every TCP frame). */
    conversation_t *conv = decode_as_used ? find_conversation_pinfo(pinfo, 0) : NULL;
    int forced = conv && conversation_get_proto_data(conv, proto_iwmpa) != NULL;
    int became_mpa, first_seen;
    iw_frame *fr = iw_track(seg, pinfo->num, &g_prefs, forced, &became_mpa, &first_seen, pinfo->pool);
    if (fr) {
        int src = seg->payload_len ? data_src_index(pinfo, seg->tvb) : -1;
        fr->pay_src = (int16_t)src;
        fr->pay_off = seg->payload_off;
        fr->pay_len = src >= 0 ? seg->payload_len : 0;
        fr->in_layer = (uint8_t)in_layer;
        iw_frame_keep(fr);
    }
    if (first_seen && pref_in_charge) {
        /* A connection opens (its SYN), or its first frame in the
         * capture when its SYN is not there: until it is known to speak
         * MPA, TCP offers its payload to the probe first (before the
         * port's dissector), which takes a startup frame and declines
         * anything else.  One look-up per connection. */
        conversation_t *c = find_or_create_conversation(pinfo);
        if (c && !conversation_get_dissector(c, pinfo->num + 1))
            conversation_set_dissector_from_frame_number(c, pinfo->num + 1, iwmpa_probe_handle);
    }
    if (became_mpa) {
        /* From the next frame on, TCP hands this connection's payload
         * to iwmpa first: no other dissector takes MPA octets for its
         * own (SMB on 445...), no heuristic is tried on them, and the
         * frame is drawn during TCP's dissection (dissect_iwmpa_layer). */
        conversation_t *c = find_or_create_conversation(pinfo);
        if (c)
            conversation_set_dissector_from_frame_number(c, pinfo->num + 1, iwmpa_claim_handle);
    }
    return fr;
}

/* Draws frame fr: the iwmpa tree, its DDP and RDMAP layers, the upper
 * layers, the columns.  seg: the first pass's segment (NULL on a later
 * pass: the payload is found again where the first pass saw it). */
static void render(iw_frame *fr, const iw_seg *seg, tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree)
{
    g_top_tree = tree;
    g_ulp_took = FALSE;
    g_col_layer = 0;
    g_term_seen = FALSE;
    tvbuff_t *payload = NULL;
    if (seg) {
        if (seg->payload_len)
            payload = tvb_new_subset_length(seg->tvb, seg->payload_off, (gint)seg->payload_len);
    } else {
        payload = payload_again(pinfo, fr);
    }
    tvbuff_t *anchor = payload ? payload : tvb;
    proto_item *ti = proto_tree_add_item(tree, proto_iwmpa, anchor, 0, payload ? -1 : 0, ENC_NA);
    proto_tree *mt = proto_item_add_subtree(ti, ett_iwmpa);
    draw_conv(mt, anchor, fr->conv);
    add_findings(pinfo, ti, fr, 0, fr->n_loose, mt, anchor);
    /* The Info column is built only where columns are. */
    wmem_strbuf_t *info = pinfo->cinfo ? wmem_strbuf_new(pinfo->pool, "") : NULL;
    /* A frame without payload of its own (the peer's ACK that declared a
     * hole, so that the octets queued behind it were decoded now) draws
     * the FPDUs from track's copy, CRC and headers included: an empty
     * payload is their parent. */
    tvbuff_t *fpdu_src = payload ? payload : tvb_new_subset_length(tvb, 0, 0);
    for (unsigned k = 0; k < fr->n_items; k++) {
        const iw_item *it = &fr->items[k];
        switch ((iw_kind)it->kind) {
        case IW_FRAME:
            if (!k || fr->items[k - 1].kind != IW_FRAME)
                compat(mt, C_MPA, payload ? payload : anchor, 0, 0, 0);
            draw_frame(it, pinfo, mt, payload, fr, info);
            break;
        case IW_FPDU:
            compat(mt, C_MPA, payload ? payload : anchor, 0, 0, 0);
            draw_fpdu(it, pinfo, mt, fpdu_src, fr, info);
            break;
        case IW_DATA: {
            if (it->u.data.fpdu_cut) {
                tvbuff_t *c = item_tvb(it, pinfo, payload, "Cut FPDU");
                if (c && tvb_captured_length(c)) {
                    draw_cut_fpdu(it, pinfo, mt, c, fr, info);
                    break;
                }
            }
            tvbuff_t *t = item_tvb(it, pinfo, payload, "Octets that are not MPA");
            proto_item *di = proto_tree_add_none_format(mt, hf_not_mpa_data, t ? t : anchor, 0, t ? -1 : 0,
                                                        "Not MPA: %" PRIu64 " octets (%s)", it->u.data.len,
                                                        it->u.data.why);
            proto_tree *dt = proto_item_add_subtree(di, ett_fpdu);
            proto_item_set_generated(proto_tree_add_uint64(dt, hf_not_mpa, anchor, 0, 0, it->u.data.len));
            proto_item_set_generated(proto_tree_add_string(dt, hf_not_mpa_why, anchor, 0, 0, it->u.data.why));
            add_findings(pinfo, di, fr, it->first_finding, it->n_findings, dt, anchor);
            break;
        }
        case IW_HOLE: {
            proto_item *hi = proto_tree_add_uint64_format_value(mt, hf_hole, anchor, 0, 0, it->u.data.len,
                                                                "%" PRIu64 " octets of %s missing from the capture",
                                                                it->u.data.len, dir_vals[it->dir].strptr);
            proto_item_set_generated(hi);
            add_findings(pinfo, hi, fr, it->first_finding, it->n_findings, mt, anchor);
            break;
        }
        case IW_MODE: {
            proto_item *mi = proto_tree_add_string_format_value(
                mt, hf_mode, anchor, 0, 0, mpa_dir_mode_str((mpa_dir_mode)it->u.mode.mode), "%s %s%s%s (%s)",
                dir_vals[it->dir].strptr, mpa_dir_mode_str((mpa_dir_mode)it->u.mode.mode),
                it->u.mode.mode == MPA_MODE_FPDU ? (it->u.mode.markers ? ", markers on" : ", markers off") : "",
                it->u.mode.mode == MPA_MODE_FPDU ? (it->u.mode.crc ? ", CRC on" : ", CRC off") : "",
                it->u.mode.why ? it->u.mode.why : "");
            proto_item_set_generated(mi);
            add_findings(pinfo, mi, fr, it->first_finding, it->n_findings, mt, anchor);
            break;
        }
        }
    }
    if (fr->held) {
        proto_item *hi = proto_tree_add_uint_format_value(mt, hf_held, anchor, 0, 0, fr->held,
                                                          "%u octets of %s (decoded with a later segment)", fr->held,
                                                          dir_vals[fr->dir & 1].strptr);
        proto_item_set_generated(hi);
    }
    /* The columns tell the MPA story where there is one (a frame with
     * only a FIN or an ACK keeps TCP's); held octets are said after it. */
    const char *mark = info_marker(fr, g_term_seen, pinfo);
    top_summary(ti, fr, mark);
    if (info && wmem_strbuf_get_len(info) && !g_ulp_took) {
        if (mark)
            wmem_strbuf_append_printf(info, " %s", mark);
        col_set_str(pinfo->cinfo, COL_PROTOCOL, col_proto[g_col_layer]);
        col_add_str(pinfo->cinfo, COL_INFO, wmem_strbuf_get_str(info));
    } else if (mark) {
        col_append_fstr(pinfo->cinfo, COL_INFO, " %s", mark);
    }
    if (fr->held)
        col_append_fstr(pinfo->cinfo, COL_INFO, " [MPA: %u octets held]", fr->held);
    tap_queue_packet(iw_tap, pinfo, fr);
}

static int dissect_iwmpa_post(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
    if (!pref_in_charge)
        return 0;
    iw_seg seg;
    iw_frame *fr;
    if (!PINFO_FD_VISITED(pinfo)) {
        if (g_layer_num == pinfo->num)
            return 0; /* done by the in-layer path */
        fr = first_pass(pinfo, tree, &seg, 0);
    } else {
        fr = iw_frame_get(pinfo->num, pinfo->pool);
        if (fr && fr->in_layer)
            return 0;
    }
    if (!fr)
        return 0;
    render(fr, PINFO_FD_VISITED(pinfo) ? NULL : &seg, tvb, pinfo, tree);
    return tvb_captured_length(tvb);
}

/* The payload of a connection known to speak MPA (or given to iwmpa by
 * Decode As), as TCP hands it over: the frame is followed and drawn here,
 * so iwmpa, iwddp, iwrdmap and the upper layers are layers of the frame
 * (frame.protocols, Protocol Hierarchy); the postdissector then leaves
 * it alone.  It also keeps the octets from other dissectors. */
static int dissect_iwmpa_layer(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree)
{
    col_set_str(pinfo->cinfo, COL_PROTOCOL, IW_SHORT_MPA);
    if (!pref_in_charge)
        return tvb_captured_length(tvb);
    iw_seg seg;
    iw_frame *fr;
    if (!PINFO_FD_VISITED(pinfo)) {
        if (g_layer_num == pinfo->num)
            return tvb_captured_length(tvb); /* a second payload in the frame: the postdissector's */
        g_layer_num = pinfo->num;
        fr = first_pass(pinfo, tree, &seg, 1);
    } else {
        fr = iw_frame_get(pinfo->num, pinfo->pool);
        if (fr && !fr->in_layer)
            return tvb_captured_length(tvb);
    }
    if (fr)
        render(fr, PINFO_FD_VISITED(pinfo) ? NULL : &seg, tvb, pinfo, tree);
    return tvb_captured_length(tvb);
}

static int dissect_iwmpa_claim(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
    return dissect_iwmpa_layer(tvb, pinfo, tree);
}

/* TCP's heuristic: a segment that starts as every startup key does
 * ("MPA ") and that no port's dissector took.  It makes the Request (and
 * any startup frame TCP has no other taker for) a layer of its frame too;
 * the rest of the connection comes through dissect_iwmpa_claim. */
static iw_heur_ret heur_iwmpa(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
    if (!pref_in_charge || tvb_captured_length(tvb) < 4 || tvb_memeql(tvb, 0, (const guint8 *)"MPA ", 4) != 0)
        return FALSE;
    iw_seg seg;
    iw_frame *fr;
    if (!PINFO_FD_VISITED(pinfo)) {
        if (g_layer_num == pinfo->num)
            return FALSE;
        g_layer_num = pinfo->num;
        fr = first_pass(pinfo, tree, &seg, 1);
        if (!fr)
            return FALSE;
    } else {
        fr = iw_frame_get(pinfo->num, pinfo->pool);
        if (!fr || !fr->in_layer)
            return FALSE;
    }
    col_set_str(pinfo->cinfo, COL_PROTOCOL, IW_SHORT_MPA);
    render(fr, PINFO_FD_VISITED(pinfo) ? NULL : &seg, tvb, pinfo, tree);
    return TRUE;
}

/* The conversation dissector of a connection whose SYN was seen (set in
 * first_pass): a startup frame is taken as TCP's heuristic takes it,
 * on any port (the Request on 445 that NBSS would otherwise take); any
 * other payload is declined (0), and TCP goes on to the port's
 * dissector and its heuristics as if the probe were not there. */
static int dissect_iwmpa_probe(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
    return heur_iwmpa(tvb, pinfo, tree, data) ? (int)tvb_captured_length(tvb) : 0;
}

/* Decode As (tcp.port): the connection is MPA even without startup frames. */
static int dissect_iwmpa_port(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
    decode_as_used = TRUE;
    conversation_t *conv = find_or_create_conversation(pinfo);
    if (!conversation_get_proto_data(conv, proto_iwmpa))
        conversation_add_proto_data(conv, proto_iwmpa, GINT_TO_POINTER(1));
    return dissect_iwmpa_layer(tvb, pinfo, tree);
}

static void layer_init(void)
{
    g_layer_num = 0;
}

/* ---- registration ------------------------------------------------------- */

void proto_register_iwmpa(void)
{
    static hf_register_info hf[] = {
        {&hf_direction, {"Direction", "iwmpa.direction", FT_UINT8, BASE_DEC, VALS(dir_vals), 0, NULL, HFILL}},
        {&hf_conv, {"Connection", "iwmpa.conv", FT_NONE, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_conv_initiator, {"Initiator", "iwmpa.conv.initiator", FT_STRING, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_conv_responder, {"Responder", "iwmpa.conv.responder", FT_STRING, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_conv_request_frame,
         {"Request in frame", "iwmpa.conv.request_frame", FT_FRAMENUM, BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0,
          NULL, HFILL}},
        {&hf_conv_reply_frame,
         {"Reply in frame", "iwmpa.conv.reply_frame", FT_FRAMENUM, BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE), 0,
          NULL, HFILL}},
        {&hf_conv_rev, {"Rev of the Reply", "iwmpa.conv.rev", FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_conv_enhanced, {"Enhanced (RFC 6581)", "iwmpa.conv.enhanced", FT_BOOLEAN, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_conv_crc, {"CRC", "iwmpa.conv.crc", FT_BOOLEAN, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_conv_markers_c2s,
         {"Markers client->server", "iwmpa.conv.markers_c2s", FT_BOOLEAN, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_conv_markers_s2c,
         {"Markers server->client", "iwmpa.conv.markers_s2c", FT_BOOLEAN, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_conv_ird, {"Responder IRD", "iwmpa.conv.ird", FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_conv_ord, {"Responder ORD", "iwmpa.conv.ord", FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_conv_rtr, {"RTR sent", "iwmpa.conv.rtr", FT_STRING, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_conv_rtr_frame, {"RTR in frame", "iwmpa.conv.rtr_frame", FT_FRAMENUM, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_conv_midstream,
         {"Captured mid-stream", "iwmpa.conv.midstream", FT_BOOLEAN, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_frame, {"Startup frame", "iwmpa.frame", FT_NONE, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_key, {"Key", "iwmpa.key", FT_BYTES, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_key_kind, {"Frame", "iwmpa.key_kind", FT_STRING, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_role, {"Role", "iwmpa.role", FT_STRING, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_held, {"Held", "iwmpa.held", FT_UINT32, BASE_DEC, NULL, 0,
                    "Octets of this direction received but not decoded yet: they end in a later segment", HFILL}},
        {&hf_key_expected, {"Key expected", "iwmpa.key_expected", FT_STRING, BASE_NONE, NULL, 0,
                            "The key this frame's sender sends (by its role), which this unknown key is not", HFILL}},
        {&hf_leg, {"Legacy IRD/ORD", "iwmpa.legacy", FT_NONE, BASE_NONE, NULL, 0,
                   "IRD and ORD at the start of a Rev 1 frame's private data (before RFC 6581)", HFILL}},
        {&hf_leg_ird, {"IRD", "iwmpa.legacy.ird", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_leg_ord, {"ORD", "iwmpa.legacy.ord", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_leg_swapped, {"Byte-swapped", "iwmpa.legacy.byte_swapped", FT_BOOLEAN, BASE_NONE, NULL, 0,
                           "Each number written least significant octet first", HFILL}},
        {&hf_m, {"M (markers)", "iwmpa.m", FT_BOOLEAN, 8, NULL, 0x80, NULL, HFILL}},
        {&hf_c, {"C (CRC)", "iwmpa.c", FT_BOOLEAN, 8, NULL, 0x40, NULL, HFILL}},
        {&hf_r, {"R (rejected)", "iwmpa.r", FT_BOOLEAN, 8, NULL, 0x20, NULL, HFILL}},
        {&hf_s, {"S (enhanced)", "iwmpa.s", FT_BOOLEAN, 8, NULL, 0x10, NULL, HFILL}},
        {&hf_res, {"Res", "iwmpa.res", FT_UINT8, BASE_HEX, NULL, 0x0F, NULL, HFILL}},
        {&hf_rev, {"Rev", "iwmpa.rev", FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_sk_m, {"M (markers)", "iwmpa.startkey.m", FT_BOOLEAN, 8, NULL, 0x80, NULL, HFILL}},
        {&hf_sk_c, {"C (CRC)", "iwmpa.startkey.c", FT_BOOLEAN, 8, NULL, 0x40, NULL, HFILL}},
        {&hf_sk_res, {"Res", "iwmpa.startkey.res", FT_UINT8, BASE_HEX, NULL, 0x30, NULL, HFILL}},
        {&hf_sk_rev, {"Rev", "iwmpa.startkey.rev", FT_UINT8, BASE_DEC, NULL, 0x0F, NULL, HFILL}},
        {&hf_pd_length, {"PD_Length", "iwmpa.pd_length", FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_enh, {"Enhanced connection data", "iwmpa.enh", FT_NONE, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_enh_a, {"A (automatic RTR negotiation)", "iwmpa.enh.a", FT_BOOLEAN, 32, NULL, 0x80000000, NULL, HFILL}},
        {&hf_enh_b, {"B (zero-length Send RTR)", "iwmpa.enh.b", FT_BOOLEAN, 32, NULL, 0x40000000, NULL, HFILL}},
        {&hf_enh_ird, {"IRD", "iwmpa.enh.ird", FT_UINT32, BASE_DEC, NULL, 0x3FFF0000, NULL, HFILL}},
        {&hf_enh_c, {"C (zero-length RDMA Write RTR)", "iwmpa.enh.c", FT_BOOLEAN, 32, NULL, 0x00008000, NULL, HFILL}},
        {&hf_enh_d,
         {"D (zero-length RDMA Read Request RTR)", "iwmpa.enh.d", FT_BOOLEAN, 32, NULL, 0x00004000, NULL, HFILL}},
        {&hf_enh_ord, {"ORD", "iwmpa.enh.ord", FT_UINT32, BASE_DEC, NULL, 0x00003FFF, NULL, HFILL}},
        {&hf_private_data, {"Private data", "iwmpa.private_data", FT_BYTES, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_fpdu, {"FPDU", "iwmpa.fpdu", FT_NONE, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_fpdu_index, {"FPDU number in its direction", "iwmpa.fpdu.index", FT_UINT64, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_fpdu_first_frame,
         {"Began in frame", "iwmpa.fpdu.first_frame", FT_FRAMENUM, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_ulpdu_length, {"ULPDU_Length", "iwmpa.ulpdu_length", FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_ulpdu, {"ULPDU", "iwmpa.ulpdu", FT_BYTES, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_pad, {"Pad", "iwmpa.pad", FT_BYTES, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_crc, {"CRC32C", "iwmpa.crc", FT_UINT32, BASE_HEX, NULL, 0, NULL, HFILL}},
        {&hf_crc_computed,
         {"CRC32C computed", "iwmpa.crc.computed", FT_UINT32, BASE_HEX, NULL, 0,
          "The value the CRC field should hold, read as the field is (most significant octet first)", HFILL}},
        {&hf_crc_register,
         {"CRC32C register", "iwmpa.crc.register", FT_UINT32, BASE_HEX, NULL, 0,
          "The computed CRC32C as a number (RFC 3385); the wire carries it least significant octet first", HFILL}},
        {&hf_crc_status,
         {"CRC status", "iwmpa.crc.status", FT_UINT8, BASE_NONE, VALS(proto_checksum_vals), 0, NULL, HFILL}},
        {&hf_marker, {"Marker", "iwmpa.marker", FT_NONE, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_marker_res, {"Reserved", "iwmpa.marker.reserved", FT_UINT16, BASE_HEX, NULL, 0, NULL, HFILL}},
        {&hf_marker_ptr, {"FPDUPTR", "iwmpa.marker.fpduptr", FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_rtr, {"Ready to receive (RFC 6581)", "iwmpa.rtr", FT_STRING, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_rtr_negotiated,
         {"The negotiated RTR", "iwmpa.rtr.negotiated", FT_BOOLEAN, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_not_mpa_data, {"Not MPA", "iwmpa.not_mpa_data", FT_NONE, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_not_mpa, {"Octets not MPA", "iwmpa.not_mpa", FT_UINT64, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_not_mpa_why, {"Why", "iwmpa.not_mpa.why", FT_STRING, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_hole, {"Missing from the capture", "iwmpa.hole", FT_UINT64, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_mode, {"Mode", "iwmpa.mode", FT_STRING, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_finding, {"Finding (requirement id)", "iwmpa.finding", FT_STRING, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_finding_rule,
         {"Requirement", "iwmpa.finding.rule", FT_STRING, BASE_NONE, NULL, 0,
          "The rule of the requirement catalogue the finding is about, and where it comes from", HFILL}},
        {&hf_finding_detail,
         {"Finding detail (the values seen)", "iwmpa.finding.detail", FT_STRING, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_ddp_t, {"T (tagged)", "iwddp.t", FT_BOOLEAN, 8, NULL, 0x80, NULL, HFILL}},
        {&hf_ddp_l, {"L (last)", "iwddp.l", FT_BOOLEAN, 8, NULL, 0x40, NULL, HFILL}},
        {&hf_ddp_rsvd, {"Reserved", "iwddp.rsvd", FT_UINT8, BASE_HEX, NULL, 0x3C, NULL, HFILL}},
        {&hf_ddp_dv, {"DV (DDP version)", "iwddp.dv", FT_UINT8, BASE_DEC, NULL, 0x03, NULL, HFILL}},
        {&hf_ddp_rsvdulp, {"RsvdULP", "iwddp.rsvdulp", FT_UINT32, BASE_HEX, NULL, 0, NULL, HFILL}},
        {&hf_ddp_stag, {"Data Sink STag", "iwddp.stag", FT_UINT32, BASE_HEX, NULL, 0, NULL, HFILL}},
        {&hf_ddp_to, {"Data Sink Tagged Offset", "iwddp.to", FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL}},
        {&hf_ddp_qn, {"Queue Number", "iwddp.qn", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_ddp_msn, {"Message Sequence Number", "iwddp.msn", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_ddp_mo, {"Message Offset", "iwddp.mo", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_ddp_payload_len, {"Payload length", "iwddp.payload_length", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_rdmap_rv, {"RV (RDMAP version)", "iwrdmap.rv", FT_UINT8, BASE_DEC, NULL, 0xC0, NULL, HFILL}},
        {&hf_rdmap_rsvd, {"Reserved", "iwrdmap.rsvd", FT_UINT8, BASE_HEX, NULL, 0x30, NULL, HFILL}},
        {&hf_rdmap_opcode, {"Opcode", "iwrdmap.opcode", FT_UINT8, BASE_HEX, VALS(opcode_vals), 0x0F, NULL, HFILL}},
        {&hf_rdmap_inv_stag, {"Invalidate STag", "iwrdmap.invalidate_stag", FT_UINT32, BASE_HEX, NULL, 0, NULL, HFILL}},
        {&hf_rr_sink_stag, {"Data Sink STag", "iwrdmap.read.sink_stag", FT_UINT32, BASE_HEX, NULL, 0, NULL, HFILL}},
        {&hf_rr_sink_to, {"Data Sink Tagged Offset", "iwrdmap.read.sink_to", FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL}},
        {&hf_rr_size, {"RDMA Read Message Size", "iwrdmap.read.size", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_rr_src_stag, {"Data Source STag", "iwrdmap.read.src_stag", FT_UINT32, BASE_HEX, NULL, 0, NULL, HFILL}},
        {&hf_rr_src_to,
         {"Data Source Tagged Offset", "iwrdmap.read.src_to", FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL}},
        {&hf_term_layer, {"Layer", "iwrdmap.term.layer", FT_UINT8, BASE_DEC, VALS(layer_vals), 0xF0, NULL, HFILL}},
        {&hf_term_etype, {"EType", "iwrdmap.term.etype", FT_UINT8, BASE_DEC, NULL, 0x0F, NULL, HFILL}},
        {&hf_term_code, {"Error Code", "iwrdmap.term.code", FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_term_name, {"Terminate", "iwrdmap.term.name", FT_STRING, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_term_m, {"M (segment length valid)", "iwrdmap.term.m", FT_BOOLEAN, 16, NULL, 0x8000, NULL, HFILL}},
        {&hf_term_d, {"D (DDP header included)", "iwrdmap.term.d", FT_BOOLEAN, 16, NULL, 0x4000, NULL, HFILL}},
        {&hf_term_r, {"R (RDMAP header included)", "iwrdmap.term.r", FT_BOOLEAN, 16, NULL, 0x2000, NULL, HFILL}},
        {&hf_term_rsvd, {"Reserved", "iwrdmap.term.rsvd", FT_UINT16, BASE_HEX, NULL, 0x1FFF, NULL, HFILL}},
        {&hf_term_siw_name,
         {"Terminate as Linux siw writes it", "iwrdmap.term.siw_name", FT_STRING, BASE_NONE, NULL, 0,
          "Layer and EType nibbles swapped, M/D/R in the low bits (MPA-QRK-TRM-NIBBLES)", HFILL}},
        {&hf_term_seglen, {"DDP Segment Length", "iwrdmap.term.seglen", FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_term_ddp_hdr, {"Terminated DDP header", "iwrdmap.term.ddp_hdr", FT_BYTES, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_term_rdma_hdr,
         {"Terminated RDMA header", "iwrdmap.term.rdma_hdr", FT_BYTES, BASE_NONE, NULL, 0, NULL, HFILL}},
        {&hf_at_rsvd, {"Reserved", "iwrdmap.atomic.rsvd", FT_UINT32, BASE_HEX, NULL, 0xFFFFFFF0, NULL, HFILL}},
        {&hf_at_aop, {"AOpCode", "iwrdmap.atomic.aopcode", FT_UINT32, BASE_DEC, NULL, 0x0000000F, NULL, HFILL}},
        {&hf_at_req_id, {"Request Identifier", "iwrdmap.atomic.req_id", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_at_stag, {"Remote STag", "iwrdmap.atomic.stag", FT_UINT32, BASE_HEX, NULL, 0, NULL, HFILL}},
        {&hf_at_to, {"Remote Tagged Offset", "iwrdmap.atomic.to", FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL}},
        {&hf_at_add_swap, {"Add or Swap Data", "iwrdmap.atomic.add_swap", FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL}},
        {&hf_at_add_swap_mask,
         {"Add or Swap Mask", "iwrdmap.atomic.add_swap_mask", FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL}},
        {&hf_at_compare, {"Compare Data", "iwrdmap.atomic.compare", FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL}},
        {&hf_at_compare_mask,
         {"Compare Mask", "iwrdmap.atomic.compare_mask", FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL}},
        {&hf_ar_orig_req_id,
         {"Original Request Identifier", "iwrdmap.atomic.orig_req_id", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL}},
        {&hf_ar_orig_value,
         {"Original Remote Data Value", "iwrdmap.atomic.orig_value", FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL}},
        {&hf_imm_data, {"Immediate Data", "iwrdmap.immediate", FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL}},
    };
    static gint *ett[] = {&ett_iwmpa, &ett_conv,   &ett_frame, &ett_enh,  &ett_fpdu,
                          &ett_marker, &ett_ddp, &ett_rdmap, &ett_term, &ett_term_ddp, &ett_crc, &ett_finding};

    /* The expert infos, one per rule: MUST -> error, SHOULD -> warning,
     * note -> note; the summary is the requirement id and what went wrong
     * (dissector/problems.def). */
#define SEV_MUST PI_ERROR
#define SEV_SHOULD PI_WARN
#define SEV_NOTE PI_NOTE
    static ei_register_info ei[] = {
#define MPA_RULE(sym, id, level, clause, checked, text) \
    {&ei_rule[MPA_F_##sym], {"iwmpa.rule." id, PI_PROTOCOL, SEV_##level, id ": ", EXPFILL}},
#include "mpa/findings.def"
#undef MPA_RULE
    };
    /* What went wrong, per id: one row per rule (a missing row fails the
     * build, an extra or doubled one too). */
    static const char *const problem[MPA_F__COUNT] = {
#define IW_PROBLEM(sym, text) [MPA_F_##sym] = text,
#include "problems.def"
#undef IW_PROBLEM
    };
    enum {
        IW_N_PROBLEMS = 0
#define IW_PROBLEM(sym, text) +1
#include "problems.def"
#undef IW_PROBLEM
    };
    G_STATIC_ASSERT((int)IW_N_PROBLEMS == (int)MPA_F__COUNT);
    for (unsigned i = 0; i < G_N_ELEMENTS(ei); i++)
        ei[i].eiinfo.summary = g_strconcat(ei[i].eiinfo.summary, problem[i], NULL);
    for (unsigned i = 0; i < G_N_ELEMENTS(ei); i++) {
        const char *id = strchr(ei[i].eiinfo.name, '.') ? strrchr(ei[i].eiinfo.name, '.') + 1 : "";
        if (!strncmp(id, "MPA-CRC-", 8))
            ei[i].eiinfo.group = PI_CHECKSUM;
        else if (!strncmp(id, "MPA-CAP-", 8))
            ei[i].eiinfo.group = PI_SEQUENCE;
    }

    /* One long name (tree, dialogs) and one short name (Protocol column,
     * expert dialog, preferences) per protocol; the filter names are
     * those users' filters have always used. */
    proto_iwmpa = proto_register_protocol(IW_LONG_MPA, IW_SHORT_MPA, "iwmpa");
    proto_iwddp = proto_register_protocol(IW_LONG_DDP, IW_SHORT_DDP, "iwddp");
    proto_iwrdmap = proto_register_protocol(IW_LONG_RDMAP, IW_SHORT_RDMAP, "iwrdmap");
    proto_register_field_array(proto_iwmpa, hf, array_length(hf));
    proto_register_subtree_array(ett, array_length(ett));
    expert_module_t *em = expert_register_protocol(proto_iwmpa);
    expert_register_field_array(em, ei, array_length(ei));

    module_t *m = prefs_register_protocol(proto_iwmpa, apply_prefs);
    prefs_register_bool_preference(
        m, "in_charge", "Decode iWARP with this plugin (turns off Wireshark's built-in iwarp_mpa)",
        "On: this plugin decodes and judges MPA on every TCP port and the built-in iWARP dissectors are turned off. "
        "Off: the built-in dissectors stay in charge and this plugin does nothing.",
        &pref_in_charge);
    prefs_register_bool_preference(
        m, "compat_fields", "Fill the built-in dissectors' fields (iwarp_mpa.*, iwarp_ddp.*, iwarp_rdma.*)",
        "While this plugin is in charge (the built-ins turned off), each frame it decodes also carries the "
        "built-in dissectors' fields for what it decoded, hidden, so display filters and colouring rules "
        "written for them keep selecting the same frames.",
        &pref_compat);
    pref_ports = range_empty(wmem_epan_scope());
    prefs_register_range_preference(
        m, "ports", "Mid-stream MPA ports (MPA without startup frames)",
        "Connections on these ports are decoded as MPA even when the capture starts after the startup frames "
        "(mid-stream): the FPDU framing is found by markers, CRCs and DDP headers; the Mid-stream settings below "
        "say whether they carry markers and CRCs. Connections with startup frames need no port: they are found "
        "on any port. \"TCP port(s)\" (the Decode As table of iwmpa) does the same for the ports it lists; "
        "either may be used.",
        &pref_ports, 65535);
    prefs_register_enum_preference(m, "mid_markers_to", "Mid-stream: markers in octets sent to the port",
                                   "M of the startup frames, when they are not in the capture", &pref_mid_markers_to,
                                   tri_vals, FALSE);
    prefs_register_enum_preference(m, "mid_markers_from", "Mid-stream: markers in octets sent from the port",
                                   "M of the startup frames, when they are not in the capture", &pref_mid_markers_from,
                                   tri_vals, FALSE);
    prefs_register_enum_preference(m, "mid_crc_to", "Mid-stream: CRCs in octets sent to the port",
                                   "C of the startup frames, when they are not in the capture", &pref_mid_crc_to,
                                   tri_vals, FALSE);
    prefs_register_enum_preference(m, "mid_crc_from", "Mid-stream: CRCs in octets sent from the port",
                                   "C of the startup frames, when they are not in the capture", &pref_mid_crc_from,
                                   tri_vals, FALSE);

    iwmpa_post_handle = register_dissector("iwmpa_post", dissect_iwmpa_post, proto_iwmpa);
    iwmpa_port_handle = register_dissector("iwmpa", dissect_iwmpa_port, proto_iwmpa);
    iwmpa_claim_handle = create_dissector_handle(dissect_iwmpa_claim, proto_iwmpa);
    iwmpa_probe_handle = create_dissector_handle(dissect_iwmpa_probe, proto_iwmpa);
    iwddp_handle = create_dissector_handle(dissect_iwddp, proto_iwddp);
    iwrdmap_handle = create_dissector_handle(dissect_iwrdmap, proto_iwrdmap);
    register_init_routine(layer_init);
    iw_tap_register();
    register_init_routine(iw_track_init);
    register_cleanup_routine(iw_track_cleanup);
}

void proto_reg_handoff_iwmpa(void)
{
    /* Of TCP's fields, two: the payload's length (at the header's start)
     * and the stream; find_tcp() reads the rest from the header's
     * octets. */
    static const char *const names[] = {"tcp.len", "tcp.stream"};
    int *ids[] = {&hf_tcp_len, &hf_tcp_stream};
    GArray *wanted = g_array_new(FALSE, FALSE, (guint)sizeof(int));
    for (unsigned i = 0; i < G_N_ELEMENTS(names); i++) {
        *ids[i] = proto_registrar_get_id_byname(names[i]);
        if (*ids[i] >= 0)
            g_array_append_val(wanted, *ids[i]);
    }
    register_postdissector(iwmpa_post_handle);
    set_postdissector_wanted_hfids(iwmpa_post_handle, wanted);
    dissector_add_for_decode_as_with_preference("tcp.port", iwmpa_port_handle);
    ulp_heur = find_heur_dissector_list("iwarp_ddp_rdmap");
    for (unsigned i = 0; i < C__COUNT; i++) {
        hf_compat[i] = proto_registrar_get_id_byname(compat_names[i]);
        compat_kind[i] = compat_kind_of(hf_compat[i]);
    }
    heur_dissector_add("tcp", heur_iwmpa, "iWARP-MPA startup frames", "iwmpa_tcp", proto_iwmpa,
                       HEURISTIC_ENABLE);
    apply_prefs();
}
