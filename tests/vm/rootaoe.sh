#!/usr/bin/env bash
# Root filesystem on AoE, end to end, with Debian's own initramfs-tools:
#
#   tests/vm/rootaoe.sh [--kernel KVER]... [--modules most|list]
#                       [--root dev|uuid] [--no-target] [--keep]
#
# For each kernel (default: every installed 6.1 and 6.12 kernel):
#   1. builds kmod/ for it (build/kmod-KVER, as tests/vm/run.sh does);
#   2. runs the real mkinitramfs with a throwaway configuration directory: a
#      copy of /etc/initramfs-tools plus contrib/initramfs-tools' hook and
#      local-top script, AOE_KO= the module of step 1 (the host's
#      /etc/initramfs-tools and /lib/modules are only read). --modules list
#      (default, quicker) sets MODULES=list with virtio_net and ext4 in the
#      modules file; --modules most keeps the host's setting (Debian's
#      default MODULES=most);
#      and checks the image: our local-top script, exactly one aoe.ko, ours;
#      for the first kernel also the hook without AOE_KO (the installed aoe
#      module: the in-tree one gives a "W: aoe hook:" warning) and with a
#      missing AOE_KO file (mkinitramfs fails with "E: aoe hook:");
#   3. makes a 64 MiB ext4 root image (mke2fs -d) holding busybox and an
#      /sbin/init shell script that remounts / read-write, prints the root
#      mount and aoe.ko's version, reads a token file put there now, writes
#      a file and 1 MiB of random data, syncs and powers off;
#   4. boots two qemu VMs joined by a socket netdev on 127.0.0.1: "target"
#      (a minimal initramfs: busybox, vblade -s serving the image as e1.0
#      from its virtio disk) and "initiator" (the kernel with the mkinitramfs
#      image, root=/dev/etherd/e1.0 aoe_iflist=eth0 net.ifnames=0; with
#      --root uuid: root=UUID=<the image's> aoe=e1.0 aoe_iflist=eth0 ...);
#   5. checks the initiator's console (root is /dev/etherd/e1.0, aoe.ko is
#      aoekit's, the token was read, the init finished) and, after both VMs
#      stopped, the image: the written file and the random data's md5sum
#      (debugfs), and e2fsck -fn.
#   --no-target: one more initiator boot, aoe_wait=5 and no target on the
#      network: the boot script must say "aoe: no AoE disk ... after 5 s"
#      and the boot end in Debian's "ALERT! ... does not exist" panic
#      (panic=-1: the VM reboots, i.e. qemu exits) well before its limit.
# Prints "PASS rootaoe/KVER/STEP" or "FAIL rootaoe/KVER/STEP: reason" lines;
# the consoles and the mkinitramfs log stay in build/rootaoe/KVER/. Exit
# status 1 if anything failed. Needs root (mkinitramfs, mke2fs -d owners).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/vm/host-lib.sh
. "$top/tests/vm/host-lib.sh"
kernels=()
modules=list
rootby=dev
notarget=0
keep=0
hook_checked=0

usage() {
	sed -n '2,39p' "$0" | sed 's/^# \{0,1\}//'
	exit "${1:-0}"
}

while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernels+=("$2"); shift 2 ;;
	--modules) modules=$2; shift 2 ;;
	--root) rootby=$2; shift 2 ;;
	--no-target) notarget=1; shift ;;
	--keep) keep=1; shift ;;
	-h | --help) usage 0 ;;
	*) echo "rootaoe.sh: unknown argument '$1'" >&2; usage 2 >&2 ;;
	esac
