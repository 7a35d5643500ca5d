#!/bin/bash
# timeout: 300
# kernels: 6.12 (aoe-ddt against fio on null_blk: no aoe.ko; the whole suite runs it once)
# aoe-ddt measures what fio measures: O_DIRECT + libaio, time-based, both tools
# with their default submission policy (io_submit per request, one completion
# per io_getevents), on null_blk RAM disks without memory behind them
# (memory_backed=0: no copy in io_submit, so the tools' CPU stays small).
#
# 1. The device sets the pace (null_blk with timer completions):
#    a. 10 ms per 4k request, only 8 requests taken (hw_queue_depth 8, no
#       scheduler) for qd 16: io_submit blocks until a request completes,
#       which only a clock started before io_submit sees (fio's lat: from
#       preparing the request to reaping it). Device rate 800 IOPS. IOPS, the
#       mean and p99 total latency within 5 %.
#    b. 50 ms per 1M read (9 requests of 127k, all taken), qd 8: device rate
#       160 IOPS. Bandwidth and mean total latency within 5 % (p99 printed:
#       it is the slowest of 9 timers and follows the emulated VM's timer
#       jitter, 10-50 % between rounds of the same tool).
#    A row is compared only when the device really set the pace: fio reached
#    at least 80 % of the device's rate (86 % on an idle host). Under host load
#    the emulated VM itself is starved (measured with load average 12 on the
#    host, memory-backed: 4k row fio 401-429 IOPS, aoe-ddt 177-495, fio's own
#    p99 116-346 ms between rounds) and neither tool's numbers say anything about the other's;
#    the row then prints "not device-bound" and is not asserted (at host load
#    15-17, memory_backed=0: fio's best 563 of 800 IOPS, 58 of 160 at 1M).
# 2. Every aoe-ddt run reports exactly the bytes the kernel counted for the
#    device in /sys/block/nullb0/stat, over a time between -t and the wall
#    clock around the run: its numbers are what happened, not an estimate.
# 3. null_blk completing inline (no delay): the tools' CPU sets the pace, not
#    the device: both run at 90-100 % of a vCPU (usr+sys; measured under host
#    load: fio 88-98 %, aoe-ddt 92-98 %) and the IOPS compare the tools' own
#    cost per I/O under TCG (memory-backed: aoe-ddt 10-12k, fio 2.6-6.6k IOPS
#    between rounds). Printed, with each
#    tool's CPU; asserted only that aoe-ddt was CPU-bound (>= 80 %) and counted
#    right, not agreement.
#
# How aoe-ddt and fio measure was checked to be the same: the same clock
# (fio 3.33 picks clock_gettime, CLOCK_MONOTONIC, in this VM: no invariant
# TSC), the same clock points (slat: preparation to io_submit's return; clat:
# to the return of io_getevents), the same percentile (fio's log-linear
# buckets, rank and midpoint: tests/unit/test_ddt_histogram.cpp).
# Host files: tests/host/ddt.sh compares the two tools on a file.
#
# Prints "DDT-BENCH <test> <tool> <IOPS> <MB/s> <lat mean us> <lat p99 us> <cpu %>".
# Rounds alternate which tool goes first; the best of each side is compared
# (highest IOPS and bandwidth, lowest latencies, other work only ever makes a
# run worse): 2 rounds, up to 4 while they disagree or fio is not device-bound
# (not more when fio's best stays below 60 % of the device's rate: starved).
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

secs=${DDT_BENCH_SECS:-3}
size=256M   # the region both tools read
rounds=${DDT_BENCH_ROUNDS:-2}
max_rounds=$((rounds + 2))
log "clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
# fail MSG: noted in a file, as ddt_run runs in a command substitution.
failures=/tmp/21-ddt-vs-fio.failed
rm -f "$failures"
fail() { echo "FAILED: $*" | tee -a "$failures" >&2; }

# sectors read by a device so far (diskstats field 3)
sectors() { awk '{ print $3 }' "/sys/block/${1#/dev/}/stat"; }

