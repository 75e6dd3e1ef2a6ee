#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A minimal Debian chroot per release, for building and testing the
# Wireshark plugin against that release's Wireshark and compiler (the
# version matrix: scripts/plugin-matrix.sh).
#   scripts/chroot.sh RELEASE                 make it (or reuse it); print its path
#   scripts/chroot.sh RELEASE -- CMD ARGS...  make or reuse it, then run CMD in it
#   scripts/chroot.sh RELEASE --remove        remove it
# RELEASE is bookworm (Wireshark 4.0), trixie (4.4) or sid (4.6).
# Needs root and debootstrap (scripts/deps.sh) and http://deb.debian.org.
#
# The chroots live outside the clone, in $MPA_CHROOT_DIR/RELEASE
# (default /var/cache/mpa-toolkit/chroots).  A chroot is complete when its
# stamp file (.mpa-chroot-stamp) holds the package list below; one
# without it (a run that was stopped) or with another list is removed and
# made again.  debootstrap and apt-get are bounded by MPA_CHROOT_TIMEOUT
# seconds (default 1500).  apt-get update does not refuse a Release file
# past its Valid-Until date (a mirror of unstable that lags behind this
# machine's clock; the signatures are still checked).  Everything that mounts (debootstrap itself,
# /proc and /dev for apt-get and CMD) runs in a private mount namespace
# (unshare -m), so no mount outlives the run, whatever way it ends; the
# trap removes what is left anyway and nothing is removed while a mount
# is seen under the chroot.  Concurrent runs for one release wait for each
# other (flock).
set -eu
release=${1:-}
case $release in
bookworm | trixie | sid) ;;
*) echo "usage: $0 bookworm|trixie|sid [-- CMD ARGS... | --remove]" >&2; exit 2 ;;
esac
shift
[ "$(id -u)" = 0 ] || { echo "chroot: needs root (debootstrap, chroot, mounts)" >&2; exit 2; }
base=${MPA_CHROOT_DIR:-/var/cache/mpa-toolkit/chroots}
root=$base/$release
mirror=${MPA_CHROOT_MIRROR:-http://deb.debian.org/debian}
limit=${MPA_CHROOT_TIMEOUT:-1500}
# What building the plugin and the whole project and running the plugin
# tests need: the compiler, Wireshark's development files and tshark,
# libpcap and cJSON (the capture layer, mpa-audit, iwjson), libnet
# (the injector), setpriv (tshark as an ordinary user), cmake (the
# plugin's CMake build).
pkgs="gcc libc6-dev make pkg-config wireshark-dev libwireshark-dev libglib2.0-dev tshark libpcap-dev libcjson-dev
libnet1-dev util-linux cmake ca-certificates"
pkgs=$(echo $pkgs)
stamp=$root/.mpa-chroot-stamp
want="packages: $pkgs"

mounted_under() { awk -v r="$1" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/mounts; }
remove() {
    if [ -n "$(mounted_under "$root")" ]; then
        echo "chroot: not removing $root: still mounted: $(mounted_under "$root" | tr '\n' ' ')" >&2
        exit 1
    fi
    rm -rf "$root"
}

mkdir -p "$base"
exec 9>"$base/$release.lock"
flock 9

if [ "${1:-}" = "--remove" ]; then
    remove
    echo "chroot: removed $root"
    exit 0
fi

# in_ns CMD...: CMD in a private mount namespace, /proc and /dev mounted
# in the chroot (they vanish with the namespace).
in_ns() {
    unshare --mount --propagation private sh -ec '
        r=$1; shift
        mount -t proc proc "$r/proc"
        mount --bind /dev "$r/dev"
        trap "umount \"$r/dev\" \"$r/proc\" 2>/dev/null || true" EXIT
        "$@"' in_ns "$root" "$@"
}

if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    [ -e "$root" ] && { echo "chroot: $root is not complete or not current: made again" >&2; remove; }
    echo "chroot: making $root (debootstrap --variant=minbase $release $mirror)" >&2
    t0=$(date +%s)
    log=$base/$release.log
    # debootstrap mounts /proc and /sys in the target itself: in its own
    # namespace those mounts cannot outlive it.
    if ! timeout "$limit" unshare --mount --propagation private \
        debootstrap --variant=minbase "$release" "$root" "$mirror" >"$log" 2>&1; then
        echo "chroot: debootstrap failed (log: $log):" >&2
        tail -n 20 "$log" >&2
        remove
        exit 1
    fi
    cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
    # No daemons start in the chroot; tshark is not setuid (the default).
    printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
    chmod 755 "$root/usr/sbin/policy-rc.d"
    # shellcheck disable=SC2086
    if ! timeout "$limit" sh -c '
        r=$1; shift
        unshare --mount --propagation private sh -ec "
            mount -t proc proc \"$r/proc\"
            mount --bind /dev \"$r/dev\"
            export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
            echo \"wireshark-common wireshark-common/install-setuid boolean false\" |
                chroot \"$r\" debconf-set-selections
            chroot \"$r\" apt-get -o Acquire::Check-Valid-Until=false update -qq
            chroot \"$r\" apt-get install -y -qq --no-install-recommends $*
            chroot \"$r\" apt-get clean
            umount \"$r/dev\" \"$r/proc\""' sh "$root" $pkgs >>"$log" 2>&1; then
        echo "chroot: apt-get install in $root failed (log: $log):" >&2
        tail -n 20 "$log" >&2
        remove
        exit 1
    fi
    printf '%s\n' "$want" >"$stamp"
    echo "chroot: $root made in $(($(date +%s) - t0)) s" >&2
fi

if [ "${1:-}" = "--" ]; then
    shift
    [ $# -gt 0 ] || { echo "chroot: no command after --" >&2; exit 2; }
    in_ns chroot "$root" "$@"
    exit $?
fi
echo "$root"