done
case "$modules" in most | list) ;; *) echo "rootaoe.sh: --modules most|list" >&2; exit 2 ;; esac
case "$rootby" in dev | uuid) ;; *) echo "rootaoe.sh: --root dev|uuid" >&2; exit 2 ;; esac
[ ${#kernels[@]} -gt 0 ] || mapfile -t kernels < <(vm_host_kernels)
[ ${#kernels[@]} -gt 0 ] || { echo "FAIL rootaoe/kernels: no 6.1 or 6.12 kernel with headers"; exit 1; }
for t in mkinitramfs unmkinitramfs mke2fs debugfs e2fsck vblade qemu-system-x86_64 cpio; do
	command -v "$t" >/dev/null || { echo "FAIL rootaoe/tools: $t missing (make deps)"; exit 1; }
done

say() { printf 'rootaoe: %s\n' "$*" >&2; }
now() { date +%s; }
failed=0
pass() { echo "PASS rootaoe/$kv/$1"; }
# fail STEP REASON: the rest of this kernel's steps are skipped.
fail() {
	echo "FAIL rootaoe/$kv/$1: $2"
	failed=1
}

pids=()
work=""
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	[ -z "$work" ] || [ "$keep" = 1 ] || rm -rf "$work"
}
trap cleanup EXIT

# A TCP port on 127.0.0.1 nobody listens on.
free_port() {
	local p
	for _ in $(seq 50); do
		p=$((20000 + RANDOM % 20000))
		ss -Hltn "sport = :$p" 2>/dev/null | grep . >/dev/null || { echo "$p"; return 0; }
	done
	return 1
}

# Copy $1 (host path) with its shared libraries into staging root $2.
put_bin() {
	local lib
	mkdir -p "$2$(dirname "$1")"
	cp -L "$1" "$2$1"
	while read -r lib; do
		[ -e "$2$lib" ] && continue
		mkdir -p "$2$(dirname "$lib")"
		cp -L "$lib" "$2$lib"
	done < <(ldd "$1" 2>/dev/null | awk '/=> \// { print $3 } /^\t\/.*ld-linux/ { print $1 }')
}

# The target VM's initramfs: busybox, vblade, the virtio modules.
target_initrd() {
	local kv=$1 out=$2 s m f ko
	s=$(mktemp -d "$work/target.XXXXXX")
	mkdir -p "$s"/{bin,sbin,proc,sys,dev,mod}
	cp /usr/bin/busybox "$s/bin/busybox"
	for m in sh mount insmod ip sleep cat echo poweroff sync; do
		ln -s busybox "$s/bin/$m"
	done
	put_bin /usr/sbin/vblade "$s"
	: >"$s/mod/order"
	for m in virtio_pci virtio_net virtio_blk; do
		while read -r kind f _; do
			[ "$kind" = insmod ] || continue
			ko=$(basename "$f")
			ko=${ko%.xz}
			ko=${ko%.zst}
			grep -qxF "$ko" "$s/mod/order" && continue
			case "$f" in
			*.xz) xz -dc "$f" >"$s/mod/$ko" ;;
			*.zst) zstd -qdc "$f" >"$s/mod/$ko" ;;
			*) cp "$f" "$s/mod/$ko" ;;
			esac
			echo "$ko" >>"$s/mod/order"
		done < <(modprobe -S "$kv" --show-depends "$m" 2>/dev/null || true)
	done
	cat >"$s/init" <<'EOF'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /mod/order); do insmod /mod/$m; done
i=0
while [ ! -b /dev/vda ] || [ ! -e /sys/class/net/eth0 ]; do
	i=$((i + 1))
	[ $i -le 30 ] || { echo "TARGET-FAIL no /dev/vda or eth0"; poweroff -f; }
	sleep 1
done
ip link set lo up
ip link set eth0 up
echo "TARGET-READY serving /dev/vda as e1.0 on eth0"
# -s: O_SYNC, every write is on the virtio disk when it is acknowledged
/usr/sbin/vblade -s 1 0 eth0 /dev/vda
echo "TARGET-FAIL vblade exited"
poweroff -f
EOF
	chmod 0755 "$s/init"
	(cd "$s" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) | gzip -6 >"$out"
	rm -rf "$s"
}

