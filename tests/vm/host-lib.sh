# shellcheck shell=bash
# Host-side helpers shared by tests/vm/run.sh and tests/vm/demo.sh.
# Expects $top (the checkout) to be set; vm_host_qemu sets the array $qemu.
# shellcheck disable=SC2154,SC2034

# Installed kernels of the 6.1 and 6.12 series with an image and headers,
# oldest first.
vm_host_kernels() {
	local d kv
	for d in /lib/modules/*; do
		kv=${d##*/}
		case "$kv" in 6.1.* | 6.12.*) ;; *) continue ;; esac
		[ -e "/boot/vmlinuz-$kv" ] && [ -d "$d/build" ] && echo "$kv"
	done | sort -V
}

# Build the frame injector, aoe-target28, aoe-fastd and aoe-pcut (host gcc, glibc) if their sources
# changed; prints the injector's path.
vm_host_inject() {
	local inject="$top/build/vm/aoe-inject"
	mkdir -p "$top/build/vm"
	if [ ! -x "$inject" ] || [ "$top/tests/tools/aoe-inject.c" -nt "$inject" ] ||
		[ "$top/kmod/aoe_codec.c" -nt "$inject" ] || [ "$top/kmod/aoe_codec.h" -nt "$inject" ]; then
		gcc -O2 -Wall -Wextra -Werror -I "$top/kmod" -I "$top/kmod/uapi" \
			-o "$inject" "$top/tests/tools/aoe-inject.c" "$top/kmod/aoe_codec.c" >&2
	fi
	# The 28-bit-LBA test target (14-lba28) goes next to it; mkinitramfs.sh
	# takes every tool of that folder listed in its overlay.
	local t28="$top/build/vm/aoe-target28"
	if [ ! -x "$t28" ] || [ "$top/tests/tools/aoe-target28.c" -nt "$t28" ]; then
		gcc -O2 -Wall -Wextra -Werror -o "$t28" "$top/tests/tools/aoe-target28.c" >&2
	fi
	# The fast test target (50-fastd, make bench).
	local fastd="$top/build/vm/aoe-fastd"
	if [ ! -x "$fastd" ] || [ "$top/tests/tools/aoe-fastd.c" -nt "$fastd" ]; then
		gcc -O2 -Wall -Wextra -Werror -pthread -o "$fastd" "$top/tests/tools/aoe-fastd.c" -laio >&2
	fi
	# A light AOE_CMD_CTL requester (56-resv-paths).
	local flood="$top/build/vm/aoe-ctlflood"
	if [ ! -x "$flood" ] || [ "$top/tests/tools/aoe-ctlflood.c" -nt "$flood" ] ||
		[ "$top/kmod/uapi/aoe_netlink.h" -nt "$flood" ]; then
		gcc -O2 -Wall -Wextra -Werror -I "$top/kmod/uapi" -o "$flood" "$top/tests/tools/aoe-ctlflood.c" >&2
	fi
	# The power-cut workload and checker (47-power-cut).
	local pcut="$top/build/vm/aoe-pcut"
	if [ ! -x "$pcut" ] || [ "$top/tests/tools/aoe-pcut.c" -nt "$pcut" ]; then
		gcc -O2 -Wall -Wextra -Werror -o "$pcut" "$top/tests/tools/aoe-pcut.c" >&2
	fi
	# The rewrite-at-once workload and checker (65-late-dup).
	local rw="$top/build/vm/aoe-rewrite"
	if [ ! -x "$rw" ] || [ "$top/tests/tools/aoe-rewrite.c" -nt "$rw" ]; then
		gcc -O2 -Wall -Wextra -Werror -pthread -o "$rw" "$top/tests/tools/aoe-rewrite.c" >&2
	fi
	echo "$inject"
}

