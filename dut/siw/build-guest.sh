#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds the Linux soft-iWARP (siw) guest for `make dut-siw`, from Debian
# packages only:
#   - the kernel: Debian's linux-image matching the installed
#     linux-headers-amd64 (fetched with apt-get download, unpacked here,
#     never installed on this machine);
#   - siw.ko, built out of tree from linux-source-6.1 twice: the default
#     build, and "p2p" with peer_to_peer and mpa_crc_required switched on
#     (siw in 6.1 has these as constants in siw_main.c, not parameters);
#   - siw-echo (dut/siw/siw-echo.c), the echo application the Responder
#     tests assume, built here against librdmacm-dev and libibverbs-dev;
#   - an initramfs: busybox-static, siw-echo, rping (rdmacm-utils), rdma
#     (iproute2), libibverbs/librdmacm and the siw provider with their
#     libraries, the modules, and dut/siw/init.
# Usage: dut/siw/build-guest.sh OUTDIR
# Output: OUTDIR/vmlinuz, OUTDIR/initrd.cpio.gz, OUTDIR/kernel-version.
# Reuses what is already built when its inputs did not change.
set -eu
out=${1:?usage: build-guest.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)

die() { echo "dut-siw: build: $*" >&2; exit 2; }

# The kernel the headers are for: "linux-headers-6.1.0-56-amd64 (= 6.1.192-2)".
dep=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null) ||
    die "linux-headers-amd64 is not installed (run scripts/deps.sh)"
kabi=$(echo "$dep" | sed -n 's/^linux-headers-\([^ ,]*\).*/\1/p')
kver=$(echo "$dep" | sed -n 's/.*(= \([^)]*\)).*/\1/p')
[ -n "$kabi" ] && [ -n "$kver" ] || die "cannot read the kernel version from linux-headers-amd64's Depends: $dep"
hdrs=/usr/src/linux-headers-$kabi
[ -d "$hdrs" ] || die "$hdrs is missing (run scripts/deps.sh)"
src=/usr/src/linux-source-6.1.tar.xz
[ -f "$src" ] || die "$src is missing (run scripts/deps.sh)"
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
[ "$srcver" = "$kver" ] || die "linux-source-6.1 is $srcver but the headers are $kver: run scripts/deps.sh (apt-get upgrade) so they match"
echo "$kabi $kver" > "$out/kernel-version.new"

# 1. The kernel image and its modules.
kimg=$out/linux-image
if [ ! -f "$kimg/boot/vmlinuz-$kabi" ]; then
    echo "dut-siw: fetching linux-image-$kabi ($kver)"
    rm -rf "$out/debs" "$kimg" && mkdir -p "$out/debs"
    (cd "$out/debs" && apt-get download -q "linux-image-$kabi=$kver" 2>&1 | grep -v 'unsandboxed' || true)
    deb=$(ls "$out/debs"/linux-image-"$kabi"_*.deb 2>/dev/null | head -1)
    [ -n "$deb" ] || die "apt-get download linux-image-$kabi=$kver failed (is Debian's archive reachable? run apt-get update)"
    dpkg-deb -x "$deb" "$kimg"
    rm -rf "$out/debs"
    depmod -b "$kimg" "$kabi" || die "depmod failed on $kimg"
fi
cp "$kimg/boot/vmlinuz-$kabi" "$out/vmlinuz"
mods=$kimg/lib/modules/$kabi