# The root filesystem: busybox and /sbin/init.
root_image() {
	local img=$1 token=$2 s
	s=$(mktemp -d "$work/root.XXXXXX")
	mkdir -p "$s"/{bin,sbin,etc,proc,sys,dev,run,tmp,root,data}
	cp /usr/bin/busybox "$s/bin/busybox"
	for m in $(/usr/bin/busybox --list); do
		[ "$m" = busybox ] || [ -e "$s/bin/$m" ] || ln -s busybox "$s/bin/$m"
	done
	echo "$token" >"$s/etc/rootaoe-token"
	cat >"$s/sbin/init" <<'EOF'
#!/bin/sh
# PID 1 on the AoE root: prove the root is the AoE disk and is read-write.
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -o remount,rw / || echo "ROOTAOE-FAIL remount rw"
echo "ROOTAOE-ROOT $(grep ' / ' /proc/mounts | grep -v rootfs | head -n 1)"
echo "ROOTAOE-MODULE $(cat /sys/module/aoe/version 2>/dev/null)"
echo "ROOTAOE-READ $(cat /etc/rootaoe-token)"
echo "written on the AoE root: $(cat /etc/rootaoe-token)" >/data/written
dd if=/dev/urandom of=/data/random bs=64k count=16 2>/dev/null
sync
echo "ROOTAOE-MD5 $(md5sum /data/random | cut -d' ' -f1)"
echo "ROOTAOE-BACK $(cat /data/written)"
mount -o remount,ro / || echo "ROOTAOE-FAIL remount ro"
echo "ROOTAOE-DONE"
poweroff -f
EOF
	chmod 0755 "$s/sbin/init"
	mke2fs -q -F -t ext4 -L aoeroot -d "$s" "$img" 64M
	rm -rf "$s"
}

# wait_for FILE PATTERN SECONDS PID: until PATTERN is in FILE or PID is gone.
wait_for() {
	local i
	for ((i = 0; i < $3; i++)); do
		grep -aq "$2" "$1" 2>/dev/null && return 0
		kill -0 "$4" 2>/dev/null || break
		sleep 1
	done
	grep -aq "$2" "$1" 2>/dev/null
}

qemu_common=(qemu-system-x86_64 -accel tcg -cpu "$vm_qemu_cpu" -smp 1 -nographic -no-reboot)

# hook_checks: the hook without AOE_KO, and with a missing AOE_KO file (uses
# $conf, $kv, $out and $work of one_kernel).
hook_checks() {
	local log=$out/mkinitramfs-hook-installed.log img=$work/initrd-hook.img x main n installed
	installed=$(modinfo -k "$kv" -F filename aoe 2>/dev/null || true)
	if ! env -u AOE_KO TMPDIR="$work" nice -n 19 mkinitramfs -d "$conf" -o "$img" "$kv" >"$log" 2>&1; then
		fail hook-installed-module "mkinitramfs without AOE_KO failed (build/rootaoe/$kv/mkinitramfs-hook-installed.log)"
	else
		x=$work/unpacked-hook
		mkdir -p "$x"
		unmkinitramfs "$img" "$x" >>"$log" 2>&1 || true
		main=$x
		[ -d "$x/main" ] && main=$x/main
		n=$(find "$main" -name 'aoe.ko*' | wc -l)
		if [ -z "$installed" ]; then
			grep -q '^W: aoe hook: no aoe module' "$log" && pass hook-installed-module ||
				fail hook-installed-module "no aoe module installed and no warning"
		elif modinfo -F description "$installed" | grep aoekit >/dev/null; then
			if [ "$n" = 1 ] && ! grep -q '^W: aoe hook' "$log"; then
				pass hook-installed-module
			else
				fail hook-installed-module "aoekit's $installed installed: $n aoe.ko in the image, or a warning"
			fi
		elif grep -q "^W: aoe hook: $installed is not aoekit's aoe.ko" "$log" && [ "$n" -ge 1 ]; then
			pass hook-installed-module
		else
			fail hook-installed-module "in-tree $installed: no 'W: aoe hook: ... is not aoekit's' warning or no aoe.ko ($n) in the image"
		fi
	fi
	rm -rf "$work/unpacked-hook" "$img"
	log=$out/mkinitramfs-hook-missing.log
	if AOE_KO=$work/no-such-aoe.ko TMPDIR="$work" nice -n 19 mkinitramfs -d "$conf" -o "$img" "$kv" >"$log" 2>&1; then
		fail hook-missing-ko "mkinitramfs succeeded with AOE_KO naming a missing file"
	elif grep -q "^E: aoe hook: AOE_KO=$work/no-such-aoe.ko: no such file" "$log"; then
		pass hook-missing-ko
	else
		fail hook-missing-ko "no 'E: aoe hook: AOE_KO=...: no such file' message: $(grep -m 1 '^E:' "$log")"
	fi
	rm -f "$img"
}

