#!/bin/sh
# Installs the Debian 12 packages the toolkit builds and tests with.
# Idempotent: does nothing when everything is there already.
#   scripts/deps.sh          build and test dependencies (compilers, libpcap,
#                            cJSON; GNU time for the memory checks)
#   scripts/deps.sh bench    also tshark, for the comparison in `make bench`
set -eu
pkgs="gcc make libc6-dev pkg-config clang-14 libclang-rt-14-dev libpcap-dev libcjson-dev time"
if [ "${1:-}" = "bench" ]; then
    pkgs="$pkgs tshark"
fi
missing=""
for p in $pkgs; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
if [ -z "$missing" ]; then
    echo "deps: all present ($pkgs)"
    exit 0
fi
echo "deps: installing$missing"
SUDO=""
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
        echo "deps: need root (or sudo) to install:$missing" >&2
        exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# tshark asks whether non-root users may capture; the default (no) is fine.
echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections 2>/dev/null || true
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
echo "deps: done"
