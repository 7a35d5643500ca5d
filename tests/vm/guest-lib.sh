# shellcheck shell=bash
# Guest library of the VM suite, sourced by every scenario (inside the VM):
#
#   . /aoe/tests/vm/guest-lib.sh
#
# Helpers echo each command before running it ("+ cmd"), errors end the
# scenario (set -eE) and record the first failing command as the scenario's
# reason; an EXIT trap stops vblade, deletes the links the scenario created
# and unloads nothing (the /init does that and reports a module left behind
# only when it cannot be unloaded). Every wait is bounded.
set -eEuo pipefail
export PATH=/aoe/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export LC_ALL=C.UTF-8 TERM=xterm-256color

AOE_KO=${AOE_KO:-/aoe/aoe.ko}
# aoetools (aoe-stat, aoe-discover, ...): /aoe/bin comes first in PATH and has
# our tools of the same names, so call aoetools' by this path.
export AOETOOLS=/usr/sbin
AOE_REASON=/tmp/aoe-reason
_vm_pids=()
# vm_cmdline_num NAME DEFAULT: the number of aoetest.NAME=N on the kernel
# command line (run.sh's options), else DEFAULT.
vm_cmdline_num() {
	local n
	n=$(tr ' ' '\n' </proc/cmdline | sed -n "s/^aoetest.$1=\([0-9][0-9]*\)\$/\1/p")
	echo "${n:-$2}"
}
# aoetest.slow=N (run.sh --slow N): every wait of these helpers is N times
# longer, for debug kernels (KASAN, lockdep) under TCG.
AOE_SLOW=$(vm_cmdline_num slow 1)
_vm_links=()
_vm_netns=()

# grepq PATTERN...: grep -q that reads all of its input. Under pipefail
# "cmd | grep -q x" fails when grep exits at the first match and cmd then
# dies of SIGPIPE (any output longer than one pipe write: dmesg, --help).
grepq() { grep "$@" >/dev/null; }
log() { printf '[%s] %s\n' "$(cut -d' ' -f1 /proc/uptime)" "$*"; }

# The first reason wins: it is what /init reports.
_vm_reason() { [ -s "$AOE_REASON" ] || printf '%s\n' "$*" >"$AOE_REASON"; }

die() {
	_vm_reason "$*"
	printf 'FAILED: %s\n' "$*" >&2
	exit 1
}

# pp CMD...: print (on stderr, so output can be captured), then run.
_vm_pp=""
pp() {
	_vm_pp="$*"
	printf '+ %s\n' "$*" >&2
	"$@"
}

_vm_last=""
_vm_err() {
	local rc=$? cmd=$1 line=$2
	if [[ $cmd == return* ]] && [ -n "$_vm_last" ]; then
		_vm_reason "$_vm_last"
	elif [ "$cmd" = '"$@"' ] && [ -n "$_vm_pp" ]; then
		_vm_reason "'$_vm_pp' failed (status $rc)"
	else
		_vm_reason "line $line: '$cmd' failed (status $rc)"
	fi
}
trap '_vm_err "$BASH_COMMAND" "$LINENO"' ERR

