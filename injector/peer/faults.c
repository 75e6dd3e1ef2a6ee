/*
 * The fault table of mpa-peer (--fault NAME).  Each fault breaks one rule
 * of the requirement catalogue (docs/requirements.md) in the
 * role where that rule applies.  ids_i / ids_r are the rule ids mpa-audit
 * reports for a capture of this end, with the fault, against a correct
 * mpa-peer: tests/inject/peer-test.sh checks exactly these, and the man
 * page (docs/mpa-peer.1) has the same table.
 */
#include <string.h>

#include "peer.h"

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
