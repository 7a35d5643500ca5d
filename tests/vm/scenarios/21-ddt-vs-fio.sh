#!/bin/bash
# aoe-ddt measures what fio measures: on /dev/ram0 (brd), O_DIRECT, libaio,
# time-based, both with their default submission policy:
#
#   1M sequential read, queue depth 8   bandwidth within 5 %
#   4k random read, queue depth 32      aoe-ddt reaches at least fio's IOPS (-5 %)
#
# At 4k the RAM disk costs almost nothing and the tools' own CPU cost per I/O
# decides the result. Under TCG the VM's clocksource is usually hpet, where each
# clock_gettime is an emulated MMIO read: fio takes several per I/O, aoe-ddt two
# per batch, so fio is much slower there. The scenario switches to tsc when the
# kernel offers it and puts the old clocksource back afterwards, and runs fio
# with --clocksource=cpu (its own TSC clock, no system call) when fio accepts it.
#
# Prints "DDT-BENCH <test> <tool> <IOPS> <MB/s>" lines (tests/bench/ddt-vs-fio.sh
# collects them). Runs alternate; the best of each side is compared.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

disk=$(vm_ramdisk 256)
cs=/sys/devices/system/clocksource/clocksource0
old_cs=$(cat "$cs/current_clocksource")
trap 'rc=$?; set +e; echo "$old_cs" >"$cs/current_clocksource"; (exit $rc); _vm_cleanup' EXIT
if grep -qw tsc "$cs/available_clocksource" && [ "$old_cs" != tsc ]; then
	echo tsc >"$cs/current_clocksource" || true
fi
log "clocksource $(cat "$cs/current_clocksource") (available: $(cat "$cs/available_clocksource"))"
secs=${DDT_BENCH_SECS:-4}
rounds=${DDT_BENCH_ROUNDS:-3}
# Fill the disk: brd reads of never-written pages are cheaper than real ones.
pp timeout 120 aoe-ddt -w --force --no-progress -q 8 "$disk" >/dev/null

fio_clock=()
if timeout 30 fio --name=probe --filename="$disk" --rw=read --bs=4k --size=64k --clocksource=cpu \
	--output-format=json >/tmp/fio-probe.json 2>/tmp/fio-probe.err && ! grep -qi 'clocksource' /tmp/fio-probe.err; then
	fio_clock=(--clocksource=cpu)
fi
log "fio clock: ${fio_clock[*]:-default} $(head -c 200 /tmp/fio-probe.err)"

fio_run() { # rw bs qd -> "iops bytes_per_s"
	timeout $((secs + 60)) fio "${fio_clock[@]}" --name=cmp --filename="$disk" --ioengine=libaio --direct=1 \
		--rw="$1" --bs="$2" --iodepth="$3" --time_based --runtime="$secs" \
		--output-format=json 2>/dev/null |
		jq -r '.jobs[0].read | "\(.iops) \(.bw_bytes)"'
}
ddt_run() { # rw bs qd
	local extra=()
	[ "$1" = randread ] && extra=(--random)
	timeout $((secs + 60)) aoe-ddt -r "${extra[@]}" -b "$2" -q "$3" -t "$secs" --json "$disk" |
		jq -r '.read | "\(.iops) \(.bw_bytes_per_s)"'
}
# gt A B: A > B for decimals
gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }

failed=0
compare() { # name rw bs qd metric(1=iops,2=bw) max-ratio
	local name=$1 rw=$2 bs=$3 qd=$4 col=$5 hi=$6 i f d bf=0 bd=0 bfl="0 0" bdl="0 0"
	for ((i = 1; i <= rounds; i++)); do
		f=$(fio_run "$rw" "$bs" "$qd")
		d=$(ddt_run "$rw" "$bs" "$qd")
		log "$name round $i: fio $f, aoe-ddt $d"
		if gt "$(cut -d' ' -f"$col" <<<"$f")" "$bf"; then bf=$(cut -d' ' -f"$col" <<<"$f"); bfl=$f; fi
		if gt "$(cut -d' ' -f"$col" <<<"$d")" "$bd"; then bd=$(cut -d' ' -f"$col" <<<"$d"); bdl=$d; fi
	done
	awk -v n="$name" -v l="$bfl" 'BEGIN { split(l, a, " "); printf "DDT-BENCH %s fio %.0f %.1f\n", n, a[1], a[2] / 1e6 }'
	awk -v n="$name" -v l="$bdl" 'BEGIN { split(l, a, " "); printf "DDT-BENCH %s aoe-ddt %.0f %.1f\n", n, a[1], a[2] / 1e6 }'
	if ! awk -v d="$bd" -v f="$bf" -v hi="$hi" 'BEGIN { exit !(f > 0 && d >= f * 0.95 && (hi == 0 || d <= f * hi)) }'; then
		echo "FAILED: $name: aoe-ddt $bd vs fio $bf"
		failed=1
	fi
}
compare seqread-1m-qd8 read 1M 8 2 1.05
compare randread-4k-qd32 randread 4k 32 1 0
[ "$failed" = 0 ] || die "aoe-ddt and fio disagree (see DDT-BENCH lines)"
log "aoe-ddt agrees with fio"