_vm_cleanup() {
	local rc=$? p l
	trap - ERR
	set +e
	for p in "${_vm_pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	# aoe holds references on its interfaces: unload it before deleting
	# them, or the deletion waits forever in unregister_netdevice.
	if [ ${#_vm_links[@]} -gt 0 ] && [ -e /sys/module/aoe ]; then
		if timeout 30 rmmod aoe; then
			_vm_aoe_unloaded
		else
			_vm_reason "cleanup: rmmod aoe failed"
			rc=1
		fi
	fi
	vm_ktgt_stop
	for l in "${_vm_links[@]}"; do
		timeout 10 ip link del "$l" 2>/dev/null &
	done
	wait
	for l in "${_vm_netns[@]}"; do
		timeout 10 ip netns del "$l" 2>/dev/null
	done
	exit "$rc"
}
trap _vm_cleanup EXIT

# vm_vblade_link_del: between runs of a scenario that loops over link
# settings with vm_veth a0 b0 and vm_vblade: aoe.ko unloaded (it holds a0),
# the vblades killed, a0 deleted; the next run starts from nothing.
vm_vblade_link_del() {
	vm_unload_aoe
	kill "${_vm_pids[@]}" 2>/dev/null || true
	_vm_pids=()
	pp ip link del a0
	_vm_links=()
}

# vm_tracefs: tracefs mounted at /sys/kernel/tracing, an 8 MiB buffer a
# CPU, and no comm/tgid recording: it hooks sched_switch/sched_wakeup, and
# patching those jump labels while another vCPU runs them oopsed (int3 in
# ttwu_do_activate) under qemu TCG.
vm_tracefs() {
	local tr=/sys/kernel/tracing
	[ -d $tr/events ] || mount -t tracefs tracefs $tr || die "cannot mount tracefs"
	echo 8192 >$tr/buffer_size_kb
	echo 0 >$tr/options/record-cmd
	echo 0 >$tr/options/record-tgid
}

# vm_veth A B [MTU]: a veth pair A <-> B, both up.
vm_veth() {
	local a=$1 b=$2 mtu=${3:-}
	pp ip link add "$a" type veth peer name "$b"
	_vm_links+=("$a")
	if [ -n "$mtu" ]; then
		pp ip link set "$a" mtu "$mtu"
		pp ip link set "$b" mtu "$mtu"
	fi
	pp ip link set "$a" up
	pp ip link set "$b" up
}

# vm_netns NAME: a network namespace, deleted on exit.
vm_netns() {
	pp ip netns add "$1"
	_vm_netns+=("$1")
}

# vm_bridged A B [MTU]: A <--veth--> Ap [br0] Bp <--veth--> B. The bridge
# keeps B's carrier when A goes down, and drops a frame too big for its egress
# port silently, as a switch does; a veth pair fails the sender instead (vblade
# exits when a send fails, or when its link loses carrier).
vm_bridged() {
	local a=$1 b=$2 mtu=${3:-}
	pp modprobe bridge
	vm_veth "$a" "${a}p" ${mtu:+"$mtu"}
	vm_veth "$b" "${b}p" ${mtu:+"$mtu"}
	pp ip link add br0 type bridge forward_delay 0
	_vm_links+=(br0)
	pp ip link set "${a}p" master br0
	pp ip link set "${b}p" master br0
	pp ip link set br0 up
}

# vm_mac IFACE: the interface's MAC address (lowercase, colons).
vm_mac() { cat "/sys/class/net/$1/address"; }

# vm_ramdisk SIZE_MB: loads brd once and prints /dev/ram0.
vm_ramdisk() {
	local mb=$1
	if [ ! -e /sys/module/brd ]; then
		pp modprobe brd rd_nr=1 rd_size=$((mb * 1024)) >&2
	fi
	vm_wait_for "test -b /dev/ram0" 5 >&2
	echo /dev/ram0
}

# vm_vblade SHELF SLOT IFACE FILE [extra vblade args]: serve FILE as eSHELF.SLOT
# in the background; stopped by the EXIT trap.
vm_vblade() {
	local shelf=$1 slot=$2 ifc=$3 file=$4
	shift 4
	# Not through pp: a backgrounded function would leave $! the PID of a
	# subshell, and killing that would not stop vblade.
	printf '+ vblade %s\n' "$* $shelf $slot $ifc $file" >&2
	vblade "$@" "$shelf" "$slot" "$ifc" "$file" >"/tmp/vblade-$shelf.$slot-$ifc.log" 2>&1 &
	_vm_pids+=($!)
	sleep 0.3
	kill -0 "$!" 2>/dev/null || die "vblade $shelf.$slot on $ifc did not start: $(cat "/tmp/vblade-$shelf.$slot-$ifc.log")"
}

# vm_ktgt IFLIST SIZE_MB SLOT...: the in-kernel test target (tests/ktgt)
# serving e1.SLOT for every SLOT on the interfaces of IFLIST (a0 or b0,b1),
# a RAM disk of SIZE_MB MiB each; unloaded by vm_ktgt_stop or the EXIT trap.
# VM_KTGT_PARAMS: more module parameters (rx_handler=0).
vm_ktgt() {
	local ifl=$1 mb=$2 sl
	shift 2
	sl=$(tr ' ' , <<<"$*")
	[ -e /aoe/aoe-ktgt.ko ] || die "no /aoe/aoe-ktgt.ko in the image"
	# shellcheck disable=SC2086 # VM_KTGT_PARAMS: more parameters, split
	pp insmod /aoe/aoe-ktgt.ko ifaces="$ifl" shelf=1 slots="$sl" size_mb="$mb" ${VM_KTGT_PARAMS:-}
}

vm_ktgt_stop() {
	[ ! -e /sys/module/aoe_ktgt ] || pp rmmod aoe_ktgt
}

# vm_ktgt_counter SLOT NAME: counter NAME of e1.SLOT (aoe_ktgt's stats)
vm_ktgt_counter() {
	awk -v t="e1.$1" -v k="$2" '$1 == t { for (i = 2; i < NF; i += 2) if ($i == k) print $(i + 1) }' \
		/sys/module/aoe_ktgt/parameters/stats
}

# vm_fastd [aoe-fastd args]: the fast test target (tests/tools/aoe-fastd.c)
# in the background with a control FIFO /tmp/fastd.ctl (waits up to 30 s for its
# start-up line: --populate of a large disk is slow under TCG); its output in
# /tmp/fastd.out; $FASTD_PID; stopped by the EXIT trap or vm_fastd_stop.
# FASTD_TAG=NAME (default fastd) names another instance's files
# (/tmp/NAME.out, .err, .ctl), for this and the helpers below.
FASTD_PID=""
vm_fastd() {
	local f=/tmp/${FASTD_TAG:-fastd}
	rm -f "$f.ctl"
	# Not through pp: $! must be aoe-fastd itself.
	printf '+ aoe-fastd -c %s.ctl %s\n' "$f" "$*" >&2
	aoe-fastd -c "$f.ctl" "$@" >"$f.out" 2>"$f.err" &
	FASTD_PID=$!
	_vm_pids+=("$FASTD_PID")
	vm_wait_for "grep -q '^aoe-fastd: e' $f.out" 30 ||
		die "aoe-fastd did not start: $(cat "$f.err")"
	cat "$f.out" >&2
}

# vm_fastd_ctl CMD: a command on aoe-fastd's control FIFO (cut, off, on, flush,
# status); returns when aoe-fastd has printed its line.
vm_fastd_ctl() {
	local want="" n f=/tmp/${FASTD_TAG:-fastd}
	case $1 in
	cut) want='power cut' ;;
	off) want='power off' ;;
	on) want='power on' ;;
	status) want='reads' ;;
	flush) want='flushed' ;;
	esac
	n=$(grep -c "^aoe-fastd: $want" "$f.out" || true)
	pp timeout 5 sh -c "echo $1 >$f.ctl"
	[ -z "$want" ] || vm_wait_for "[ \$(grep -c '^aoe-fastd: $want' $f.out) -gt $n ]" 10 ||
		die "aoe-fastd did not answer '$1'"
}

