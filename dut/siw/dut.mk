# SPDX-License-Identifier: GPL-2.0-or-later
# Linux soft-iWARP (siw) as a device under test (included by the root
# Makefile; see docs/dut/linux-siw.md).
#
#   make dut-siw        build the guest from Debian packages, boot it
#                       (QEMU) behind a tap device in a namespace made for
#                       the run, run every conformance test against siw as
#                       Responder and Initiator, default and p2p builds;
#                       compare the verdicts with dut/siw/verdicts.tsv
#                       (exit 1 naming each test whose verdict changed);
#                       write build/dut-siw/run/report.md
#   make dut-siw-update the same, recording the verdicts of that one run
#                       (review the diff, then update docs/dut/linux-siw.md).
#                       siw's races make some verdicts vary: merge a few
#                       runs' build/dut-siw/run/verdicts.tsv into the record
#                       with dut/siw/merge.sh (docs/dut/linux-siw.md)
#   make dut-siw-matrix the same suite under each kernel of the matrix:
#                       Debian 12's (6.1), Debian 13's (6.12) and
#                       unstable's newest, each guest built from that
#                       release's packages (its chroot, scripts/chroot.sh);
#                       compared with dut/siw/verdicts*.tsv; the table in
#                       build/dut-siw/kernels.md (dut/siw/kernel-matrix.sh)
#   make dut-siw-matrix-update  the same, merging each run into its
#                       kernel's record and writing docs/dut/linux-siw-kernels.md
#   make dut-siw-ipv6   the startup, CRC and TERMINATE tests (both builds,
#                       both roles) over IPv6, compared with the IPv4
#                       record: the verdicts must not depend on the
#                       address family
#   make dut-siw-ipv6-ci a few of them (default build), in make test
#   make siw-golden     mpa-audit and the Wireshark plugin over the
#                       reference captures of siw (captures/siw/); the
#                       verdict comparison's own tests (compare-test.sh)
.PHONY: dut-siw-ipv6 dut-siw-ipv6-ci
DUT_SIW_IPV6_CI := -t 'startup.rev.*' -t 'startup.key.reply-octet-0' -t 'fpdu.crc.bad-crc' -t 'fpdu.terminate.*' \
    -t 'enhanced.ird.reply-ord-above-initiator-ird'
dut-siw-ipv6: $(DUT_SIW_DEPS)
	@dut/siw/run.sh --ipv6 -o $(B)/dut-siw/run-ipv6 -t 'startup.*' -t 'fpdu.crc.*' -t 'fpdu.terminate.*' \
	    --check dut/siw/verdicts.tsv --report $(B)/dut-siw/run-ipv6/report.md
dut-siw-ipv6-ci: $(DUT_SIW_DEPS)
	@dut/siw/run.sh --ipv6 -o $(B)/dut-siw/run-ipv6-ci -b default $(DUT_SIW_IPV6_CI) --check dut/siw/verdicts.tsv
.PHONY: dut-siw dut-siw-update dut-siw-matrix dut-siw-matrix-update siw-golden
DUT_SIW_DEPS := $(B)/mpa-conform $(B)/jget $(B)/siw-report
dut-siw: $(DUT_SIW_DEPS)
	@dut/siw/run.sh -o $(B)/dut-siw/run --check dut/siw/verdicts.tsv --report $(B)/dut-siw/run/report.md
dut-siw-update: $(DUT_SIW_DEPS)
	@dut/siw/run.sh -o $(B)/dut-siw/run --update dut/siw/verdicts.tsv --report docs/dut/linux-siw-verdicts.md \
	    --captures captures/siw
dut-siw-matrix: $(DUT_SIW_DEPS)
	@dut/siw/kernel-matrix.sh
dut-siw-matrix-update: $(DUT_SIW_DEPS)
	@dut/siw/kernel-matrix.sh --update
siw-golden: $(B)/mpa-audit $(B)/dissector/iwmpa.so $(B)/iwjson
	@dut/siw/compare-test.sh
	@dut/siw/siw-golden.sh
