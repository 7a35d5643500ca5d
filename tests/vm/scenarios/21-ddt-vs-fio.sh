#!/bin/bash
# timeout: 300
# aoe-ddt measures what fio measures, O_DIRECT + libaio, time-based, both tools
# with their default submission policy:
#
#   null_blk, 100 ms timer completions   4k random read qd32, 1M sequential read qd8:
#   (the device sets the pace)           IOPS and bandwidth within 5 % of fio's
#   /dev/ram0 (brd, the CPU sets the     4k random read qd32: aoe-ddt reaches at least
#   pace)                                fio's IOPS (-5 %); 1M sequential read qd8: printed
#                                        only (a memcpy race, noisy under TCG)
#
# On brd the device costs almost nothing and each tool's own CPU cost per I/O
# decides the result; under TCG the clocksource is hpet, where each
# clock_gettime is an emulated MMIO read, and fio takes several per I/O where
# aoe-ddt takes two per batch, so there aoe-ddt must only not be slower.
# Prints "DDT-BENCH <test> <tool> <IOPS> <MB/s>" lines (tests/bench/ddt-vs-fio.sh
# collects them). Runs alternate; the best of each side is compared.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

secs=${DDT_BENCH_SECS:-5}
rounds=${DDT_BENCH_ROUNDS:-1}
log "clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"

fio_run() { # dev rw bs qd -> "iops bytes_per_s"
	timeout $((secs + 60)) fio --name=cmp --filename="$1" --ioengine=libaio --direct=1 \
		--rw="$2" --bs="$3" --iodepth="$4" --time_based --runtime="$secs" \
		--output-format=json 2>/dev/null |
		jq -r '.jobs[0].read | "\(.iops) \(.bw_bytes)"'
}
ddt_run() { # dev rw bs qd
	local extra=()
	[ "$2" = randread ] && extra=(--random)
	timeout $((secs + 60)) aoe-ddt -r "${extra[@]}" -b "$3" -q "$4" -t "$secs" --json "$1" |
		jq -r '.read | "\(.iops) \(.bw_bytes_per_s)"'
}
# gt A B: A > B for decimals
gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }

failed=0
compare() { # name dev rw bs qd metric(1=iops,2=bw) max-ratio(0: no upper bound, -1: no check)
	local name=$1 dev=$2 rw=$3 bs=$4 qd=$5 col=$6 hi=$7 i f d bf=0 bd=0 bfl="0 0" bdl="0 0"
	for ((i = 1; i <= rounds; i++)); do
		f=$(fio_run "$dev" "$rw" "$bs" "$qd")
		d=$(ddt_run "$dev" "$rw" "$bs" "$qd")
		log "$name round $i: fio $f, aoe-ddt $d"
		if gt "$(cut -d' ' -f"$col" <<<"$f")" "$bf"; then bf=$(cut -d' ' -f"$col" <<<"$f"); bfl=$f; fi
		if gt "$(cut -d' ' -f"$col" <<<"$d")" "$bd"; then bd=$(cut -d' ' -f"$col" <<<"$d"); bdl=$d; fi
	done
	awk -v n="$name" -v l="$bfl" 'BEGIN { split(l, a, " "); printf "DDT-BENCH %s fio %.0f %.1f\n", n, a[1], a[2] / 1e6 }'
	awk -v n="$name" -v l="$bdl" 'BEGIN { split(l, a, " "); printf "DDT-BENCH %s aoe-ddt %.0f %.1f\n", n, a[1], a[2] / 1e6 }'
	[ "$hi" = -1 ] && return 0
	if ! awk -v d="$bd" -v f="$bf" -v hi="$hi" 'BEGIN { exit !(f > 0 && d >= f * 0.95 && (hi == 0 || d <= f * hi)) }'; then
		echo "FAILED: $name: aoe-ddt $bd vs fio $bf"
		failed=1
	fi
}

# A device that takes 100 ms per request whoever asks: both must see the same.
pp modprobe null_blk nr_devices=1 queue_mode=2 irqmode=2 completion_nsec=100000000 \
	hw_queue_depth=64 gb=1 ||
	die "no null_blk module in the VM: add null_blk to KMODS in tests/vm/mkinitramfs.sh"
trap 'rc=$?; set +e; timeout 30 rmmod null_blk; (exit $rc); _vm_cleanup' EXIT
vm_wait_for "test -b /dev/nullb0" 5
secs_brd=$secs
secs=$((secs + 2))  # null_blk: 100 ms per request, longer runs
compare nullblk-randread-4k-qd32 /dev/nullb0 randread 4k 32 1 1.05
compare nullblk-seqread-1m-qd8 /dev/nullb0 read 1M 8 2 1.05

secs=$secs_brd
disk=$(vm_ramdisk 256)
# Fill the disk: brd reads of never-written pages are cheaper than real ones.
pp timeout 120 aoe-ddt -w --force --no-progress -q 8 "$disk" >/dev/null
compare brd-randread-4k-qd32 "$disk" randread 4k 32 1 0
compare brd-seqread-1m-qd8 "$disk" read 1M 8 2 -1

[ "$failed" = 0 ] || die "aoe-ddt and fio disagree (see DDT-BENCH lines)"
log "aoe-ddt agrees with fio"