# vm_fastd_stop: SIGTERM, wait (bounded) and print its counter line.
vm_fastd_stop() {
	pp kill "$FASTD_PID"
	vm_wait_for "! kill -0 $FASTD_PID" 10 || die "aoe-fastd did not exit on SIGTERM"
	wait "$FASTD_PID" || die "aoe-fastd exited with status $?: $(cat "/tmp/${FASTD_TAG:-fastd}.err")"
	grep '^aoe-fastd: reads' "/tmp/${FASTD_TAG:-fastd}.out" | tail -n 1
}

# vm_fastd_counter NAME: a counter from aoe-fastd's last counter line.
vm_fastd_counter() {
	grep '^aoe-fastd: reads' "/tmp/${FASTD_TAG:-fastd}.out" | tail -n 1 |
		awk -v k="$1" '{ for (i = 2; i < NF; i++) if ($i == k) print $(i + 1) }'
}

# vm_load_aoe [param=value...]: insmod our module.
vm_load_aoe() {
	[ -e "$AOE_KO" ] || die "no $AOE_KO: the module did not build for this kernel"
	pp insmod "$AOE_KO" "$@"
}

# vm_load_intree_aoe [param=value...]: the distribution's in-tree aoe.
vm_load_intree_aoe() {
	echo "intree-load $(_vm_jiffies)" >>/tmp/aoe-loads
	pp modprobe aoe "$@"
}

