#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds the Linux soft-iWARP (siw) guest for `make dut-siw`, from Debian
# packages only:
#   - the kernel: Debian's linux-image matching linux-headers-amd64
#     (fetched with apt-get download, unpacked here, never installed);
#   - siw.ko, built out of tree from Debian's linux-source twice: the
#     default build, and "p2p" with peer_to_peer and mpa_crc_required
#     switched on (siw has these as constants in siw_main.c, not
#     parameters, in 6.1, 6.12 and 7.2 alike);
#   - siw-echo (dut/siw/siw-echo.c), the echo application the Responder
#     tests assume, built here against librdmacm-dev and libibverbs-dev;
#   - an initramfs: busybox-static, siw-echo, rping (rdmacm-utils), rdma
#     (iproute2), libibverbs/librdmacm and the siw provider with their
#     libraries, the modules, and dut/siw/init.
# Usage: dut/siw/build-guest.sh OUTDIR [RELEASE]
# RELEASE picks the kernel: bookworm (the default: this Debian 12
# machine's linux-headers-amd64 and linux-source-6.1, Linux 6.1), trixie
# (Debian 13, Linux 6.12) or sid (unstable, the newest kernel Debian has).
# For trixie and sid the kernel headers and source come into that
# release's chroot (scripts/chroot.sh, cached outside the clone) and
# siw.ko is built there with the release's compiler; the guest's user
# space stays this machine's (the verbs ABI does not change with the
# kernel).
# Output: OUTDIR/vmlinuz, OUTDIR/initrd.cpio.gz, OUTDIR/kernel-version.
# Reuses what is already built when its inputs did not change.
set -eu
out=${1:?usage: build-guest.sh OUTDIR [RELEASE]}
release=${2:-bookworm}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)

die() { echo "dut-siw: build: $*" >&2; exit 2; }

# in_root CMD: CMD (a shell command) where the kernel is built: here for
# bookworm, in the release's chroot otherwise; root is where that tree's
# files are seen from here.
case $release in
bookworm)
    root_fs=""
    in_root() { sh -ec "$1"; }
    ;;
trixie | sid)
    root_fs=$("$top/scripts/chroot.sh" "$release") || die "no $release chroot (scripts/chroot.sh $release)"
    in_root() { "$top/scripts/chroot.sh" "$release" -- sh -ec "$1"; }
    # The kernel's packages, added to the release's chroot once.
    in_root 'dpkg-query -W -f="\${Status}" linux-headers-amd64 2>/dev/null | grep -q "ok installed" &&
             ls /usr/src/linux-source-*.tar.xz >/dev/null 2>&1 && exit 0
             export DEBIAN_FRONTEND=noninteractive
             apt-get -o Acquire::Check-Valid-Until=false update -qq
             src=$(apt-cache depends linux-source | sed -n "s/.*Depends: //p" | head -1)
             [ -n "$src" ] || { echo "no linux-source in this release" >&2; exit 1; }
             apt-get install -y -qq --no-install-recommends linux-headers-amd64 "$src" xz-utils kmod >/dev/null' ||
        die "cannot install the $release kernel headers and source in its chroot"
    ;;
*) die "RELEASE is bookworm, trixie or sid, not $release" ;;
esac

# The kernel the headers are for: "linux-headers-6.1.0-56-amd64 (= 6.1.192-2)".
dep=$(in_root 'dpkg-query -W -f="\${Depends}" linux-headers-amd64 2>/dev/null') ||
    die "linux-headers-amd64 is not installed (run scripts/deps.sh)"
