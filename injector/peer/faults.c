/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fault table of mpa-peer (--fault NAME).  Each fault breaks one rule
 * of the requirement catalogue (docs/requirements.md) in the
 * role where that rule applies.  ids_i / ids_r are the rule ids mpa-audit
 * reports for a capture of this end, with the fault, against a correct
 * mpa-peer: tests/inject/peer-test.sh checks exactly these, and the man
 * page (docs/mpa-peer.1) has the same table.  Below the table: how a
 * fault is applied to a connection (the frame and FPDU faults; the
 * startup's own are in startup.c, where they change its decisions).
 */
#include <stdio.h>
#include <string.h>

#include "conn_priv.h"

static const fault_info faults[FAULT__COUNT] = {
    [FAULT_NONE] = {"none", FAULT_ROLE_I | FAULT_ROLE_R, 0, "-", "-", "no fault", "-"},
    [FAULT_BAD_KEY] = {"bad-key", FAULT_ROLE_I | FAULT_ROLE_R, 0, "MPA-FRM-KEY-REQ", "MPA-FRM-KEY-REP",
                       "the key's last octet is wrong (\"MPA ID Req Framx\", \"MPA ID Rep Framx\")",
                       "closes without a Reply (Responder) or an FPDU (Initiator), RFC 5044 7.1.2 rule 5"},
    [FAULT_WRONG_REV] = {"wrong-rev", FAULT_ROLE_I | FAULT_ROLE_R, 0, "MPA-FRM-REV", "MPA-FRM-REV",
                         "sends Rev 3", "closes: it cannot interoperate with Rev 3 (RFC 5044 7.1.1)"},
    [FAULT_PDLEN_OVER_512] = {"pdlen-over-512", FAULT_ROLE_I | FAULT_ROLE_R, 0, "MPA-FRM-PDLEN-MAX",
                              "MPA-FRM-PDLEN-MAX", "sends 600 octets of private data, PD_Length 600",
                              "closes: improperly formatted frame (rules 2, 3, 9)"},
    [FAULT_PDLEN_LIE] = {"pdlen-lie", FAULT_ROLE_I | FAULT_ROLE_R, 0, "MPA-FRM-PDLEN-MATCH",
                         "MPA-FRM-PDLEN-MATCH",
                         "PD_Length says 16 octets more than it sends, then FIN",
                         "closes at the FIN inside the private data (rule 9)"},
    [FAULT_IGNORES_S] = {"ignores-s", FAULT_ROLE_R, 0, "-", "MPA-ENH-REPLY-ENH",
                         "answers an S=1 Request with a plain (S=0) Rev 2 Reply",
                         "the Initiator sends TERMINATE code 5 (RFC 6581 9.3) and closes"},
    [FAULT_A_NOT_ECHOED] = {"a-not-echoed", FAULT_ROLE_R, 0, "-", "MPA-ENH-A-ECHO",
                            "the Reply's A is the opposite of the Request's",
                            "the Initiator sends TERMINATE code 7 (no common connection model) and closes"},
    [FAULT_BCD_WITHOUT_A] = {"bcd-without-a", FAULT_ROLE_I | FAULT_ROLE_R, FAULT_NEEDS_ENH, "MPA-ENH-BCD-ZERO",
                             "MPA-ENH-BCD-ZERO",
                             "sets B/C/D (its RTR types) with A=0 (a Responder: when the Request has A=0)",
                             "ignores B, C, D (RFC 6581 9.2) and goes on"},
    [FAULT_ORD_GT_PEER_IRD] = {"ord-gt-peer-ird", FAULT_ROLE_R, 0, "-", "MPA-ENH-ORD-LE-IRD",
                               "replies ORD = the Initiator's IRD + 1",
                               "the Initiator sends TERMINATE code 6 (insufficient IRD) and closes"},
    [FAULT_NO_RTR_OPTION] = {"no-rtr-option", FAULT_ROLE_I | FAULT_ROLE_R, FAULT_NEEDS_ENH,
                             "MPA-ENH-INIT-OPTS", "MPA-ENH-RESP-OPT",
                             "A=1 with none of B, C, D (an Initiator: needs --p2p; it still sends an RTR "
                             "it supports)",
                             "a Responder offers the types it supports and goes on; an Initiator sends "
                             "TERMINATE code 7 and closes"},
    [FAULT_WRONG_RTR_TYPE] = {"wrong-rtr-type", FAULT_ROLE_I, FAULT_NEEDS_P2P, "MPA-ENH-RTR-MATCH", "-",
                              "sends an RTR type the Reply did not offer (needs a Responder that offers "
                              "fewer than three)",
                              "the Responder sends TERMINATE code 7 and closes"},
    [FAULT_FPDU_BEFORE_RTR] = {"fpdu-before-rtr", FAULT_ROLE_I, FAULT_NEEDS_P2P,
                               "MPA-ENH-RTR-SEND MPA-ENH-RTR-FIRST", "-",
                               "sends a Send with data before the RTR (the first FPDU is not the RTR, "
                               "and the RTR comes second)",
                               "the Responder sends TERMINATE code 5 and closes"},
    [FAULT_RESPONDER_FPDU_FIRST] = {"responder-fpdu-first", FAULT_ROLE_R, 0, "-", "MPA-STA-RESP-FPDU-WAIT",
                                    "sends a Send right behind its Reply, before any FPDU arrived",
                                    "the Initiator sends TERMINATE code 5 and closes"},
    [FAULT_BAD_CRC] = {"bad-crc", FAULT_ROLE_I | FAULT_ROLE_R, 0, "MPA-CRC-VALID", "MPA-CRC-VALID",
                       "its first FPDU carries a wrong CRC (needs CRCs on; with C=0 here and C=1 there "
                       "the id is MPA-CRC-NEGOTIATE)",
                       "sends TERMINATE code 2 and closes (MPA-ERR-KEEP-TCP: the ULP closes)"},
    [FAULT_BAD_MARKER] = {"bad-marker", FAULT_ROLE_I | FAULT_ROLE_R, 0, "MPA-MRK-LEN-AGREE",
                          "MPA-MRK-LEN-AGREE",
                          "the first marker inside an FPDU points 4 octets too far back (needs the peer's "
                          "M=1 and FPDUs that span a marker, e.g. --size 1000)",
                          "sends TERMINATE code 3 and closes"},
    [FAULT_NO_REPLY] = {"no-reply", FAULT_ROLE_R, 0, "-", "MPA-STA-REJECT",
                        "never replies to a Request; closes when the Initiator does (or at its timeout)",
                        "the Initiator times out (rule 10) and closes"},
    [FAULT_NEVER_CLOSE] = {"never-close-on-bad-frame", FAULT_ROLE_I | FAULT_ROLE_R, 0,
                           "MPA-STA-BAD-REP-CLOSE", "MPA-STA-BAD-REQ-CLOSE",
                           "goes on after an improperly formatted frame (needs a peer that sends one, "
                           "e.g. --fault wrong-rev; after an unknown key the id is MPA-FRM-KEY-CHECK)",
                           "(the other end is the faulty one here)"},
    [FAULT_TERM_5] = {"term-5", FAULT_ROLE_I | FAULT_ROLE_R, FAULT_NEEDS_ENH, "-", "-",
                      "TERMINATE code 5 with no local error: as Initiator instead of its first FPDU, as "
                      "Responder after the first FPDU; breaks MPA-ENH-TERM-5, which needs local state: "
                      "libmpa cannot judge it",
                      "closes"},
    [FAULT_TERM_6] = {"term-6", FAULT_ROLE_I, FAULT_NEEDS_ENH, "-", "-",
                      "TERMINATE code 6 although the Reply's IRD/ORD suit it; breaks MPA-ENH-INIT-ADJUST, "
                      "which needs local state: libmpa cannot judge it",
                      "closes"},
    [FAULT_TERM_7] = {"term-7", FAULT_ROLE_I, FAULT_NEEDS_P2P, "MPA-ENH-RTR-MATCH", "-",
                      "TERMINATE code 7 although both sides offered a common RTR type", "closes"},
    [FAULT_TERM_RSVD] = {"term-on-reserved", FAULT_ROLE_R, 0, "-", "-",
                         "sends TERMINATE code 5 for a Send whose DDP or RDMAP control reserved bits are "
                         "set, instead of ignoring them; breaks the receiver half of MPA-DDP-RSVD and "
                         "MPA-RDMAP-RSVD (only a peer that sets them shows it)",
                         "closes"},
    [FAULT_TERM_RV0] = {"term-on-rv0", FAULT_ROLE_R, 0, "-", "-",
                        "sends TERMINATE code 5 for an FPDU with RDMAP Version 00b, which RFC 5040 4.1 "
                        "makes valid; breaks MPA-RDMAP-VERSION's receiver half (only a peer that sends "
                        "RV 00b shows it)",
                        "closes"},
    [FAULT_READ_NOT_LAST] = {"read-not-last", FAULT_ROLE_R, 0, "-", "-",
                             "answers an RDMA Read Request sent with L=0 (not a single DDP segment) with "
                             "a Read Response instead of refusing it; breaks MPA-RDMAP-ONE-SEG's receiver "
                             "half (only a peer that sends one shows it)",
                             "(the other end is the faulty one here)"},
    [FAULT_DROP_FIRST_FPDU] = {"drop-first-fpdu", FAULT_ROLE_R, 0, "-", "-",
                               "drops the first FPDU after its Reply (an RTR aside) without a word, as if "
                               "it were not yet in Full Operation; breaks MPA-STA-RESP-FULL-OP, which "
                               "needs this end's local state: libmpa cannot judge it",
                               "gets no echo of its first Send"},
    [FAULT_DDP_UNCHECKED] = {"ddp-unchecked", FAULT_ROLE_R, 0, "-", "-",
                             "places and delivers every DDP segment without the receive checks of "
                             "RFC 5041 7.1 (undefined QN, MSN out of range, MO out of the buffer, an "
                             "RDMA Write to an STag it never advertised); breaks MPA-RCV-DDP-UNTAGGED and "
                             "MPA-RCV-DDP-TAGGED, which need local state (only a peer that sends such "
                             "a segment shows it)",
                             "(the other end is the faulty one here)"},
    [FAULT_INV_UNCHECKED] = {"inv-unchecked", FAULT_ROLE_R, 0, "-", "-",
                             "delivers a Send with Invalidate whose STag it cannot invalidate (it "
                             "advertises none) instead of refusing it; breaks MPA-RCV-INVALIDATE "
                             "(only a peer that sends one shows it)",
                             "(the other end is the faulty one here)"},
    [FAULT_NO_DROP_AFTER_ERROR] = {"no-drop-after-error", FAULT_ROLE_R, 0, "-", "-",
                                   "after a segment that fails the receive checks it holds its TERMINATE back "
                                   "until the next Send and delivers (echoes) that first; breaks "
                                   "MPA-RCV-DROP-AFTER (only a peer that sends a bad segment shows it)",
                                   "(the other end is the faulty one here)"},
    [FAULT_ALIGNED_ONLY] = {"aligned-only", FAULT_ROLE_R, 0, "-", "-",
                            "drops, without a word, the first FPDU that did not arrive in one read (it "
                            "began in an earlier TCP segment), as a receiver that depends on FPDU "
                            "alignment; breaks MPA-RCV-UNALIGNED (only a peer that splits an FPDU "
                            "shows it)",
                            "gets no answer to that FPDU"},
    [FAULT_MSN_PER_SEGMENT] = {"msn-per-segment", FAULT_ROLE_I | FAULT_ROLE_R, 0, "MPA-DDP-MSN-SAME",
                               "MPA-DDP-MSN-SAME",
                               "gives every DDP segment of a Send message a new MSN, not only every "
                               "message (shows only in messages of more than one segment: a Responder's "
                               "echo of a segmented Send, an Initiator's --size beyond MULPDU)",
                               "(nothing: the receiver's MSN checks are its own business)"},
    [FAULT_TERM_NO_HDR] = {"term-no-hdr", FAULT_ROLE_R, 0, "-", "-",
                           "its TERMINATE for a bad received segment has M=0, D=0: no DDP Segment "
                           "Length, no copied DDP header; breaks MPA-RCV-TERM-HDR (only a peer that "
                           "sends a bad segment shows it)",
                           "(the other end is the faulty one here)"},
    [FAULT_READ_UNCHECKED] = {"read-unchecked", FAULT_ROLE_R, 0, "-", "-",
                              "answers every RDMA Read Request without the Data Source checks of "
                              "RFC 5040 7.2 (an STag it never exposed, an offset or size past its "
                              "readable buffer); breaks MPA-RCV-READ-SRC (only a peer that sends such "
                              "a Request shows it)",
                              "(the other end is the faulty one here)"},
    [FAULT_READ_ZERO_CHECKED] = {"read-zero-checked", FAULT_ROLE_R, 0, "-", "-",
                                 "checks the Data Source STag and TO of a zero-size RDMA Read Request too "
                                 "and answers one it does not expose with a TERMINATE; breaks "
                                 "MPA-RCV-READ-SRC's zero-size half (only a peer that sends such a "
                                 "Request shows it)",
                                 "(the other end is the faulty one here)"},
    [FAULT_ATOMIC_UNALIGNED] = {"atomic-unaligned", FAULT_ROLE_R, 0, "-", "-",
                                "takes an RFC 7306 Atomic Request at a Remote Tagged Offset that is not "
                                "a multiple of 8 like any other (no TERMINATE); breaks "
                                "MPA-RDMAP-ATOMIC-ALIGN's responder half (only a peer that sends such a "
                                "Request shows it)",
                                "(the other end is the faulty one here)"},
    [FAULT_WRITE_UNBOUNDED] = {"write-unbounded", FAULT_ROLE_R, 0, "-", "-",
                               "places an RDMA Write to its STag past the end of that buffer (no bounds "
                               "check); breaks MPA-RCV-DDP-TAGGED's bounds half (only a peer that sends "
                               "such a Write shows it)",
                               "(the other end is the faulty one here)"},
    [FAULT_FPDUPTR_LOWBITS] = {"fpduptr-low-bits", FAULT_ROLE_R, 0, "-", "-",
                               "computes with a received marker's FPDUPTR including its two low bits "
                               "(RFC 5044 4.3 says they are taken as zero): such a marker disagrees with "
                               "the lengths and gets TERMINATE code 3; breaks MPA-RCV-MRK-LOWBITS (only "
                               "a peer that sets those bits shows it)",
                               "(the other end is the faulty one here)"},
    [FAULT_ZERO_WRITE_CHECKED] = {"zero-write-checked", FAULT_ROLE_R, 0, "-", "-",
                                  "checks the STag of a zero-length RDMA Write too and answers one it never "
                                  "advertised with a TERMINATE (DDP, Invalid STag); breaks "
                                  "MPA-RCV-ZERO-TAGGED (only a peer that sends such a Write shows it)",
                                  "(the other end is the faulty one here)"},
    [FAULT_A1_IGNORED] = {"a1-ignored", FAULT_ROLE_I, FAULT_NEEDS_ENH, "-", "-",
                          "takes a Reply's A=1 that its Request (A=0) did not ask for as A=0: sends its "
                          "data, no RTR and no TERMINATE (only a Responder that sends such a Reply shows "
                          "it)",
                          "(the other end is the faulty one here)"},
    [FAULT_ECHO_EARLY] = {"echo-early", FAULT_ROLE_R, 0, "-", "-",
                          "echoes each Send segment as it arrives, before the message's L=1 segment "
                          "came (a message never finished is echoed in part); breaks MPA-RCV-DELIVERY "
                          "(only a peer that sends a message in several segments shows it)",
                          "(the other end is the faulty one here)"},
    [FAULT_ECHO_TWICE] = {"echo-twice", FAULT_ROLE_R, 0, "-", "-",
                          "delivers the first Send message twice (two echoes); breaks MPA-RCV-DELIVERY",
                          "(the other end is the faulty one here)"},
    [FAULT_ECHO_REORDERED] = {"echo-reordered", FAULT_ROLE_R, 0, "-", "-",
                              "delivers the first two Send messages in the reverse order (the first "
                              "echo waits behind the second; with one message, never sent); breaks "
                              "MPA-RCV-DELIVERY",
                              "(the other end is the faulty one here)"},
    [FAULT_IMM_UNCHECKED] = {"imm-unchecked", FAULT_ROLE_R, 0, "-", "-",
                             "takes RFC 7306 Immediate Data of any size (no TERMINATE for 4 or 12 "
                             "octets); breaks MPA-RCV-IMM-LEN (only a peer that sends such a message "
                             "shows it)",
                             "(the other end is the faulty one here)"},
    [FAULT_IRD_SHORT] = {"ird-short", FAULT_ROLE_R, 0, "-", "-",
                         "advertises its IRD (16) but has room for two inbound RDMA Read Requests "
                         "in all: the third gets a TERMINATE (DDP, untagged buffer error, no buffer); "
                         "breaks MPA-RCV-IRD (only a peer that sends three Read Requests shows it)",
                         "(the other end is the faulty one here)"},
    [FAULT_CMPSWAP_MISSING] = {"cmpswap-missing", FAULT_ROLE_R, 0, "-", "-",
                               "performs FetchAdd but not CmpSwap: an RFC 7306 CmpSwap Request gets a "
                               "TERMINATE (RDMAP, Remote Operation Error, Unexpected OpCode); breaks "
                               "MPA-RCV-ATOMIC (only a peer that sends a CmpSwap shows it)",
                               "(the other end is the faulty one here)"},
    [FAULT_CMPSWAP_NO_WRITE] = {"cmpswap-no-write", FAULT_ROLE_R, 0, "-", "-",
                                "answers its first CmpSwap with the original value but leaves the target "
                                "unchanged even when the compare matched; breaks MPA-RCV-ATOMIC-RESULT "
                                "(only a peer that reads the target again shows it)",
                                "(the other end is the faulty one here)"},
    [FAULT_WRITE_NOT_PLACED] = {"write-not-placed", FAULT_ROLE_R, 0, "-", "-",
                                "checks its first RDMA Write with data but does not place it in the "
                                "buffer; breaks MPA-RCV-PLACE (only a peer that reads the buffer back "
                                "shows it)",
                                "(the other end is the faulty one here)"},
    [FAULT_CLOSE_NO_TERMINATE] = {"close-no-terminate", FAULT_ROLE_R, 0, "-", "-",
                                  "closes on its first error in a received DDP segment or RDMAP message "
                                  "without sending the TERMINATE; breaks MPA-TRM-BEFORE-CLOSE (only a "
                                  "peer that sends a bad segment shows it)",
                                  "(the other end is the faulty one here)"},
    [FAULT_TO_WRAP_UNCHECKED] = {"to-wrap-unchecked", FAULT_ROLE_R, 0, "-", "-",
                                 "bounds-checks an RDMA Write by its end only, TO plus the payload in "
                                 "64-bit arithmetic, so a TO that wraps 2^64 comes out small and the "
                                 "Write is taken (no TERMINATE); breaks MPA-RCV-DDP-TAGGED's wrap half "
                                 "(only a peer that sends such a Write shows it)",
                                 "(the other end is the faulty one here)"},
    [FAULT_EOF_DROPS_READS] = {"eof-drops-reads", FAULT_ROLE_R, 0, "-", "-",
                               "holds the Read Response to each RDMA Read Request until the peer's next "
                               "FPDU and, when the peer's FIN comes first, closes without it; breaks "
                               "MPA-DDP-HALF-CLOSE (only a peer that half-closes after a Read Request "
                               "shows it)",
                               "(the other end is the faulty one here)"},
    [FAULT_TERM_LAST_ERROR] = {"term-last-error", FAULT_ROLE_R, 0, "-", "-",
                               "checks every DDP segment of the input that holds a receive error, and "
                               "its TERMINATE reports the last error found there instead of the first; "
                               "breaks MPA-TRM-FIRST-ERROR (only a peer that sends two bad segments "
                               "together shows it)",
                               "(the other end is the faulty one here)"},
    [FAULT_READ_STALE] = {"read-stale", FAULT_ROLE_R, 0, "-", "-",
                          "answers RDMA Read Requests with zeros, as if no RDMA Write had placed "
                          "anything in its buffer; breaks MPA-RDMAP-READ-AFTER-WRITE (only a peer "
                          "that writes and then reads the buffer shows it)",
                          "(the other end is the faulty one here)"},
};

const fault_info *fault_get(peer_fault f)
{
    return &faults[(unsigned)f < FAULT__COUNT ? f : FAULT_NONE];
}

peer_fault fault_find(const char *name)
{
    for (unsigned i = 0; i < FAULT__COUNT; i++)
        if (strcmp(faults[i].name, name) == 0)
            return (peer_fault)i;
    return FAULT__COUNT;
}

/* ---- applying a fault to a connection ------------------------------- */

/* The fault could not apply here: say so once and behave correctly. */
void fault_not_here(conn *c, const char *why)
{
    if (c->fault_na || c->fault_done)
        return;
    c->fault_na = 1;
    if (!c->cfg->quiet)
        fprintf(stderr, "mpa-peer: %s: --fault %s does not apply to this connection (%s)\n", c->name,
                fault_get(c->cfg->fault)->name, why);
}

int faulty(const conn *c, peer_fault f)
{
    return c->cfg->fault == f && !c->fault_done && !c->fault_na;
}

/* Which markers of an FPDU of wire length wl at seq to corrupt so that
 * only MPA-MRK-LEN-AGREE is broken: every marker when none stands at its
 * first octet (they then agree with each other), or the one inner marker
 * behind a leading one.  Returns mpa_fpdu_faults.marker_nth, or -1 when
 * this FPDU cannot do it. */
int marker_victim(uint32_t seq, size_t wl, uint32_t base)
{
    uint32_t ph = (seq - base) & (MPA_MARKER_INTERVAL - 1);
    if (ph) /* no leading marker: the first one is MPA_MARKER_INTERVAL - ph in */
        return MPA_MARKER_INTERVAL - ph < wl ? 0 : -1;
    /* a leading marker: exactly one more inside */
    return wl > MPA_MARKER_INTERVAL && wl <= 2 * MPA_MARKER_INTERVAL ? 2 : -1;
}

void frame_pd(const conn *c, mpa_frame_enc *e)
{
    static uint8_t big[600];
    e->pd = c->cfg->pd;
    e->pd_len = c->cfg->pd_len;
    e->pd_len_override = -1;
    if (c->cfg->fault == FAULT_PDLEN_OVER_512) {
        /* 600 octets of private data in all, the enhanced field included */
        size_t want = 600 - (e->enh_present ? MPA_ENH_LEN : 0);
        memset(big, 0, sizeof big);
        memcpy(big, c->cfg->pd, c->cfg->pd_len);
        e->pd = big;
        e->pd_len = want;
    }
    if (c->cfg->fault == FAULT_PDLEN_LIE)
        e->pd_len_override = (int)((e->enh_present ? MPA_ENH_LEN : 0) + e->pd_len + 16);
}

/* Faults that change the frame's header. */
void frame_faults(conn *c, mpa_frame_enc *e, uint8_t *key)
{
    switch (c->cfg->fault) {
    case FAULT_BAD_KEY:
        memcpy(key, mpa_key_bytes(e->kind), MPA_KEY_LEN);
        key[MPA_KEY_LEN - 1] = 'x';
        e->raw_key = key;
        c->fault_done = 1;
        break;
    case FAULT_WRONG_REV:
        e->rev = 3;
        c->fault_done = 1;
        break;
    case FAULT_PDLEN_OVER_512:
    case FAULT_PDLEN_LIE:
        c->fault_done = 1;
        break;
    default:
        break;
    }
}
