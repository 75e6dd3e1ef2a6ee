# SPDX-License-Identifier: GPL-2.0-or-later
# The tshark fields the plugin's golden files hold, one line per frame
# (sourced by scripts/plugin-golden.sh and dut/siw/siw-golden.sh).
FIELDS="frame.number tcp.stream iwmpa.direction _ws.col.Protocol _ws.col.Info iwmpa.key_kind iwmpa.rev
 iwmpa.fpdu.index iwmpa.ulpdu_length iwmpa.crc.status iwmpa.marker.fpduptr iwddp.t iwrdmap.opcode
 iwrdmap.term.name iwmpa.rtr iwmpa.mode iwmpa.hole iwmpa.not_mpa iwmpa.finding.detail iwmpa.finding _ws.expert.message"