# (unstable's also names linux-base-amd64 first: take the headers' entry)
hdep=$(echo "$dep" | tr ',' '\n' | sed 's/^ *//' | grep '^linux-headers-' | head -1)
kabi=$(echo "$hdep" | sed -n 's/^linux-headers-\([^ ,]*\).*/\1/p')
kver=$(echo "$hdep" | sed -n 's/.*(= \([^)]*\)).*/\1/p')
[ -n "$kabi" ] && [ -n "$kver" ] || die "cannot read the kernel version from linux-headers-amd64's Depends: $dep"
hdrs=/usr/src/linux-headers-$kabi
[ -d "$root_fs$hdrs" ] || die "$root_fs$hdrs is missing (run scripts/deps.sh)"
src=$(ls "$root_fs"/usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -1)
[ -n "$src" ] && [ -f "$src" ] || die "no linux-source tarball in $root_fs/usr/src (run scripts/deps.sh)"
srcpkg=$(basename "$src" .tar.xz)
srcver=$(in_root "dpkg-query -W -f='\${Version}' $srcpkg")
[ "$srcver" = "$kver" ] || die "$srcpkg is $srcver but the headers are $kver: run scripts/deps.sh (it pins the source to the headers' version)"
echo "$kabi $kver $release" > "$out/kernel-version.new"