fio_run() { # dev rw bs qd -> "iops bytes_per_s lat_mean_us lat_p99_us cpu_pct"
	timeout $((secs + 60)) fio --name=cmp --filename="$1" --ioengine=libaio --direct=1 \
		--rw="$2" --bs="$3" --iodepth="$4" --size="$size" --time_based --runtime="$secs" \
		--lat_percentiles=1 --output-format=json 2>/dev/null |
		jq -r '.jobs[0] | "\(.read.iops) \(.read.bw_bytes) \(.read.lat_ns.mean / 1000) \(.read.lat_ns.percentile["99.000000"] / 1000) \(.usr_cpu + .sys_cpu)"'
}
ddt_run() { # dev rw bs qd -> "iops bytes_per_s lat_mean_us lat_p99_us cpu_pct"; checks the run against the kernel's count
	local extra=() s0 s1 t0 t1 out
	[ "$2" = randread ] && extra=(--random)
	s0=$(sectors "$1")
	t0=$(vm_ms)
	out=$(timeout $((secs + 60)) aoe-ddt -r "${extra[@]}" -b "$3" -q "$4" -s "$size" -t "$secs" --json "$1")
	t1=$(vm_ms)
	s1=$(sectors "$1")
	jq -r '"\(.read.iops) \(.read.bw_bytes_per_s) \(.read.lat_us.mean) \(.read.lat_us.p99) \(.cpu.usr_pct + .cpu.sys_pct)"' <<<"$out"
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

# best OLD NEW: per column, the higher IOPS and bandwidth, the lower
# latencies; the CPU of the run with the higher IOPS.
best() {
	awk -v o="$1" -v n="$2" 'BEGIN { split(o, a, " "); split(n, b, " ");
		printf "%s %s %s %s %s\n", (b[1] > a[1] ? b[1] : a[1]), (b[2] > a[2] ? b[2] : a[2]),
			(b[3] < a[3] ? b[3] : a[3]), (b[4] < a[4] ? b[4] : a[4]), (b[1] > a[1] ? b[5] : a[5]) }'
}
# paced F COL RATE: fio's best F reached 80 % of the device's rate RATE in
# column COL (1 IOPS, 2 bytes/s).
paced() { awk -v f="$1" -v col="$2" -v r="$3" 'BEGIN { split(f, b, " "); exit !(b[col] >= 0.8 * r) }'; }
# agree D F COL MODE: aoe-ddt's best D against fio's best F: column COL and
# the latency mean ("same") or mean and p99 ("same99"), within 5 %.
agree() {
	awk -v d="$1" -v f="$2" -v col="$3" -v mode="$4" 'BEGIN { split(d, a, " "); split(f, b, " ");
		n = split(col " 3" (mode == "same99" ? " 4" : ""), cols, " ")
		for (k = 1; k <= n; k++) { c = cols[k]; if (!(b[c] > 0 && a[c] >= 0.95 * b[c] && a[c] <= 1.05 * b[c])) exit 1 }
		exit 0 }'
}
bench_line() { # name tool "best"
	awk -v n="$1" -v t="$2" -v l="$3" 'BEGIN { split(l, a, " ");
		printf "DDT-BENCH %s %s %.0f %.1f %.0f %.0f %.0f\n", n, t, a[1], a[2] / 1e6, a[3], a[4], a[5] }'
}
# compare NAME DEV RW BS QD COL MODE [RATE]: COL 1 IOPS, 2 bandwidth; MODE
# "same", "same99" (compared when fio reaches 80 % of RATE) or "cpu" (printed;
# aoe-ddt must be CPU-bound).
compare() {
	local name=$1 dev=$2 rw=$3 bs=$4 qd=$5 col=$6 mode=$7 rate=${8:-0} i f d
	local bf="0 0 1e18 1e18 0" bd="0 0 1e18 1e18 0"
	for ((i = 1; i <= max_rounds; i++)); do
		if ((i % 2)); then
			f=$(fio_run "$dev" "$rw" "$bs" "$qd")
			d=$(ddt_run "$dev" "$rw" "$bs" "$qd")
		else
			d=$(ddt_run "$dev" "$rw" "$bs" "$qd")
			f=$(fio_run "$dev" "$rw" "$bs" "$qd")
		fi
		log "$name round $i: fio $f, aoe-ddt $d (IOPS B/s mean_us p99_us cpu%)"
		bf=$(best "$bf" "${f:-0 0 1e18 1e18 0}")
		bd=$(best "$bd" "${d:-0 0 1e18 1e18 0}")
		[ "$mode" = cpu ] && break
		((i >= rounds)) || continue
		paced "$bf" "$col" "$rate" && agree "$bd" "$bf" "$col" "$mode" && break
		# below 60 %: the VM is starved, more rounds will not make it paced
		paced "$bf" "$col" "$((rate * 3 / 4))" || break
	done
	bench_line "$name" fio "$bf"
	bench_line "$name" aoe-ddt "$bd"
	if [ "$mode" = cpu ]; then
		awk -v d="$bd" 'BEGIN { split(d, a, " "); exit !(a[5] >= 80) }' ||
			fail "$name: aoe-ddt used $(cut -d' ' -f5 <<<"$bd") % CPU: the row is not CPU-bound as the header says"
	elif ! paced "$bf" "$col" "$rate"; then
		log "$name: not device-bound: fio's best reached less than 80 % of the device's $rate (the host starves the VM), not compared"
	elif ! agree "$bd" "$bf" "$col" "$mode"; then
		fail "$name: aoe-ddt $bd vs fio $bf ($mode; IOPS B/s mean_us p99_us cpu%)"
	fi
}

