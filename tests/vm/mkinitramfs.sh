#!/usr/bin/env bash
# Build the VM suite's initramfs for one kernel:
#
#   tests/vm/mkinitramfs.sh --kver KVER [--modules-dir DIR] [--module KO]
#                           [--base-module KO] [--ktgt KO] [--inject BIN] [--with-perf]
#                           [--out FILE]
#
# The image is two concatenated gzip cpio archives (the kernel unpacks both):
#   base     busybox, bash, iproute2, vblade, aoetools, fio, e2fsprogs, fdisk,
#            tmux (+ terminfo, C.UTF-8 locale), jq, kmod, udevadm and
#            systemd-udevd (no rules), coreutils bits, nvme-cli and nbd's
#            client and server (make bench's peers, when installed) and the
#            kernel modules the scenarios and make bench need. Cached in build/vm/<kver>/ and
#            rebuilt only when this script, the kernel's modules or the
#            installed packages change.
#   overlay  /init, /aoe/aoe.ko (--module), /aoe/aoe-base.ko (--base-module:
#            make bench --base's other build), /aoe/aoe-ktgt.ko (--ktgt: the
#            in-kernel test target, tests/ktgt), /aoe/bin (the frame injector and
#            the userland tools of build/userland/tools.list with their
#            libraries), /aoe/tests/vm (guest library, scenarios), aoekit's
#            udev rules (contrib/udev) in /lib/udev/rules.d, and with
#            --with-perf the host's perf (make bench --profile). Rebuilt
#            when any of those files changes (content hash).
# Prints the path of the image on stdout.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
here="$top/tests/vm"
kver=""
moddir=""
module=""
base_module=""
ktgt=""
inject=""
perf=0
out=""

usage() {
	sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'
	exit "${1:-0}"
}

while [ $# -gt 0 ]; do
	case "$1" in
	--kver) kver=$2; shift 2 ;;
	--modules-dir) moddir=$2; shift 2 ;;
	--module) module=$2; shift 2 ;;
	--base-module) base_module=$2; shift 2 ;;
	--ktgt) ktgt=$2; shift 2 ;;
	--inject) inject=$2; shift 2 ;;
	--with-perf) perf=1; shift ;;
	--out) out=$2; shift 2 ;;
	-h | --help) usage 0 ;;
	*) echo "mkinitramfs: unknown argument '$1'" >&2; usage 2 >&2 ;;
	esac
done
[ -n "$kver" ] || { echo "mkinitramfs: --kver is required" >&2; exit 2; }
moddir=${moddir:-/lib/modules/$kver}
# Accept either the modules folder itself or an INSTALL_MOD_PATH root.
if [ ! -e "$moddir/modules.dep" ] && [ -e "$moddir/lib/modules/$kver/modules.dep" ]; then
	moddir=$moddir/lib/modules/$kver
fi
[ -e "$moddir/modules.dep" ] || { echo "mkinitramfs: no modules.dep in $moddir" >&2; exit 1; }

outdir="$top/build/vm/$kver"
out=${out:-$outdir/initrd.gz}
mkdir -p "$outdir"

# Kernel modules the scenarios use (built-in ones are skipped).
KMODS=(veth brd sch_netem sch_prio cls_u32 af_packet aoe configfs ext4 null_blk bridge
	nvmet-tcp nvme-tcp nbd)
# Host binaries copied with their libraries: path in the image = host path,
# and each also replaces a busybox applet of the same name in /bin.
BINS=(
	/usr/bin/bash /usr/sbin/ip /usr/sbin/tc /usr/sbin/vblade /usr/bin/fio
	/usr/sbin/mke2fs /usr/sbin/e2fsck /usr/sbin/sfdisk /usr/sbin/fdisk
	/usr/bin/tmux /usr/bin/jq /usr/bin/kmod
	/usr/bin/timeout /usr/bin/md5sum /usr/bin/sha256sum /usr/bin/dd
	/usr/bin/stat /usr/bin/sort /usr/bin/date /usr/bin/setsid /usr/bin/flock
	/usr/bin/setpriv
	/bin/udevadm
)
KMOD_LINKS=(modprobe insmod rmmod lsmod depmod modinfo)
# make bench's peers (NVMe/TCP, NBD), when installed (make deps installs them)
OPT_BINS=(/usr/sbin/nvme /usr/bin/nbd-server /usr/sbin/nbd-client)

# ---------------------------------------------------------------- helpers
# Copy host file $1 to $2 (default: same path) inside staging root $S.
put() {
	local src=$1 dst=${2:-$1}
	mkdir -p "$S$(dirname "$dst")"
	cp -L --preserve=mode "$src" "$S$dst"
	[ -z "${INPUTS:-}" ] || echo "$src" >>"$INPUTS"
}

# Copy the shared libraries an ELF binary needs (as ldd resolves them).
put_libs() {
	local lib
	while read -r lib; do
		[ -e "$S$lib" ] && continue
		# The overlay leaves out what the base image already has.
		[ -n "${BASE_LIST:-}" ] && grep -qxF ".$lib" "$BASE_LIST" && continue
		put "$lib"
	done < <(ldd "$1" 2>/dev/null | awk '/=> \// { print $3 } /^\t\/.*ld-linux/ { print $1 }')
}

