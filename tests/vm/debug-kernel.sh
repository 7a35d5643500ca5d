#!/usr/bin/env bash
# Build the debug kernel for the VM tests (KASAN, UBSAN, lockdep, kmemleak,
# debug objects) from Debian's linux-source-6.1 (or, with --series 6.12,
# bookworm-backports' linux-source-6.12), reproducibly:
#   1. extract /usr/src/linux-source-SERIES.tar.xz into OUT
#   2. make defconfig + kvm_guest.config, merge tests/vm/debug.config,
#      make olddefconfig, verify every fragment line holds in .config
#   3. make bzImage modules (at nice 19 / idle I/O priority)
#   4. make modules_install INSTALL_MOD_PATH=OUT/modroot (with modules.dep)
# Each step is skipped when already done for the same fragment and script, so
# a second run only prints the paths. Ends with three lines a harness can eval:
#   AOE_DBG_KERNEL=<bzImage>  AOE_DBG_MODULES=<modules dir>  AOE_DBG_KBUILD=<tree>
# (also written to OUT/paths.env). Out-of-tree modules build against it with
#   make -C "$AOE_DBG_KBUILD" M=<dir> modules
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=tests/vm/host-lib.sh
. "$here/host-lib.sh"	# vm_qemu_cpu
fragment=$here/debug.config
series=6.1
out=
jobs=2
force=0
smoke=0

usage() {
	cat <<EOF
usage: $0 [--series 6.1|6.12] [--out DIR] [--jobs N] [--force] [--smoke]
  --series S  the kernel series to build: 6.1 (default, linux-source-6.1) or
              6.12 (linux-source-6.12 from bookworm-backports)
  --out DIR   output directory, outside the repository (default /work/dbgk
              for 6.1, /work/dbgk-6.12 for 6.12)
  --jobs N    parallel make jobs (default $jobs; the machine is shared)
  --force     redo configuration, build and install even if done before
  --smoke     then prove the result: build an out-of-tree module against the
              tree, boot a busybox initramfs under qemu TCG that checks
              kmemleak/lockdep/KASAN and loads brd, veth and that module
Needs: linux-source-6.1 flex bison bc libelf-dev libssl-dev (make deps);
--series 6.12 also apt-get install -t bookworm-backports linux-source-6.12.
EOF
}

while [ $# -gt 0 ]; do
	case "$1" in
	--series) series=${2:?--series needs 6.1 or 6.12}; shift 2 ;;
	--series=*) series=${1#--series=}; shift ;;
	--out) out=${2:?--out needs a directory}; shift 2 ;;
	--out=*) out=${1#--out=}; shift ;;
	--jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
	--jobs=*) jobs=${1#--jobs=}; shift ;;
	--force) force=1; shift ;;
	--smoke) smoke=1; shift ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done

say() { printf 'debug-kernel: %s\n' "$*" >&2; }
die() { printf 'debug-kernel: error: %s\n' "$*" >&2; exit 1; }
# Low priority: other builds and VM tests share the machine's cores.
lowprio() { nice -n 19 ionice -c3 "$@"; }

case "$series" in
6.1) out=${out:-/work/dbgk}; install="run 'make deps' (or apt-get install linux-source-6.1)" ;;
6.12) out=${out:-/work/dbgk-6.12}; install="apt-get install -t bookworm-backports linux-source-6.12" ;;
*) die "--series $series: 6.1 or 6.12" ;;
esac
tarball=/usr/src/linux-source-$series.tar.xz
[ -r "$fragment" ] || die "missing fragment $fragment"
[ -r "$tarball" ] || die "missing $tarball: $install"
for tool in make gcc flex bison bc xz depmod; do
	command -v "$tool" >/dev/null ||
		die "'$tool' not found: run 'make deps' (packages flex bison bc libelf-dev libssl-dev kmod)"
done
[ -e /usr/include/libelf.h ] || die "libelf.h missing (objtool needs it): apt-get install libelf-dev"
[ -e /usr/include/openssl/opensslv.h ] || die "openssl headers missing: apt-get install libssl-dev"