# nullb LATENCY_NS [HW_QUEUE_DEPTH]: a 1 GiB null_blk without memory. A queue
# depth below 256 goes without a scheduler, so that nr_requests is that depth.
nullb() {
	local irq=2 depth=${2:-256}
	[ "$1" = 0 ] && irq=0
	pp modprobe null_blk nr_devices=1 queue_mode=2 irqmode=$irq completion_nsec="$1" \
		hw_queue_depth="$depth" gb=1 memory_backed=0 ||
		die "no null_blk module in the VM: add null_blk to KMODS in tests/vm/mkinitramfs.sh"
	vm_wait_for "test -b /dev/nullb0" 5
	if [ "$depth" -lt 256 ]; then
		echo none >/sys/block/nullb0/queue/scheduler || die "cannot turn off nullb0's scheduler"
	fi
	log "nullb0: $1 ns, max_sectors_kb $(cat /sys/block/nullb0/queue/max_sectors_kb) nr_requests $(cat /sys/block/nullb0/queue/nr_requests)"
}
trap 'rc=$?; set +e; timeout 30 rmmod null_blk; (exit $rc); _vm_cleanup' EXIT

# 1 + 2: the device sets the pace.
nullb 10000000 8
[ "$(cat /sys/block/nullb0/queue/nr_requests)" = 8 ] || die "nullb0 takes $(cat /sys/block/nullb0/queue/nr_requests) requests, not 8"
compare nullblk10ms-nr8-randread-4k-qd16 /dev/nullb0 randread 4k 16 1 same99 800
pp rmmod null_blk
nullb 50000000
compare nullblk50ms-seqread-1m-qd8 /dev/nullb0 read 1M 8 2 same $((160 * 1048576))
pp rmmod null_blk

# 2 + 3: the tools' CPU sets the pace.
nullb 0
compare nullblk-randread-4k-qd32 /dev/nullb0 randread 4k 32 1 cpu
pp rmmod null_blk

[ ! -s "$failures" ] || die "aoe-ddt and fio disagree (see FAILED and DDT-BENCH lines)"
log "aoe-ddt agrees with fio where the device sets the pace and with the kernel's counters"
