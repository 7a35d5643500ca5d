#!/bin/bash
# timeout: 420
# aoe-ddt measures what fio measures: O_DIRECT + libaio, time-based, both tools
# with their default submission policy (io_submit per request, reap when every
# slot is in flight), 4k random read at qd32 and 1M sequential read at qd8, on
# RAM disks.
#
# 1. A RAM disk that takes 10 ms (4k) or 50 ms (1M) per request (null_blk, timer
#    completions), and a file on it: the device sets the pace, so both tools
#    must see the same: IOPS (4k) or bandwidth (1M) within 5 %, and the total
#    latency (fio's lat: from preparing the request to reaping it) within 5 % on
#    mean (and p99 where the device's lockstep sets it: the first row; in the
#    others the emulated VM's timer jitter under host load does, 10-50 % between
#    rounds, so there it is printed). The 4k disk takes only 8 requests
#    (hw_queue_depth 8, no scheduler) for qd16: io_submit blocks until a request
#    completes, which only a clock started before io_submit sees (fio: lat
#    20 ms; a clock started when io_submit returns says about half), and the
#    device's 800 IOPS are below what either tool can issue under TCG. 1M runs on null_blk without
#    memory (memory_backed=0): a memory-backed one copies each 1 MiB inside
#    io_submit, and under TCG the CPU, not the device, then sets the rate
#    (28-105 IOPS between rounds); the 1M file row is only printed for that
#    reason.
# 2. Every aoe-ddt run on null_blk reports exactly the bytes the kernel counted
#    for the device in /sys/block/nullb0/stat, over a time between -t and the
#    wall clock around the run: its numbers are what happened, not an estimate.
# 3. RAM disks without delay (the same null_blk completing inline, and brd):
#    each tool's own CPU per I/O sets the pace. fio spends more per I/O than
#    aoe-ddt (under TCG 1.3-2x as much), so here aoe-ddt must reach at least
#    fio's IOPS at 4k qd32 (-5 %), and brd's 1M is only printed (a memory-backed
#    null_blk's 1M is not run: see 1.).
#
# Prints "DDT-BENCH <test> <tool> <IOPS> <MB/s> <lat mean us> <lat p99 us>" lines.
# Rounds alternate which tool goes first; the best of each side is compared
# (highest IOPS and bandwidth, lowest latencies), 2 rounds, a third when they
# disagree.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

secs=${DDT_BENCH_SECS:-4}
size=256M   # the region both tools read
rounds=${DDT_BENCH_ROUNDS:-2}
max_rounds=$((rounds + 1))
log "clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
# fail MSG: noted in a file, as ddt_run runs in a command substitution.
failures=/tmp/21-ddt-vs-fio.failed
rm -f "$failures"
fail() { echo "FAILED: $*" | tee -a "$failures" >&2; }

# sectors read by a device so far (diskstats field 3); none for brd, which
# keeps no statistics.
sectors() { [ -r "/sys/block/${1#/dev/}/stat" ] && awk '{ print $3 }' "/sys/block/${1#/dev/}/stat" || echo 0; }