# When the in-tree aoe was loaded and any aoe unloaded (jiffies, the clock
# of kmemleak's reports), so that /init can tell which aoe allocated an
# object kmemleak reports (kmemleak_report in /init): "intree-load J" and
# "unload J" lines in /tmp/aoe-loads.
_vm_jiffies() { awk '/^jiffies:/ { print $2; exit }' /proc/timer_list; }
_vm_aoe_unloaded() {
	echo "unload $(_vm_jiffies)" >>/tmp/aoe-loads
}

# vm_unload_aoe: rmmod aoe (bounded), fails when it does not go away.
vm_unload_aoe() {
	pp timeout 30 rmmod aoe
	_vm_aoe_unloaded
	[ ! -e /sys/module/aoe ] || die "module aoe still loaded after rmmod"
}

# vm_wait_for CMD TIMEOUT_S: poll CMD (a shell string) every 0.1 s until it
# succeeds; returns 1 after TIMEOUT_S seconds.
vm_wait_for() {
	local cmd=$1 secs=$(($2 * AOE_SLOW)) end
	end=$(($(date +%s%N) + secs * 1000000000))
	while ! (eval "$cmd") >/dev/null 2>&1; do
		if [ "$(date +%s%N)" -ge "$end" ]; then
			_vm_last="timed out after ${secs}s waiting for: $cmd"
			printf '%s\n' "$_vm_last" >&2
			return 1
		fi
		sleep 0.1
	done
}

# vm_ms: monotonic milliseconds, for timing.
vm_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }

# vm_dmesg_mark; ...; vm_dmesg_since: the kernel log lines logged after the mark.
_vm_dmesg_mark=0
vm_dmesg_mark() { _vm_dmesg_mark=$(dmesg | wc -l); }
vm_dmesg_since() { dmesg | tail -n +$((_vm_dmesg_mark + 1)); }

# vm_stat_json FILE: aoe-stat --json into FILE (fails with the tool).
vm_stat_json() { aoe-stat --json >"$1"; }

# vm_drops REASON: the module's drop counter for REASON (0 when absent).
vm_drops() { aoe-stat --json | jq -r --arg r "$1" '.module.drops[$r] // 0'; }

# vm_target_json DEVICE: the target's object from aoe-stat --json ("null" if none).
vm_target_json() { aoe-stat --json | jq -c --arg d "$1" '[.targets[]? | select(.device == $d)][0]'; }

# vm_has_target DEVICE: aoe-stat --json lists DEVICE.
vm_has_target() { [ "$(vm_target_json "$1")" != null ]; }

# vm_json_check FILE JQ_EXPR DESCRIPTION: jq -e on FILE or die.
vm_json_check() {
	local file=$1 expr=$2 what=$3
	jq -e "$expr" "$file" >/dev/null || {
		echo "--- $file:"
		cat "$file"
		die "$what"
	}
}

# vm_data_check DEV: data integrity through block device DEV: 4 MiB of random
# data written and read back raw with O_DIRECT at two offsets, then ext2:
# mke2fs, mount, copy 8 MiB in, remount read-only, compare, umount.
vm_data_check() {
	local dev=$1 a b off
	pp dd if=/dev/urandom of=/tmp/blob bs=1M count=8 status=none
	a=$(md5sum </tmp/blob)
	for off in 0 37; do
		pp dd if=/tmp/blob of="$dev" bs=1M count=4 seek="$off" oflag=direct conv=fsync status=none
		dd if="$dev" of=/tmp/readback bs=1M count=4 skip="$off" iflag=direct status=none
		dd if=/tmp/blob of=/tmp/written bs=1M count=4 status=none
		if ! cmp -s /tmp/written /tmp/readback; then
			b=$(cmp -l /tmp/written /tmp/readback | wc -l || true)
			die "raw read-back at ${off} MiB differs in $b bytes, first: $(cmp /tmp/written /tmp/readback | head -n 1 || true)"
		fi
		log "raw 4 MiB at ${off} MiB: read back identical"
	done
	pp mke2fs -q -F -t ext2 "$dev"
	mkdir -p /mnt/vm-data
	pp mount -t ext2 "$dev" /mnt/vm-data
	pp cp /tmp/blob /mnt/vm-data/blob
	pp umount /mnt/vm-data
	pp mount -t ext2 -o ro "$dev" /mnt/vm-data
	b=$(md5sum </mnt/vm-data/blob)
	pp umount /mnt/vm-data
	[ "$a" = "$b" ] || die "file read back from ext2 differs"
	log "ext2: 8 MiB file read back identical"
}