# 1. The kernel image and its modules.
kimg=$out/linux-image
if [ ! -f "$kimg/boot/vmlinuz-$kabi" ]; then
    echo "dut-siw: fetching linux-image-$kabi ($kver, $release)"
    rm -rf "$out/debs" "$kimg" && mkdir -p "$out/debs"
    # Since Linux 7 Debian splits the image: linux-image-ABI depends on
    # linux-binary-ABI (the kernel) and linux-modules-ABI; fetch those too.
    get="linux-image-$kabi=$kver"
    parts=$(in_root "apt-cache depends 'linux-image-$kabi=$kver' 2>/dev/null" |
            sed -n "s/^ *Depends: \(linux-\(binary\|modules\)-$kabi\)\$/\1/p" | sort -u)
    for p in $parts; do get="$get $p=$kver"; done
    if [ -z "$root_fs" ]; then
        (cd "$out/debs" && apt-get download -q $get 2>&1 | grep -v 'unsandboxed' || true)
    else
        in_root "rm -rf /tmp/mpa-kimg && mkdir -p /tmp/mpa-kimg && cd /tmp/mpa-kimg &&
                 { apt-get download -q $get 2>&1 | grep -v unsandboxed || true; }"
        mv "$root_fs"/tmp/mpa-kimg/*.deb "$out/debs/" 2>/dev/null || true
    fi
    deb=$(ls "$out/debs"/linux-image-"$kabi"_*.deb 2>/dev/null | head -1)
    [ -n "$deb" ] || die "apt-get download linux-image-$kabi=$kver failed (is Debian's archive reachable? run apt-get update)"
    for deb in "$out/debs"/*.deb; do dpkg-deb -x "$deb" "$kimg"; done
    # (unstable's linux-binary puts the image in the modules folder)
    if [ ! -f "$kimg/boot/vmlinuz-$kabi" ] && [ -f "$kimg/usr/lib/modules/$kabi/vmlinuz" ]; then
        mkdir -p "$kimg/boot" && cp "$kimg/usr/lib/modules/$kabi/vmlinuz" "$kimg/boot/vmlinuz-$kabi"
    fi
    [ -f "$kimg/boot/vmlinuz-$kabi" ] || die "no vmlinuz for $kabi in $get"
    rm -rf "$out/debs"
fi
if [ ! -f "$kimg/lib/modules/$kabi/modules.dep" ] && [ ! -f "$kimg/usr/lib/modules/$kabi/modules.dep" ]; then
    # Debian 13 and later put the modules under /usr (merged /usr).
    mbase=$kimg
    [ -d "$kimg/lib/modules/$kabi" ] || mbase=$kimg/usr
    # Modules compressed by the package (.ko.xz, .ko.zst) are unpacked:
    # the guest loads them with busybox insmod.
    find "$mbase/lib/modules/$kabi" -name '*.ko.xz' -exec xz -d {} + 2>/dev/null || true
    find "$mbase/lib/modules/$kabi" -name '*.ko.zst' -exec sh -c 'for f; do zstd -q -d --rm "$f"; done' sh {} + 2>/dev/null || true
    depmod -b "$mbase" "$kabi" || die "depmod failed on $mbase"
fi
cp "$kimg/boot/vmlinuz-$kabi" "$out/vmlinuz"
mods=$kimg/lib/modules/$kabi
[ -d "$mods" ] || mods=$kimg/usr/lib/modules/$kabi

# 2. siw.ko, two builds.
build_siw() { # NAME SED-EXPR
    d=$out/siw-$1
    if [ -f "$d/siw.ko" ] && [ "$d/siw.ko" -nt "$src" ] && [ "$d/siw.ko" -nt "$here/build-guest.sh" ]; then
        return 0
    fi
    rm -rf "$d" && mkdir -p "$d"
    if [ ! -f "$out/siw-src/siw_main.c" ]; then
        mkdir -p "$out/siw-src"
        tar -xJf "$src" -C "$out/siw-src" --strip-components=5 "$srcpkg/drivers/infiniband/sw/siw" ||
            die "cannot extract drivers/infiniband/sw/siw from $src"
    fi
    cp "$out/siw-src"/* "$d/"
    if [ -n "$2" ]; then
        sed -i "$2" "$d/siw_main.c"
    fi
    echo "dut-siw: building siw.ko ($1) against $hdrs ($release)"
    if [ -z "$root_fs" ]; then
        make -s -C "$hdrs" M="$d" CONFIG_RDMA_SIW=m modules > "$d/build.log" 2>&1 ||
            { cat "$d/build.log" >&2; die "siw.ko ($1) did not build"; }
    else
        # Built inside the chroot, where the release's compiler is.
        b=/tmp/mpa-siw-$1
        rm -rf "$root_fs$b" && mkdir -p "$root_fs$b" && cp "$d"/* "$root_fs$b/"
        in_root "make -s -C $hdrs M=$b CONFIG_RDMA_SIW=m modules" > "$d/build.log" 2>&1 ||
            { cat "$d/build.log" >&2; die "siw.ko ($1) did not build in the $release chroot"; }
        cp "$root_fs$b/siw.ko" "$d/siw.ko" 2>/dev/null || true
        rm -rf "$root_fs$b"
    fi
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
    if [ -z "$line" ]; then
        # Built into this kernel (virtio in some configurations), or gone
        # from it (libcrc32c, in newer kernels).
        builtin_mod "$n" && return 0
        die "module $1 is neither in $mods/modules.dep nor built into the kernel ($root_fs$hdrs/.config)"
    fi
    path=${line%%:*}
    grep -qx "$path" "$order" && return 0
    for dep in ${line#*:}; do
        d=$(basename "$dep" .ko)
        add_mod "$d"
    done
    grep -qx "$path" "$order" || echo "$path" >> "$order"
}
builtin_mod() { # NAME: built in (or, for crc32c's modules, gone) in this kernel?
    if [ -f "$mods/modules.builtin" ] &&
        sed 's|.*/||; s|\.ko$||; s|-|_|g' "$mods/modules.builtin" | grep -qx "$1"; then
        return 0
    fi
    # Unstable's packages no longer ship modules.builtin: ask the
    # kernel's configuration, for the modules the guest asks for by name.
    case $1 in
    virtio_pci) sym=CONFIG_VIRTIO_PCI ;;
    virtio_net) sym=CONFIG_VIRTIO_NET ;;
    configfs) sym=CONFIG_CONFIGFS_FS ;;
    crc32c_generic) sym=CONFIG_CRYPTO_CRC32C ;;
    libcrc32c) sym=CONFIG_LIBCRC32C ;;
    *) return 1 ;;
    esac
    grep -qx "$sym=y" "$root_fs$hdrs/.config" && return 0
    # crc32c's modules (the crypto algorithm libcrc32c asks for by name
    # in 6.1) are gone or renamed in newer kernels, where siw takes
    # crc32c from lib/ (its own dependencies, below, are still loaded)
    case $1 in crc32c_generic | libcrc32c) echo "dut-siw: no $1 module in $kabi: not loaded" ;; *) return 1 ;; esac
}
# What siw itself needs, as its build says (crc32c's module moved between
# kernels).
want="$want $(/sbin/modinfo -F depends "$out/siw-default/siw.ko" | tr ',' ' ')"
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