fio_run() { # dev rw bs qd -> "iops bytes_per_s lat_mean_us lat_p99_us"
	timeout $((secs + 60)) fio --name=cmp --filename="$1" --ioengine=libaio --direct=1 \
		--rw="$2" --bs="$3" --iodepth="$4" --size="$size" --time_based --runtime="$secs" \
		--lat_percentiles=1 --output-format=json 2>/dev/null |
		jq -r '.jobs[0].read | "\(.iops) \(.bw_bytes) \(.lat_ns.mean / 1000) \(.lat_ns.percentile["99.000000"] / 1000)"'
}
ddt_run() { # dev rw bs qd -> "iops bytes_per_s lat_mean_us lat_p99_us"; checks the run against the kernel's count
	local extra=() s0 s1 t0 t1 out
	[ "$2" = randread ] && extra=(--random)
	s0=$(sectors "$1")
	t0=$(vm_ms)
	out=$(timeout $((secs + 60)) aoe-ddt -r "${extra[@]}" -b "$3" -q "$4" -s "$size" -t "$secs" --json "$1")
	t1=$(vm_ms)
	s1=$(sectors "$1")
	jq -r '.read | "\(.iops) \(.bw_bytes_per_s) \(.lat_us.mean) \(.lat_us.p99)"' <<<"$out"
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

# best OLD NEW: per column, the higher IOPS and bandwidth, the lower latencies.
best() {
	awk -v o="$1" -v n="$2" 'BEGIN { split(o, a, " "); split(n, b, " ");
		printf "%s %s %s %s\n", (b[1] > a[1] ? b[1] : a[1]), (b[2] > a[2] ? b[2] : a[2]),
			(b[3] < a[3] ? b[3] : a[3]), (b[4] < a[4] ? b[4] : a[4]) }'
}
# agree D F COL MODE: aoe-ddt's best D against fio's best F: column COL (1 IOPS,
# 2 bandwidth) and the latencies, within 5 %: "same" the mean (3), "same99"
# the mean and p99 (4).
agree() {
	awk -v d="$1" -v f="$2" -v col="$3" -v mode="$4" 'BEGIN { split(d, a, " "); split(f, b, " ");
		if (!(b[col] > 0)) exit 1
		if (mode == "atleast") exit !(a[col] >= 0.95 * b[col])
		n = split(col " 3" (mode == "same99" ? " 4" : ""), cols, " ")
		for (k = 1; k <= n; k++) { c = cols[k]; if (!(b[c] > 0 && a[c] >= 0.95 * b[c] && a[c] <= 1.05 * b[c])) exit 1 }
		exit 0 }'
}
# compare NAME DEV RW BS QD METRIC MODE: METRIC 1 IOPS, 2 bandwidth; MODE
# "same" (METRIC and latency mean within 5 % either way), "same99" (and p99),
# "atleast" (aoe-ddt's METRIC >= fio's - 5 %) or "print".
compare() {
	local name=$1 dev=$2 rw=$3 bs=$4 qd=$5 col=$6 mode=$7 i f d
	local bf="0 0 1e18 1e18" bd="0 0 1e18 1e18"
	for ((i = 1; i <= max_rounds; i++)); do
		if ((i % 2)); then
			f=$(fio_run "$dev" "$rw" "$bs" "$qd")
			d=$(ddt_run "$dev" "$rw" "$bs" "$qd")
		else
			d=$(ddt_run "$dev" "$rw" "$bs" "$qd")
			f=$(fio_run "$dev" "$rw" "$bs" "$qd")
		fi
		log "$name round $i: fio $f, aoe-ddt $d"
		bf=$(best "$bf" "${f:-0 0 1e18 1e18}")
		bd=$(best "$bd" "${d:-0 0 1e18 1e18}")
		((i >= rounds)) || continue
		[ "$mode" = print ] && break
		agree "$bd" "$bf" "$col" "$mode" && break
	done
	awk -v n="$name" -v l="$bf" 'BEGIN { split(l, a, " "); printf "DDT-BENCH %s fio %.0f %.1f %.0f %.0f\n", n, a[1], a[2] / 1e6, a[3], a[4] }'
	awk -v n="$name" -v l="$bd" 'BEGIN { split(l, a, " "); printf "DDT-BENCH %s aoe-ddt %.0f %.1f %.0f %.0f\n", n, a[1], a[2] / 1e6, a[3], a[4] }'
	[ "$mode" = print ] && return 0
	agree "$bd" "$bf" "$col" "$mode" || fail "$name: aoe-ddt $bd vs fio $bf ($mode; IOPS B/s mean_us p99_us)"
}

