#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Installs the Debian 12 packages the toolkit builds and tests with.
# Idempotent: does nothing when everything is there already.
#   scripts/deps.sh          build and test dependencies: compilers, libpcap,
#                            cJSON, GNU time (memory checks), Debian's
#                            packaging tools (debhelper, lintian: make deb),
#                            Wireshark's
#                            development files and tshark (the plugin and its
#                            tests, and the comparison in `make bench`)
#                            and, for `make dut-siw` (Linux soft-iWARP in a
#                            QEMU guest): QEMU, Debian's kernel source and
#                            headers (siw.ko is built out of tree), busybox,
#                            rdma-core's rping, siw provider and verbs headers
#                            (the guest's echo server), cpio, kmod; and
#                            debootstrap, which makes the Debian 13 and
#                            unstable chroots of the Wireshark version matrix
#   scripts/deps.sh bench    the same (kept for the older README)
set -eu
pkgs="gcc g++ make libc6-dev pkg-config build-essential debhelper dpkg-dev lintian clang-14 libclang-rt-14-dev libpcap-dev libcjson-dev libnet1-dev iproute2 groff-base chromium libxml2-utils time wireshark-dev libwireshark-dev libglib2.0-dev tshark qemu-system-x86 linux-source-6.1 linux-headers-amd64 busybox-static rdmacm-utils ibverbs-providers librdmacm-dev libibverbs-dev cpio kmod debootstrap wireshark-qt xvfb x11-apps netpbm xdotool"
missing=""
for p in $pkgs; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
# siw.ko is built from linux-source-6.1 against linux-headers-amd64's
# kernel, so the two must be the same Debian version. The archive does
# not always move them together (bookworm-security once held source
# 6.1.192-3 while the headers were still 6.1.192-2): pin the source to
# the headers' version, up or down.
kernel_source_version() {
    dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null | sed -n 's/.*(= \([^)]*\)).*/\1/p'
}
source_mismatch() {
    want=$(kernel_source_version)
    have=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || true)
    [ -n "$want" ] && [ "$have" != "$want" ]
}
need_root() {
    SUDO=""
    if [ "$(id -u)" != 0 ]; then
        if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
            echo "deps: need root (or sudo) to install:$1" >&2
            exit 1
        fi
    fi
}
sync_kernel_source() {
    source_mismatch || return 0
    want=$(kernel_source_version)
    echo "deps: linux-source-6.1 $(dpkg-query -W -f='${Version}' linux-source-6.1) -> $want (the headers' version)"
    need_root " linux-source-6.1=$want"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends --allow-downgrades "linux-source-6.1=$want"
    if source_mismatch; then
        echo "deps: linux-source-6.1 is not at the headers' version $want (is that version still in Debian's archive?)" >&2
        exit 1
    fi
}
if [ -z "$missing" ]; then
    sync_kernel_source
    echo "deps: all present ($pkgs)"
    exit 0
fi
echo "deps: installing$missing"
need_root "$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# tshark asks whether non-root users may capture; the default (no) is fine.
echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections 2>/dev/null || true
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
sync_kernel_source
echo "deps: done"