# no_target: the initiator alone (uses $kv, $initrd, $rootarg, $out of
# one_kernel).
no_target() {
	local port icon=$out/initiator-no-target.console log=$out/initiator-no-target.log ts rc=0
	port=$(free_port) || { fail no-target "no free TCP port"; return; }
	say "$kv: initiator VM without a target"
	ts=$(now)
	# listen: the NIC is there, nobody is on the other end
	timeout --foreground -k 5 300 nice -n 10 "${qemu_common[@]}" -m 512 \
		-kernel "/boot/vmlinuz-$kv" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 no_timer_check $rootarg aoe_iflist=eth0 aoe_wait=5 net.ifnames=0" \
		-netdev "socket,id=n0,listen=127.0.0.1:$port" \
		-device virtio-net-pci,netdev=n0,mac=52:54:00:a0:e1:02 \
		</dev/null >"$icon" 2>&1 || rc=$?
	vm_host_clean_console <"$icon" >"$log"
	say "$kv: initiator VM without a target ran $(($(now) - ts)) s"
	if [ "$rc" = 124 ]; then
		fail no-target "the VM did not end (timed out after 300 s): the wait is not bounded"
	elif ! grep -aq '^aoe: no AoE disk /dev/etherd/e1.0 after 5 s on eth0' "$log"; then
		fail no-target "no 'aoe: no AoE disk /dev/etherd/e1.0 after 5 s on eth0' line: $(grep -a -m 1 '^aoe: ' "$log" || echo none)"
	elif ! grep -aq 'ALERT!  .* does not exist' "$log" || ! grep -aq 'Rebooting automatically due to panic=' "$log"; then
		fail no-target "no 'ALERT! ... does not exist' panic and reboot after the aoe message"
	elif grep -aq 'ROOTAOE-' "$log"; then
		fail no-target "a root was mounted without a target"
	else
		pass no-target
	fi
}