# nullb LATENCY_NS [MEMORY_BACKED [HW_QUEUE_DEPTH [FILL]]]: a 1 GiB null_blk;
# memory-backed (the default) with its first 256 MiB written (FILL 0: not). A
# queue depth below 256 goes without a scheduler, so that nr_requests is that depth.
nullb() {
	local irq=2 mem=${2:-1} depth=${3:-256} fill=${4:-1}
	[ "$1" = 0 ] && irq=0
	pp modprobe null_blk nr_devices=1 queue_mode=2 irqmode=$irq completion_nsec="$1" \
		hw_queue_depth="$depth" gb=1 memory_backed="$mem" ||
		die "no null_blk module in the VM: add null_blk to KMODS in tests/vm/mkinitramfs.sh"
	vm_wait_for "test -b /dev/nullb0" 5
	if [ "$depth" -lt 256 ]; then
		echo none >/sys/block/nullb0/queue/scheduler || die "cannot turn off nullb0's scheduler"
	fi
	log "nullb0: max_sectors_kb $(cat /sys/block/nullb0/queue/max_sectors_kb) nr_requests $(cat /sys/block/nullb0/queue/nr_requests) memory_backed $mem"
	# Reads of never-written memory cost less than real ones.
	[ "$mem" = 0 ] || [ "$fill" = 0 ] ||
		pp timeout 120 aoe-ddt -w --force --no-progress -q 8 -s "$size" /dev/nullb0 >/dev/null
}
mnt=/mnt/21
trap 'rc=$?; set +e; grep -qs " $mnt " /proc/mounts && umount "$mnt"; timeout 30 rmmod null_blk; (exit $rc); _vm_cleanup' EXIT

# 1 + 2: the device sets the pace. 8 requests for qd16: io_submit blocks.
nullb 10000000 1 8
[ "$(cat /sys/block/nullb0/queue/nr_requests)" = 8 ] || die "nullb0 takes $(cat /sys/block/nullb0/queue/nr_requests) requests, not 8"
compare nullblk10ms-nr8-randread-4k-qd16 /dev/nullb0 randread 4k 16 1 same99
pp rmmod null_blk
# A 1M read is 9 requests of 127k; at 10 ms the 6.1 kernel's timer completions
# drift with the load (fio 246-329 IOPS between rounds), at 50 ms they do not.
# No memory behind it: see 1. above.
nullb 50000000 0
compare nullblk50ms-seqread-1m-qd8 /dev/nullb0 read 1M 8 2 same
pp rmmod null_blk
nullb 50000000 1 256 0
# A file on such a disk: the same through a filesystem (ext2, O_DIRECT).
pp mke2fs -q -t ext2 -E nodiscard,lazy_itable_init=1 /dev/nullb0
mkdir -p "$mnt"
pp mount -t ext2 /dev/nullb0 "$mnt"
size=128M
pp truncate -s "$size" "$mnt/data"
pp timeout 120 aoe-ddt -w --no-progress -q 8 "$mnt/data" >/dev/null
compare file50ms-randread-4k-qd32 "$mnt/data" randread 4k 32 1 same
compare file50ms-seqread-1m-qd8 "$mnt/data" read 1M 8 2 print
pp umount "$mnt"
size=256M
pp rmmod null_blk

# 2 + 3: the tool sets the pace.
nullb 0
compare nullblk-randread-4k-qd32 /dev/nullb0 randread 4k 32 1 atleast
pp rmmod null_blk

disk=$(vm_ramdisk 256)
pp timeout 120 aoe-ddt -w --force --no-progress -q 8 "$disk" >/dev/null
compare brd-randread-4k-qd32 "$disk" randread 4k 32 1 atleast
compare brd-seqread-1m-qd8 "$disk" read 1M 8 2 print

[ ! -s "$failures" ] || die "aoe-ddt and fio disagree (see FAILED and DDT-BENCH lines)"
log "aoe-ddt agrees with fio and with the kernel's counters"