# vm_aoe_up [DEVICE] [SECS]: wait until /dev/etherd/DEVICE (default e1.2)
# exists and its sysfs state is "up" (dies otherwise).
vm_aoe_up() {
	local d=${1:-e1.2} secs=${2:-15}
	vm_wait_for "test -b /dev/etherd/$d && grep -q '^up' '/sys/block/etherd!$d/state'" "$secs" ||
		die "$d not up after ${secs}s (state: $(cat "/sys/block/etherd!$d/state" 2>/dev/null || echo missing))"
}

# vm_two_paths MTU0 [aoe.ko parameters...]: target e1.2 on a 256 MiB RAM disk
# ($disk) over two paths, a0 <-> b0 (mtu MTU0) and a1 <-> b1 (1500), one
# vblade on each; aoe.ko loaded for a0,a1; returns when both paths are up.
vm_two_paths() {
	local mtu0=$1 npaths
	shift
	disk=$(vm_ramdisk 256)
	vm_veth a0 b0 "$mtu0"
	vm_veth a1 b1
	vm_vblade 1 2 b0 "$disk"
	vm_vblade 1 2 b1 "$disk"
	vm_load_aoe aoe_iflist=a0,a1 "$@"
	pp aoe-discover >/dev/null || true
	vm_aoe_up e1.2
	npaths='aoe-stat --json | jq "[.targets[] | select(.device == \"e1.2\") | .paths[] | select(.state == \"up\")] | length"'
	vm_wait_for "[ \"\$($npaths)\" = 2 ]" 15 || { aoe-stat --json; die "e1.2 does not have 2 up paths"; }
}

# vm_sysfs DEVICE ATTR: /sys/block/etherd!DEVICE/ATTR.
vm_sysfs() { cat "/sys/block/etherd!$1/$2"; }

# vm_counter DEVICE NAME: a target counter from aoe-stat --json (0 if absent).
vm_counter() {
	aoe-stat --json | jq -r --arg d "$1" --arg c "$2" \
		'[.targets[]? | select(.device == $d) | .counters[$c] // 0][0] // 0'
}

# vm_fio_verify_run OUT DEV MB_PER_JOB [fio args...]: vm_fio_verify's fio
# run alone, its output in OUT, fio's status returned (nothing recorded: for
# runs in the background, whose caller judges the status).
vm_fio_verify_run() {
	local out=$1 dev=$2 mb=$3
	shift 3
	timeout -k 5 "$((${FIO_TIMEOUT:-100} * AOE_SLOW))" fio --name=verify --filename="$dev" --ioengine=libaio \
		--direct=1 --rw=randwrite --bsrange=4k-256k --iodepth=16 --numjobs=4 \
		--size="${mb}M" --offset_increment="${mb}M" --verify=crc32c --verify_fatal=1 \
		--do_verify=1 --randrepeat=0 --group_reporting --eta=never --output="$out" "$@"
}

# vm_fio_verify DEV MB_PER_JOB [fio args...]: four jobs of random writes of
# mixed sizes (4k-256k, iodepth 16) on separate regions, each verified with
# crc32c after writing; dies with fio's output on any error. Bounded by
# FIO_TIMEOUT (default 100 s).
vm_fio_verify() {
	local dev=$1 mb=$2 rc=0
	shift 2
	printf '+ fio verify %s: 4 x %s MiB %s\n' "$dev" "$mb" "$*" >&2
	vm_fio_verify_run /tmp/fio.out "$dev" "$mb" "$@" || rc=$?
	if [ "$rc" != 0 ]; then
		tail -n 30 /tmp/fio.out >&2
		aoe-stat -a >&2 || true
		_vm_reason "fio verify on $dev (4 x $mb MiB $*) failed (status $rc$([ "$rc" = 124 ] && echo ': timed out'))"
		return 1
	fi
	grep -E 'WRITE:|READ:' /tmp/fio.out >&2 || true
	log "fio verify: 4 x $mb MiB OK"
}