# vm_host_kmod KVER KBUILD: build kmod/ for one kernel in a private copy
# (build/kmod-KVER), log in build/vm/KVER/kmod-build.log. Prints the .ko's
# path, or returns 1 (vm_host_kmod_error KVER then says why).
vm_host_kmod() {
	local kv=$1 kb=$2 kdir="$top/build/kmod-$1" log="$top/build/vm/$1/kmod-build.log"
	mkdir -p "$top/build/vm/$kv"
	# a clean copy every time: an incremental Kbuild of an rsynced tree was
	# seen linking a stale aoe.o
	rm -rf "$kdir"
	mkdir -p "$kdir"
	rsync -a "$top/kmod/" "$kdir/"
	rm -f "$kdir"/*.o "$kdir"/*.ko "$kdir"/.*.cmd "$kdir"/*.mod*
	_vm_host_kbuild "$kb" "$kdir" "$log"
}

# _vm_host_kbuild KBUILD KDIR LOG [NAME]: Kbuild the module sources in KDIR;
# prints KDIR/NAME.ko (default aoe.ko), or returns 1.
_vm_host_kbuild() {
	local ko="$2/${4:-aoe}.ko"
	if make -j2 -C "$1" M="$2" AOE_VERSION="$(cat "$top/VERSION")" modules >"$3" 2>&1 &&
		[ -e "$ko" ]; then
		echo "$ko"
		return 0
	fi
	return 1
}

# vm_host_kmod_ref KVER KBUILD REF: aoe.ko built from the kmod/ of git
# commit REF (make bench --base), in build/kmod-base-KVER, log in
# build/vm/KVER/kmod-base-build.log. Prints the .ko's path.
vm_host_kmod_ref() {
	local kv=$1 kb=$2 ref=$3 kdir="$top/build/kmod-base-$1" log="$top/build/vm/$1/kmod-base-build.log"
	mkdir -p "$top/build/vm/$kv"
	rm -rf "$kdir"
	mkdir -p "$kdir"
	git -C "$top" archive "$ref" kmod | tar -x -C "$kdir" --strip-components=1 || return 1
	_vm_host_kbuild "$kb" "$kdir" "$log"
}

# vm_host_ktgt KVER KBUILD: the in-kernel AoE test target (tests/ktgt) built
# for one kernel in build/ktgt-KVER, log in build/vm/KVER/ktgt-build.log.
# Prints the .ko's path, or returns 1.
vm_host_ktgt() {
	local kv=$1 kb=$2 kdir="$top/build/ktgt-$1" log="$top/build/vm/$1/ktgt-build.log"
	mkdir -p "$top/build/vm/$kv"
	rm -rf "$kdir"
	mkdir -p "$kdir"
	cp "$top"/tests/ktgt/Kbuild "$top"/tests/ktgt/*.c "$kdir/"
	_vm_host_kbuild "$kb" "$kdir" "$log" aoe_ktgt
}

vm_host_kmod_error() {
	local why
	why=$(grep -m 1 -E 'error:|\*\*\*' "$top/build/vm/$1/kmod-build.log" |
		sed -e "s|$top/build/kmod-$1/||g" -e 's/^make\[[0-9]*\]: //' | cut -c1-160)
	echo "${why:-make failed} (build/vm/$1/kmod-build.log)"
}

# The guest CPU: qemu's "max" without CMPXCHG16B. Debian 12's qemu 7.2 TCG
# corrupts a guest's flags around it under interrupts: the guest's SLUB
# fast path (cmpxchg16b %gs:) then saw EFLAGS equal to a register's value
# (reserved bits set, which no CPU can push; DF, TF or NT on with them) and
# crashed in kmem_cache_alloc (double fault) or net_rx_action, 6.12 only,
# within a minute of 1 MiB I/O with aoe_rx_spread and aoe_tx_spread (IPIs)
# in 3 of 3 boots; without cx16 (SLUB then takes its cmpxchg16b emulation
# with interrupts off) none in 300 s of the same I/O (session 21's notes).
# And without ERMS: 6.1 then copies with rep movsb (memcpy_erms,
# copy_user_enhanced_fast_string), which TCG emulates a byte at a time,
# while 6.12 takes memcpy_orig (rep movsb there needs FSRM, which the max
# CPU lacks). memcpy_erms was 20 % of a 6.1 guest's CPU on make bench's
# seqread row; without ERMS (rep movsq, as 6.12) aoekit read 372 and 346
# MB/s against 224 and 223 with it, the in-tree driver 450 and 438 against
# 395 and 385, and 6.12 the same either way: the two kernels' rows then
# differ by the kernels, not by the emulator.
vm_qemu_cpu=max,cx16=off,erms=off

# vm_host_qemu IMAGE INITRD APPEND: the qemu command line (into array $qemu).
vm_host_qemu() {
	qemu=(qemu-system-x86_64 -accel tcg -cpu "$vm_qemu_cpu" -m 2048 -smp 2 -nographic
		-nic none -no-reboot -kernel "$1" -initrd "$2"
		-append "console=ttyS0 panic=-1 quiet $3")
}

# Console text without CRs and terminal escape sequences.
vm_host_clean_console() {
	sed -e 's/\r//g' -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\x1b[()][A-Z0-9]//g'
}

# vm_host_boot CONSOLE LIMIT: run "${qemu[@]}" for at most LIMIT seconds, its console
# into CONSOLE; stop it 3 s after a kernel panic.
vm_host_boot() {
	local console=$1 limit=$2 qpid
	timeout --foreground -k 5 "$limit" "${qemu[@]}" </dev/null >"$console" 2>&1 &
	qpid=$!
	while kill -0 "$qpid" 2>/dev/null; do
		if grep -aq 'Kernel panic - not syncing' "$console"; then
			sleep 3
			kill "$qpid" 2>/dev/null
			break
		fi
		sleep 2
	done
	wait "$qpid" 2>/dev/null || true
}