# 2. siw.ko, two builds.
build_siw() { # NAME SED-EXPR
    d=$out/siw-$1
    if [ -f "$d/siw.ko" ] && [ "$d/siw.ko" -nt "$src" ] && [ "$d/siw.ko" -nt "$here/build-guest.sh" ]; then
        return 0
    fi
    rm -rf "$d" && mkdir -p "$d"
    if [ ! -f "$out/siw-src/siw_main.c" ]; then
        mkdir -p "$out/siw-src"
        tar -xJf "$src" -C "$out/siw-src" --strip-components=5 linux-source-6.1/drivers/infiniband/sw/siw ||
            die "cannot extract drivers/infiniband/sw/siw from $src"
    fi
    cp "$out/siw-src"/* "$d/"
    if [ -n "$2" ]; then
        sed -i "$2" "$d/siw_main.c"
    fi
    echo "dut-siw: building siw.ko ($1) against $hdrs"
    make -s -C "$hdrs" M="$d" CONFIG_RDMA_SIW=m modules > "$d/build.log" 2>&1 ||
        { cat "$d/build.log" >&2; die "siw.ko ($1) did not build"; }
    [ -f "$d/siw.ko" ] || die "siw.ko ($1) missing after the build"
}
if [ ! -f "$out/siw-default/siw.ko" ] || [ ! -f "$out/siw-p2p/siw.ko" ] ||
   ! cmp -s "$out/kernel-version.new" "$out/kernel-version" 2>/dev/null; then
    rm -rf "$out/siw-default" "$out/siw-p2p" "$out/siw-src"
fi
build_siw default ""
build_siw p2p 's/^const bool peer_to_peer;/const bool peer_to_peer = true;/; s/^const bool mpa_crc_required;/const bool mpa_crc_required = true;/'
grep -q '^const bool peer_to_peer = true;' "$out/siw-p2p/siw_main.c" &&
    grep -q '^const bool mpa_crc_required = true;' "$out/siw-p2p/siw_main.c" ||
    die "siw_main.c no longer declares peer_to_peer/mpa_crc_required as constants: adapt the p2p build"

# 3. The echo application.
echo_bin=$out/siw-echo
if [ ! -x "$echo_bin" ] || [ "$here/siw-echo.c" -nt "$echo_bin" ]; then
    [ -f /usr/include/rdma/rdma_cma.h ] && [ -f /usr/include/infiniband/verbs.h ] ||
        die "librdmacm-dev and libibverbs-dev are not installed (run scripts/deps.sh)"
    ${CC:-cc} -std=gnu11 -Wall -Wextra -Werror -O2 -o "$echo_bin" "$here/siw-echo.c" -lrdmacm -libverbs ||
        die "siw-echo did not build"
fi

# 4. The initramfs.
root=$out/rootfs
rm -rf "$root"
mkdir -p "$root/bin" "$root/sbin" "$root/proc" "$root/sys" "$root/dev" "$root/tmp" \
    "$root/etc/libibverbs.d" "$root/lib/modules" "$root/usr/bin" "$root/usr/lib/x86_64-linux-gnu/libibverbs"
cp /bin/busybox "$root/bin/busybox"
cp "$(command -v rping)" "$root/usr/bin/rping"
cp "$echo_bin" "$root/usr/bin/siw-echo"
cp "$(command -v rdma)" "$root/usr/bin/rdma"
prov=/usr/lib/x86_64-linux-gnu/libibverbs/libsiw-rdmav34.so
[ -f "$prov" ] || prov=$(ls /usr/lib/x86_64-linux-gnu/libibverbs/libsiw-rdmav*.so | head -1)
cp "$prov" "$root/usr/lib/x86_64-linux-gnu/libibverbs/"
cp /etc/libibverbs.d/siw.driver "$root/etc/libibverbs.d/"
# The shared libraries they need, and libgcc_s (rping's threads unwind
# through it at exit: glibc loads it with dlopen, ldd does not list it).
for f in "$root/usr/bin/rping" "$root/usr/bin/siw-echo" "$root/usr/bin/rdma" "$root/usr/lib/x86_64-linux-gnu/libibverbs/"*.so \
         /lib/x86_64-linux-gnu/libgcc_s.so.1; do
    ldd "$f" 2>/dev/null | awk '/=>/ { print $3 } /^[ \t]*\/lib/ { print $1 }'
    case $f in *libgcc_s*) echo "$f" ;; esac
done | sort -u | while read -r lib; do
    [ -f "$lib" ] || continue
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
done
mkdir -p "$root/lib64"
cp -L /lib64/ld-linux-x86-64.so.2 "$root/lib64/"

# Modules, each after what it depends on (modules.dep), in load order.
want="virtio_pci virtio_net configfs crc32c_generic libcrc32c ib_core ib_cm iw_cm rdma_cm ib_uverbs rdma_ucm"
order=$out/modules.order
: > "$order"
add_mod() { # NAME (file name without .ko, "-" and "_" alike)
    local n line path dep d
    n=$(echo "$1" | tr - _)
    line=$(awk -v n="$n" -F: '{ f=$1; sub(/.*\//, "", f); sub(/\.ko$/, "", f); gsub(/-/, "_", f); if (f == n) { print; exit } }' "$mods/modules.dep")
    [ -n "$line" ] || die "module $1 not found in $mods/modules.dep"
    path=${line%%:*}
    grep -qx "$path" "$order" && return 0
    for dep in ${line#*:}; do
        d=$(basename "$dep" .ko)
        add_mod "$d"
    done
    grep -qx "$path" "$order" || echo "$path" >> "$order"
}
for m in $want; do add_mod "$m"; done
while read -r p; do
    cp "$mods/$p" "$root/lib/modules/$(basename "$p")"
    basename "$p"
done < "$order" > "$root/lib/modules/order"
# The other 400 MB of modules are not needed again (modules.dep stays).
find "$mods/kernel" -name '*.ko' | sed "s|^$mods/||" | grep -vxF -f "$order" | (cd "$mods" && xargs -r rm -f)
cp "$out/siw-default/siw.ko" "$root/lib/modules/siw-default.ko"
cp "$out/siw-p2p/siw.ko" "$root/lib/modules/siw-p2p.ko"
cp "$here/init" "$root/init"
chmod 755 "$root/init"
echo "$kabi $kver" > "$root/etc/kernel-version"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) > "$out/initrd.cpio.gz.new"
mv "$out/initrd.cpio.gz.new" "$out/initrd.cpio.gz"
mv "$out/kernel-version.new" "$out/kernel-version"
echo "dut-siw: guest ready: Linux $kabi ($kver), $(du -k "$out/initrd.cpio.gz" | cut -f1) KiB initramfs"