# one_kernel: steps 1-5 for $kv; returns at the first failed step that
# the later ones need.
one_kernel() {
	local t0 out conf tm initrd x main kos token img tinit port tb tcon icon tpid ti ilog
	local why rootline modline md5_vm written md5_img size rootarg irc=0
	t0=$(now)
	out="$top/build/rootaoe/$kv"
	rm -rf "$out"
	mkdir -p "$out"
	work=$(mktemp -d "/tmp/rootaoe.XXXXXX")
	pids=()

	# 1. the module
	say "$kv: building kmod/"
	if ! ko=$(vm_host_kmod "$kv" "/lib/modules/$kv/build"); then
		fail kmod-build "$(vm_host_kmod_error "$kv")"
		return
	fi
	pass kmod-build

	# 2. mkinitramfs with the hook
	conf=$work/initramfs-tools
	cp -a /etc/initramfs-tools "$conf"
	mkdir -p "$conf/hooks" "$conf/scripts/local-top" "$conf/conf.d"
	install -m 0755 "$top/contrib/initramfs-tools/hooks/aoe" "$conf/hooks/aoe"
	install -m 0755 "$top/contrib/initramfs-tools/scripts/local-top/aoe" "$conf/scripts/local-top/aoe"
	if [ "$modules" = list ]; then
		echo "MODULES=list" >"$conf/conf.d/zz-rootaoe-test"
		printf '%s\n' virtio_pci virtio_net ext4 >>"$conf/modules"
	fi
	say "$kv: mkinitramfs (MODULES=$modules)"
	tm=$(now)
	initrd=$work/initrd.img
	if ! AOE_KO=$ko TMPDIR=$work nice -n 19 mkinitramfs -d "$conf" -o "$initrd" "$kv" >"$out/mkinitramfs.log" 2>&1; then
		fail mkinitramfs "mkinitramfs failed: $(grep -m 1 -E '^E:|rror' "$out/mkinitramfs.log" || tail -n 1 "$out/mkinitramfs.log")"
		return
	fi
	say "$kv: mkinitramfs took $(($(now) - tm)) s, $(($(stat -c %s "$initrd") / 1024)) KiB"
	x=$work/unpacked
	mkdir -p "$x"
	if ! unmkinitramfs "$initrd" "$x" >>"$out/mkinitramfs.log" 2>&1; then
		fail mkinitramfs "unmkinitramfs cannot unpack the image"
		return
	fi
	main=$x
	[ -d "$x/main" ] && main=$x/main
	mapfile -t kos < <(find "$main" -name 'aoe.ko*')
	if ! cmp -s "$main/scripts/local-top/aoe" "$top/contrib/initramfs-tools/scripts/local-top/aoe"; then
		fail mkinitramfs "the image's scripts/local-top/aoe is not contrib/initramfs-tools' one"
		return
	elif [ ${#kos[@]} -ne 1 ]; then
		fail mkinitramfs "${#kos[@]} aoe.ko in the image (want exactly one): ${kos[*]#"$main"}"
		return
	elif ! cmp -s "${kos[0]}" "$ko"; then
		fail mkinitramfs "the image's ${kos[0]#"$main"} is not the module built in step 1"
		return
	elif [ ! -x "$main/sbin/ip" ] && [ ! -x "$main/usr/sbin/ip" ]; then
		fail mkinitramfs "no ip in the image"
		return
	fi
	grep -q "updates/aoe.ko" "$main/lib/modules/$kv/modules.dep" || {
		fail mkinitramfs "updates/aoe.ko not in the image's modules.dep"
		return
	}
	pass mkinitramfs
	if [ "$hook_checked" = 0 ]; then
		hook_checked=1
		hook_checks
	fi

	# 3. the root image
	token="rootaoe-$kv-$$-$RANDOM$RANDOM"
	img=$work/root.img
	if ! root_image "$img" "$token" >"$out/mke2fs.log" 2>&1; then
		fail root-image "mke2fs failed: $(tail -n 1 "$out/mke2fs.log")"
		return
	fi
	pass root-image
	if [ "$rootby" = uuid ]; then
		rootarg="root=UUID=$(blkid -o value -s UUID "$img") aoe=e1.0"
	else
		rootarg=root=/dev/etherd/e1.0
	fi

	# 4. two VMs
	tinit=$work/target.cpio.gz
	target_initrd "$kv" "$tinit"
	if ! port=$(free_port); then
		fail boot "no free TCP port on 127.0.0.1"
		return
	fi
	tb=$(now)
	tcon=$out/target.console
	icon=$out/initiator.console
	# A kernel that panics while booting under a starved TCG vCPU (seen:
	# "IO-APIC + timer doesn't work" on a host with load 16) boots again, once.
	for attempt in 1 2; do
		timeout --foreground -k 5 600 nice -n 10 "${qemu_common[@]}" -m 256 \
			-kernel "/boot/vmlinuz-$kv" -initrd "$tinit" \
			-append "console=ttyS0 panic=-1 quiet no_timer_check" \
			-drive "file=$img,format=raw,if=virtio,cache=writeback" \
			-netdev "socket,id=n0,listen=127.0.0.1:$port" \
			-device virtio-net-pci,netdev=n0,mac=52:54:00:a0:e1:00 \
			</dev/null >"$tcon" 2>&1 &
		tpid=$!
		pids+=("$tpid")
		say "$kv: target VM booting (port $port)"
		wait_for "$tcon" TARGET-READY 180 "$tpid" && break
		grep -aq 'Kernel panic' "$tcon" && ! grep -aq 'Run /init' "$tcon" || break
		kill "$tpid" 2>/dev/null || true
		wait "$tpid" 2>/dev/null || true
		cp "$tcon" "$out/target.attempt$attempt.console"
		say "$kv: the target kernel panicked while booting; booting it again"
	done
	if ! grep -aq TARGET-READY "$tcon"; then
		fail boot "the target VM did not start vblade ($(grep -a -m 1 -E 'TARGET-FAIL|panic|qemu' "$tcon" || echo 'see target.console'))"
		return
	fi
	say "$kv: target ready after $(($(now) - tb)) s; initiator VM booting"
	ti=$(now)
	timeout --foreground -k 5 360 nice -n 10 "${qemu_common[@]}" -m 512 \
		-kernel "/boot/vmlinuz-$kv" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 no_timer_check $rootarg aoe_iflist=eth0 aoe_wait=60 net.ifnames=0" \
		-netdev "socket,id=n0,connect=127.0.0.1:$port" \
		-device virtio-net-pci,netdev=n0,mac=52:54:00:a0:e1:01 \
		</dev/null >"$icon" 2>&1 || irc=$?
	say "$kv: initiator VM ran $(($(now) - ti)) s"
	kill "$tpid" 2>/dev/null || true
	wait "$tpid" 2>/dev/null || true
	pids=()
	vm_host_clean_console <"$icon" >"$out/initiator.log"
	vm_host_clean_console <"$tcon" >"$out/target.log"
	ilog=$out/initiator.log

	# 5. what the initiator saw, and what landed on the disk
	if ! grep -aq 'ROOTAOE-ROOT' "$ilog"; then
		why=$(grep -a -m 1 -E '^aoe: |ALERT!|Gave up|Kernel panic' "$ilog" || echo 'see initiator.log')
		[ "$irc" = 124 ] && why="timed out after 360 s; $why"
		fail boot "the initiator never ran /sbin/init on the AoE root: $why"
		return
	fi
	pass boot
	rootline=$(grep -a -m 1 'ROOTAOE-ROOT' "$ilog")
	modline=$(grep -a -m 1 'ROOTAOE-MODULE' "$ilog" || true)
	if ! grep -aqE '^ROOTAOE-ROOT /dev/etherd/e1\.0 / ext4 rw' "$ilog"; then
		fail root-mount "root is not /dev/etherd/e1.0 ext4 rw: '$rootline'"
	elif [ "${modline#ROOTAOE-MODULE }" != "$(cat "$top/VERSION")" ]; then
		fail root-mount "aoe.ko version '${modline#ROOTAOE-MODULE }', not aoekit's $(cat "$top/VERSION")"
	else
		pass root-mount
	fi
	if grep -aq "^ROOTAOE-READ $token\$" "$ilog" &&
		grep -aq "^ROOTAOE-BACK written on the AoE root: $token\$" "$ilog" &&
		grep -aq '^ROOTAOE-DONE' "$ilog" && ! grep -aq 'ROOTAOE-FAIL' "$ilog"; then
		pass root-read-write
	else
		fail root-read-write "init on the AoE root did not read/write/finish: $(grep -a -E 'ROOTAOE-(READ|BACK|FAIL|DONE)' "$ilog" | tr '\n' '|')"
	fi
	md5_vm=$(grep -a -m 1 '^ROOTAOE-MD5 ' "$ilog" | awk '{ print $2 }' || true)
	written=$(debugfs -R 'cat /data/written' "$img" 2>/dev/null || true)
	md5_img=$(debugfs -R 'cat /data/random' "$img" 2>/dev/null | md5sum | cut -d' ' -f1 || true)
	size=$(debugfs -R 'stat /data/random' "$img" 2>/dev/null | awk '/Size:/ { for (i = 1; i < NF; i++) if ($i == "Size:") print $(i + 1); exit }' || true)
	if [ "$written" != "written on the AoE root: $token" ]; then
		fail image "the image's /data/written is '$written'"
	elif [ -z "$md5_vm" ] || [ "$md5_vm" != "$md5_img" ] || [ "$size" != 1048576 ]; then
		fail image "the image's /data/random (size ${size:-none}, md5 $md5_img) is not what the VM wrote (md5 ${md5_vm:-none})"
	elif ! e2fsck -fn "$img" >"$out/e2fsck.log" 2>&1; then
		fail image "e2fsck -fn found errors (build/rootaoe/$kv/e2fsck.log)"
	else
		pass image
	fi
	[ "$notarget" = 1 ] && no_target
	say "$kv: $(($(now) - t0)) s in all (VMs $(($(now) - tb)) s)"
}

t_all=$(now)
for kv in "${kernels[@]}"; do
	one_kernel
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	pids=()
	if [ "$keep" = 1 ]; then
		say "$kv: kept $work"
	else
		rm -rf "$work"
	fi
	work=""
done
say "all kernels: $(($(now) - t_all)) s"
exit "$failed"