out=$(realpath -m "$out")
repo_real=$(realpath "$repo")
case "$out/" in
"$repo_real"/*) die "--out $out is inside the repository $repo_real: choose a directory outside it" ;;
esac
mkdir -p "$out"

tree=$out/linux-source-$series
start=$(date +%s)

# Stamps: configuration is redone when the base or the fragment changes,
# build and install when the resulting .config changes.
base="defconfig kvm_guest.config"
config_id=$( { echo "$base"; cat "$fragment"; } | sha256sum | cut -d' ' -f1)
dotconfig_id() { sha256sum <"$tree/.config" | cut -d' ' -f1; }
done_step() { [ "$force" = 0 ] && [ "$(cat "$tree/.aoedbg-$1" 2>/dev/null)" = "$2" ]; }
mark_step() { echo "$2" >"$tree/.aoedbg-$1"; }

# 1. Extract.
if [ -e "$tree/.aoedbg-extracted" ]; then
	say "source already extracted in $tree"
else
	say "extracting $tarball into $out"
	rm -rf "$tree"
	lowprio tar -xJf "$tarball" -C "$out"
	[ -e "$tree/Makefile" ] || die "$tarball did not contain linux-source-$series/"
	touch "$tree/.aoedbg-extracted"
fi

# 2. Configure and verify.
# kconfig_has CONFIG_SYM: the symbol is defined in the tree's Kconfig files.
kconfig_has() {
	grep -rqsx --include='Kconfig*' "config ${1#CONFIG_}" "$tree"
}
verify_config() {
	local line sym bad=0 have
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*)
			sym=${line%%=*}
			if ! grep -qxF -- "$line" "$tree/.config" && ! kconfig_has "$sym"; then
				# 6.12 has no UBSAN_SANITIZE_ALL (since 6.9 UBSAN covers all)
				say "$sym is not a symbol of $series: skipped"
			elif ! grep -qxF -- "$line" "$tree/.config"; then
				have=$(grep -E "^(# )?${sym}[= ]" "$tree/.config" || echo "$sym absent")
				say "WANTED $line, HAVE $have"
				bad=$((bad + 1))
			fi
			;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }
			sym=${sym%% *}
			if grep -qE "^$sym=(y|m)$" "$tree/.config"; then
				say "WANTED $sym off, HAVE $(grep -E "^$sym=" "$tree/.config")"
				bad=$((bad + 1))
			fi
			;;
		esac
	done <"$fragment"
	[ "$bad" = 0 ] || die "$bad option(s) of $fragment not in effect after olddefconfig (missing dependency?)"
	say "verified: all $(grep -cE '^(CONFIG_|# CONFIG_.* is not set)' "$fragment") options of $(basename "$fragment") hold in .config"
}

if done_step configured "$config_id" && [ -e "$tree/.config" ]; then
	say "already configured (fragment unchanged)"
	verify_config
else
	say "configuring: ${base// / + } + $(basename "$fragment")"
	rm -f "$tree"/.aoedbg-configured "$tree"/.aoedbg-built "$tree"/.aoedbg-installed
	(
		cd "$tree"
		make -s defconfig
		make -s kvm_guest.config
		scripts/kconfig/merge_config.sh -m .config "$fragment" >/dev/null
		make -s olddefconfig
	)
	verify_config
	mark_step configured "$config_id"
fi
build_id=$(dotconfig_id)

bzimage=$tree/arch/x86/boot/bzImage

# 3. Build.
if done_step built "$build_id" && [ -e "$bzimage" ] && [ -e "$tree/Module.symvers" ]; then
	say "already built: $bzimage"
else
	say "building: make -j$jobs bzImage modules (nice 19; took 57 min on 2 cores shared with other builds)"
	t0=$(date +%s)
	lowprio make -C "$tree" -j"$jobs" bzImage modules
	say "build took $(( $(date +%s) - t0 )) s"
	mark_step built "$build_id"
fi

# The release (with CONFIG_LOCALVERSION) is known once the build ran syncconfig.
kver=$(cat "$tree/include/config/kernel.release" 2>/dev/null || true)
[ -n "$kver" ] || die "no $tree/include/config/kernel.release: the build did not run"
moddir=$out/modroot/lib/modules/$kver

# 4. Install modules (modules.dep included) under OUT/modroot.
if done_step installed "$build_id" && [ -e "$moddir/modules.dep" ]; then
	say "modules already installed in $moddir"
else
	say "installing modules into $out/modroot"
	rm -rf "$out/modroot"
	lowprio make -s -C "$tree" modules_install INSTALL_MOD_PATH="$out/modroot"
	[ -e "$moddir/modules.dep" ] || die "modules_install left no $moddir/modules.dep"
	# Only the modules: drop links back to the tree so copying the dir stays small.
	rm -f "$moddir/build" "$moddir/source"
	mark_step installed "$build_id"
fi

# 5. Optional smoke test: out-of-tree module build + boot under qemu TCG.
smoke_test() {
	local dir=$out/smoke root initrd log t0 rc=0 bad
	command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing: run 'make deps'"
	# ldd fails on a static binary; the initramfs has no libraries.
	if ! [ -x /bin/busybox ] || ldd /bin/busybox >/dev/null 2>&1; then
		die "/bin/busybox missing or not static: apt-get install busybox-static"
	fi
	rm -rf "$dir"
	mkdir -p "$dir/hello" "$dir/root"
	cat >"$dir/hello/hello.c" <<'SRC'
// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>
#include <linux/slab.h>

static int __init hello_init(void)
{
	void *p = kmalloc(64, GFP_KERNEL);

	kfree(p);
	pr_info("aoedbg-hello: loaded\n");
	return 0;
}

static void __exit hello_exit(void)
{
	pr_info("aoedbg-hello: unloaded\n");
}

module_init(hello_init);
module_exit(hello_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("debug-kernel.sh smoke test module");
SRC
	echo 'obj-m := hello.o' >"$dir/hello/Kbuild"
	say "smoke: building an out-of-tree module: make -C $tree M=$dir/hello modules"
	t0=$(date +%s)
	lowprio make -s -C "$tree" M="$dir/hello" modules
	[ -e "$dir/hello/hello.ko" ] || die "smoke: out-of-tree module build produced no hello.ko"
	say "smoke: out-of-tree module built in $(( $(date +%s) - t0 )) s"

	root=$dir/root
	mkdir -p "$root"/{bin,dev,proc,sys,tmp,lib/modules}
	cp /bin/busybox "$root/bin/busybox"
	cp -a "$moddir" "$root/lib/modules/"
	cp "$dir/hello/hello.ko" "$root/hello.ko"
	cat >"$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug
ok() { echo "SMOKE ok $*"; }
ko() { echo "SMOKE FAIL $*"; }
echo "SMOKE uname $(uname -r)"
echo "SMOKE init-reached-at $(cut -d' ' -f1 /proc/uptime) s"
[ -e /sys/kernel/debug/kmemleak ] && ok kmemleak || ko "kmemleak: no /sys/kernel/debug/kmemleak"
[ -e /proc/lockdep ] && ok lockdep || ko "lockdep: no /proc/lockdep"
dmesg | grep 'KernelAddressSanitizer initialized' >/dev/null && ok kasan || ko "kasan: not initialized"
zcat /proc/config.gz | grep '^CONFIG_UBSAN=y' >/dev/null && ok ubsan || ko "ubsan: not in /proc/config.gz"
if modprobe brd rd_nr=1 rd_size=65536 && [ -b /dev/ram0 ]; then ok brd; else ko "modprobe brd"; fi
# busybox ip has no "peer name": the kernel names the peer (veth0).
if modprobe veth && ip link add a0 type veth && ip link set a0 up && [ -e /sys/class/net/a0 ]; then
	ok veth
else
	ko "modprobe veth / ip link add a0 type veth"
fi
if modprobe aoe && modprobe -r aoe; then ok "in-tree aoe load/unload"; else ko "modprobe aoe"; fi
if insmod /hello.ko && rmmod hello; then ok "out-of-tree hello.ko load/unload"; else ko "insmod hello.ko"; fi
if [ -e /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak
	echo "SMOKE kmemleak-reports $(grep -c '^unreferenced object' /sys/kernel/debug/kmemleak)"
fi
if dmesg | grep -E 'BUG:|WARNING:|UBSAN:|KASAN:|possible circular|inconsistent lock'; then
	ko "kernel reported problems (above)"
else
	ok "no BUG/WARNING/UBSAN/KASAN/lockdep reports in dmesg"
fi
echo "SMOKE done at $(cut -d' ' -f1 /proc/uptime) s"
poweroff -f
INIT
	chmod +x "$root/init"
	initrd=$dir/initrd.gz
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$initrd"
	log=$dir/console.log
	say "smoke: booting $bzimage under qemu TCG (initrd $(du -h "$initrd" | cut -f1))"
	t0=$(date +%s)
	timeout 300 qemu-system-x86_64 -accel tcg -cpu "$vm_qemu_cpu" -m 2048 -smp 2 -nographic \
		-nic none -no-reboot -kernel "$bzimage" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1" </dev/null >"$log" 2>&1 || rc=$?
	# Console lines may start with terminal escapes: match SMOKE anywhere.
	tr -d '\r' <"$log" | grep -ao 'SMOKE .*' >&2 || true
	say "smoke: qemu exited with $rc after $(( $(date +%s) - t0 )) s; console log $log"
	grep -aq 'SMOKE done' "$log" || die "smoke: the VM did not reach the end of /init (see $log)"
	bad=$(grep -ac 'SMOKE FAIL' "$log" || true)
	[ "$bad" = 0 ] || die "smoke: $bad check(s) failed (see $log)"
	say "smoke: all checks passed"
}
cat >"$out/paths.env" <<EOF
AOE_DBG_KVER=$kver
AOE_DBG_KERNEL=$bzimage
AOE_DBG_MODULES=$moddir
AOE_DBG_KBUILD=$tree
EOF
[ "$smoke" = 0 ] || smoke_test
say "done in $(( $(date +%s) - start )) s; paths also in $out/paths.env"
grep -v '^AOE_DBG_KVER=' "$out/paths.env"