put_bin() {
	local src=$1 dst=${2:-$1}
	put "$src" "$dst"
	if file -L "$src" | grep 'ELF.*dynamic' >/dev/null; then
		put_libs "$src"
	fi
}

# gzip'ed newc cpio of staging root $1 into $2 (deterministic order).
pack() {
	(cd "$1" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) |
		gzip -6 >"$2.tmp"
	mv "$2.tmp" "$2"
}

# ---------------------------------------------------------------- base
# Inputs of the base image: this script, the kernel's modules, and every host
# file it copied (recorded in base.inputs while building) by mtime and size.
base_key() {
	{
		sha256sum "$0"
		echo "$kver $moddir"
		stat -L -c '%n %Y %s' "$moddir/modules.dep"
		if [ -e "$outdir/base.inputs" ]; then
			sort -u "$outdir/base.inputs" | xargs -r stat -L -c '%n %Y %s' 2>&1 || true
		fi
	} | sha256sum | cut -d' ' -f1
}

build_base() {
	local f name m
	S=$(mktemp -d "$outdir/base.XXXXXX")
	INPUTS=$outdir/base.inputs
	: >"$INPUTS"
	mkdir -p "$S"/{bin,sbin,usr/bin,usr/sbin,lib,lib64,etc,proc,sys,dev,tmp,run,mnt,root,var/run}
	chmod 1777 "$S/tmp"

	# busybox applets first, all in /bin; real binaries replace them below.
	put /usr/bin/busybox /bin/busybox
	for name in $(/usr/bin/busybox --list); do
		[ "$name" = busybox ] || ln -sf busybox "$S/bin/$name"
	done

	for f in "${BINS[@]}" "${OPT_BINS[@]}"; do
		[ -e "$f" ] || [[ " ${OPT_BINS[*]} " != *" $f "* ]] || continue
		put_bin "$f"
		name=$(basename "$f")
		[ "$f" = "/bin/$name" ] || ln -sf "$f" "$S/bin/$name"
	done
	# systemd-udevd is udevadm under another name (multi-call binary).
	mkdir -p "$S/lib/systemd"
	if [ "$(readlink -f /lib/systemd/systemd-udevd)" = "$(readlink -f /bin/udevadm)" ]; then
		ln -sf /bin/udevadm "$S/lib/systemd/systemd-udevd"
	else
		put_bin /lib/systemd/systemd-udevd
	fi
	for name in "${KMOD_LINKS[@]}"; do
		ln -sf /usr/bin/kmod "$S/sbin/$name"
		ln -sf /usr/bin/kmod "$S/bin/$name"
	done
	# aoetools: binaries and scripts (#! /bin/bash and /bin/sh).
	for f in $(dpkg -L aoetools | grep -E '/s?bin/'); do
		[ -f "$f" ] || continue
		put_bin "$f" "/usr/sbin/$(basename "$f")"
	done
	# iproute2 tables and tc's netem distributions; terminfo and locale for tmux.
	for f in /etc/iproute2 /usr/lib/x86_64-linux-gnu/tc /usr/share/terminfo \
		/lib/terminfo /usr/lib/locale/C.utf8; do
		[ -e "$f" ] || continue
		mkdir -p "$S$(dirname "$f")"
		cp -a "$f" "$S$(dirname "$f")/"
		echo "$f" >>"$INPUTS"
	done
	# The merged-/usr host has /lib/terminfo as /usr/lib/terminfo: keep both names.
	[ -e "$S/lib/terminfo" ] || ln -s /usr/lib/terminfo "$S/lib/terminfo" 2>/dev/null || true
	ln -sf bash "$S/bin/sh.bash"
	ln -sf /proc/mounts "$S/etc/mtab"

	# Kernel modules with their dependencies, at their normal paths.
	local root
	root=$(mktemp -d)
	mkdir -p "$root/lib/modules"
	ln -s "$(cd "$moddir" && pwd)" "$root/lib/modules/$kver"
	for m in "${KMODS[@]}"; do
		while read -r kind f _; do
			[ "$kind" = insmod ] || continue
			f=${f#"$root"}
			f=${f#/lib/modules/"$kver"/}
			f=${f#"$moddir"/}
			mkdir -p "$S/lib/modules/$kver/$(dirname "$f")"
			cp "$moddir/$f" "$S/lib/modules/$kver/$f"
		done < <(modprobe -d "$root" -S "$kver" --show-depends "$m" 2>/dev/null || true)
	done
	rm -rf "$root"
	# Index only what is in the image: the full modules.* are megabytes.
	cp "$moddir"/modules.order "$moddir"/modules.builtin* "$S/lib/modules/$kver/" 2>/dev/null || true
	depmod -b "$S" "$kver"
	pack "$S" "$outdir/base.cpio.gz"
	(cd "$S" && find . -mindepth 1) >"$outdir/base.list"
	rm -rf "$S"
	INPUTS=""
}

key=$(base_key)
if [ ! -s "$outdir/base.cpio.gz" ] || [ ! -s "$outdir/base.list" ] || [ "$(cat "$outdir/base.key" 2>/dev/null)" != "$key" ]; then
	echo "mkinitramfs: building base image for $kver" >&2
	build_base
	key=$(base_key)
	echo "$key" >"$outdir/base.key"
fi

# ---------------------------------------------------------------- overlay
# Inputs of the overlay: (image path, host path) pairs.
overlay=()
overlay+=(/init "$here/init")
for f in "$here"/guest-lib.sh "$here"/demo-guest.sh "$here"/bench-guest.sh "$here"/scenarios/*.sh; do
	[ -e "$f" ] && overlay+=("/aoe/tests/vm/${f#"$here"/}" "$f")
done
[ -n "$module" ] && [ -e "$module" ] && overlay+=(/aoe/aoe.ko "$module")
[ -n "$base_module" ] && overlay+=(/aoe/aoe-base.ko "$base_module")
[ -n "$ktgt" ] && [ -e "$ktgt" ] && overlay+=(/aoe/aoe-ktgt.ko "$ktgt")
# The bash completion and the Prometheus exporter unit (scenario 24 runs them).
for f in "$top"/contrib/bash-completion/aoekit "$top"/contrib/systemd/aoe-prometheus.service; do
	[ -e "$f" ] && overlay+=("/aoe/contrib/${f#"$top"/contrib/}" "$f")
done
for f in "$top"/contrib/udev/*.rules; do
	[ -e "$f" ] && overlay+=("/lib/udev/rules.d/$(basename "$f")" "$f")
done
[ -n "$inject" ] && [ -e "$inject" ] && overlay+=(/aoe/bin/aoe-inject "$inject")
if [ "$perf" = 1 ]; then
	# Debian's /usr/bin/perf (linux-perf); any series profiles the other's kernel
	[ -x /usr/bin/perf ] || { echo "mkinitramfs: --with-perf: no /usr/bin/perf (make deps installs linux-perf)" >&2; exit 1; }
	overlay+=(/usr/bin/perf /usr/bin/perf)
fi
[ -n "$inject" ] && [ -x "$(dirname "$inject")/aoe-target28" ] &&
	overlay+=(/aoe/bin/aoe-target28 "$(dirname "$inject")/aoe-target28")
[ -n "$inject" ] && [ -x "$(dirname "$inject")/aoe-fastd" ] &&
	overlay+=(/aoe/bin/aoe-fastd "$(dirname "$inject")/aoe-fastd")
[ -n "$inject" ] && [ -x "$(dirname "$inject")/aoe-ctlflood" ] &&
	overlay+=(/aoe/bin/aoe-ctlflood "$(dirname "$inject")/aoe-ctlflood")
[ -n "$inject" ] && [ -x "$(dirname "$inject")/aoe-pcut" ] &&
	overlay+=(/aoe/bin/aoe-pcut "$(dirname "$inject")/aoe-pcut")
[ -n "$inject" ] && [ -x "$(dirname "$inject")/aoe-rewrite" ] &&
	overlay+=(/aoe/bin/aoe-rewrite "$(dirname "$inject")/aoe-rewrite")
ub="$top/build/userland"
if [ -e "$ub/tools.list" ]; then
	while read -r t; do
		[ -n "$t" ] && [ -x "$ub/$t" ] && overlay+=("/aoe/bin/$t" "$ub/$t")
	done <"$ub/tools.list"
fi

okey=$(
	{
		sha256sum "$0" | cut -d' ' -f1
		for ((i = 0; i < ${#overlay[@]}; i += 2)); do
			echo "${overlay[i]} $(sha256sum <"${overlay[i + 1]}" | cut -d' ' -f1)"
		done
	} | sha256sum | cut -d' ' -f1
)
if [ ! -s "$outdir/overlay.cpio.gz" ] || [ "$(cat "$outdir/overlay.key" 2>/dev/null)" != "$okey" ]; then
	S=$(mktemp -d "$outdir/overlay.XXXXXX")
	BASE_LIST=$outdir/base.list
	mkdir -p "$S/aoe/bin" "$S/aoe/tests/vm/scenarios"
	for ((i = 0; i < ${#overlay[@]}; i += 2)); do
		dst=${overlay[i]}
		src=${overlay[i + 1]}
		mkdir -p "$S$(dirname "$dst")"
		cp --preserve=mode "$src" "$S$dst"
		case "$dst" in
		/aoe/bin/* | /usr/bin/perf) put_libs "$src" ;;
		esac
	done
	chmod 0755 "$S/init"
	pack "$S" "$outdir/overlay.cpio.gz"
	rm -rf "$S"
	echo "$okey" >"$outdir/overlay.key"
fi

if [ ! -s "$out" ] || [ "$(cat "$out.key" 2>/dev/null)" != "$key $okey" ]; then
	cat "$outdir/base.cpio.gz" "$outdir/overlay.cpio.gz" >"$out.tmp"
	mv "$out.tmp" "$out"
	echo "$key $okey" >"$out.key"
fi
echo "$out"
