#!/bin/bash
# timeout: 420
# kernels: 6.12 (aoe-ddt against fio on null_blk: no aoe.ko; the whole suite runs it once)
# aoe-ddt measures what fio measures: O_DIRECT + libaio, time-based, both tools
# with their default submission policy, 4k random read at qd32 and 1M
# sequential read at qd8, on RAM disks.
#
# 1. A RAM disk that takes 10 ms (4k) or 50 ms (1M) per request (null_blk memory_backed=1, timer
#    completions), and a file on it: the device sets the pace, so both tools
#    must see the same: IOPS and bandwidth within 5 %.
# 2. Every aoe-ddt run on null_blk reports exactly the bytes the kernel counted
#    for the device in /sys/block/nullb0/stat, over a time between -t and the
#    wall clock around the run: its numbers are what happened, not an estimate.
# 3. RAM disks without delay (the same null_blk completing inline, and brd):
#    each tool's own CPU per I/O sets the pace. fio spends more per I/O than
#    aoe-ddt (under TCG 1.3-2x as much), so here aoe-ddt must reach at least
#    fio's IOPS at 4k qd32 (-5 %), and 1M is only printed.
#
# Prints "DDT-BENCH <test> <tool> <IOPS> <MB/s>" lines (tests/bench/ddt-vs-fio.sh
# collects them). Runs alternate; the best of each side is compared.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

secs=${DDT_BENCH_SECS:-4}
size=256M   # the region both tools read
rounds=${DDT_BENCH_ROUNDS:-2}
log "clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
# fail MSG: noted in a file, as ddt_run runs in a command substitution.
failures=/tmp/21-ddt-vs-fio.failed
rm -f "$failures"
fail() { echo "FAILED: $*" | tee -a "$failures" >&2; }

# sectors read by a device so far (diskstats field 3); none for brd, which
# keeps no statistics.
sectors() { [ -r "/sys/block/${1#/dev/}/stat" ] && awk '{ print $3 }' "/sys/block/${1#/dev/}/stat" || echo 0; }

fio_run() { # dev rw bs qd -> "iops bytes_per_s"
	timeout $((secs + 60)) fio --name=cmp --filename="$1" --ioengine=libaio --direct=1 \
		--rw="$2" --bs="$3" --iodepth="$4" --size="$size" --time_based --runtime="$secs" \
		--output-format=json 2>/dev/null |
		jq -r '.jobs[0].read | "\(.iops) \(.bw_bytes)"'
}
ddt_run() { # dev rw bs qd -> "iops bytes_per_s"; checks the run against the kernel's count
	local extra=() s0 s1 t0 t1 out
	[ "$2" = randread ] && extra=(--random)
	s0=$(sectors "$1")
	t0=$(vm_ms)
	out=$(timeout $((secs + 60)) aoe-ddt -r "${extra[@]}" -b "$3" -q "$4" -s "$size" -t "$secs" --json "$1")
	t1=$(vm_ms)
	s1=$(sectors "$1")
	jq -r '.read | "\(.iops) \(.bw_bytes_per_s)"' <<<"$out"
	[ "$s1" = 0 ] && return 0
	local bytes seconds
	bytes=$(jq -r '.read.bytes' <<<"$out")
	seconds=$(jq -r '.read.seconds' <<<"$out")
	if [ "$bytes" != $(((s1 - s0) * 512)) ]; then
		fail "$1 $2 $3: aoe-ddt reported $bytes bytes, the kernel counted $(((s1 - s0) * 512))"
	elif ! awk -v s="$seconds" -v t="$secs" -v w="$((t1 - t0))" \
		'BEGIN { exit !(s >= t && s * 1e3 <= w) }'; then
		fail "$1 $2 $3: aoe-ddt reported $seconds s for a -t $secs run that took $((t1 - t0)) ms"
	else
		log "$1 $2 $3: aoe-ddt's $bytes bytes in $seconds s match the kernel's count (wall $((t1 - t0)) ms)" >&2
	fi
}
# gt A B: A > B for decimals
gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }

# compare NAME DEV RW BS QD METRIC MODE: METRIC 1 IOPS, 2 bandwidth; MODE
# "same" (within 5 % either way), "atleast" (aoe-ddt >= fio - 5 %) or "print".
compare() {
	local name=$1 dev=$2 rw=$3 bs=$4 qd=$5 col=$6 mode=$7 i f d bf=0 bd=0 bfl="0 0" bdl="0 0"
	for ((i = 1; i <= rounds; i++)); do
		f=$(fio_run "$dev" "$rw" "$bs" "$qd")
		d=$(ddt_run "$dev" "$rw" "$bs" "$qd")
		log "$name round $i: fio $f, aoe-ddt $d"
		if gt "$(cut -d' ' -f"$col" <<<"$f")" "$bf"; then bf=$(cut -d' ' -f"$col" <<<"$f"); bfl=$f; fi
		if gt "$(cut -d' ' -f"$col" <<<"$d")" "$bd"; then bd=$(cut -d' ' -f"$col" <<<"$d"); bdl=$d; fi
	done
	awk -v n="$name" -v l="$bfl" 'BEGIN { split(l, a, " "); printf "DDT-BENCH %s fio %.0f %.1f\n", n, a[1], a[2] / 1e6 }'
	awk -v n="$name" -v l="$bdl" 'BEGIN { split(l, a, " "); printf "DDT-BENCH %s aoe-ddt %.0f %.1f\n", n, a[1], a[2] / 1e6 }'
	local lo=0.95 hi=1.05
	case $mode in
	print) return 0 ;;
	atleast) hi=0 ;;
	esac
	if ! awk -v d="$bd" -v f="$bf" -v lo="$lo" -v hi="$hi" \
		'BEGIN { exit !(f > 0 && d >= f * lo && (hi == 0 || d <= f * hi)) }'; then
		fail "$name: aoe-ddt $bd vs fio $bf ($mode)"
	fi
}

# nullb LATENCY_NS: a 1 GiB memory-backed null_blk, its first 256 MiB written.
nullb() {
	local irq=2
	[ "$1" = 0 ] && irq=0
	pp modprobe null_blk nr_devices=1 queue_mode=2 irqmode=$irq completion_nsec="$1" \
		hw_queue_depth=256 gb=1 memory_backed=1 ||
		die "no null_blk module in the VM: add null_blk to KMODS in tests/vm/mkinitramfs.sh"
	vm_wait_for "test -b /dev/nullb0" 5
	log "nullb0: max_sectors_kb $(cat /sys/block/nullb0/queue/max_sectors_kb) nr_requests $(cat /sys/block/nullb0/queue/nr_requests)"
	# Reads of never-written memory cost less than real ones.
	pp timeout 120 aoe-ddt -w --force --no-progress -q 8 -s "$size" /dev/nullb0 >/dev/null
}
mnt=/mnt/21
trap 'rc=$?; set +e; grep -qs " $mnt " /proc/mounts && umount "$mnt"; timeout 30 rmmod null_blk; (exit $rc); _vm_cleanup' EXIT

# 1 + 2: the device sets the pace.
nullb 10000000
compare nullblk10ms-randread-4k-qd32 /dev/nullb0 randread 4k 32 1 same
pp rmmod null_blk
# A 1M read is 9 requests of 127k; at 10 ms the 6.1 kernel's timer completions
# drift with the load (fio 246-329 IOPS between rounds), at 50 ms they do not.
nullb 50000000
compare nullblk50ms-seqread-1m-qd8 /dev/nullb0 read 1M 8 2 same
# A file on that disk: the same through a filesystem (ext2, O_DIRECT).
pp mke2fs -q -t ext2 -E nodiscard,lazy_itable_init=1 /dev/nullb0
mkdir -p "$mnt"
pp mount -t ext2 /dev/nullb0 "$mnt"
size=128M
pp truncate -s "$size" "$mnt/data"
pp timeout 120 aoe-ddt -w --no-progress -q 8 "$mnt/data" >/dev/null
compare file50ms-randread-4k-qd32 "$mnt/data" randread 4k 32 1 same
compare file50ms-seqread-1m-qd8 "$mnt/data" read 1M 8 2 same
pp umount "$mnt"
size=256M
pp rmmod null_blk

# 2 + 3: the tool sets the pace.
nullb 0
compare nullblk-randread-4k-qd32 /dev/nullb0 randread 4k 32 1 atleast
compare nullblk-seqread-1m-qd8 /dev/nullb0 read 1M 8 2 print
pp rmmod null_blk

disk=$(vm_ramdisk 256)
pp timeout 120 aoe-ddt -w --force --no-progress -q 8 "$disk" >/dev/null
compare brd-randread-4k-qd32 "$disk" randread 4k 32 1 atleast
compare brd-seqread-1m-qd8 "$disk" read 1M 8 2 print

[ ! -s "$failures" ] || die "aoe-ddt and fio disagree (see FAILED and DDT-BENCH lines)"
log "aoe-ddt agrees with fio and with the kernel's counters"
