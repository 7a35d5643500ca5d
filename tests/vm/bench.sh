#!/usr/bin/env bash
# make bench: the in-tree aoe against aoekit in one VM boot (qemu TCG, 2 vCPUs),
# same vblade on a 256 MiB brd RAM disk, fio libaio O_DIRECT (see
# tests/vm/bench-guest.sh), then tests/bench/ddt-vs-fio.sh.
#
#   tests/vm/bench.sh [--kernel KVER] [--secs N] [--rounds N] [--no-ddt]
#
#   --kernel KVER  kernel to boot (default: the newest installed 6.1/6.12)
#   --secs N       seconds per fio run (default 10)
#   --rounds N     runs of every row, drivers alternating (default 3); the
#                  table shows each row's best (other work on the host only
#                  ever makes a run slower)
#   --no-ddt       skip tests/bench/ddt-vs-fio.sh
#
# Prints a table (driver rows, MB/s and IOPS, aoekit/in-tree ratio) and writes
# build/bench/bench.json. Absolute numbers are TCG numbers: compare the rows.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
here="$top/tests/vm"
# shellcheck source=tests/vm/host-lib.sh
. "$here/host-lib.sh"

kv=""
secs=10
rounds=3
ddt=1
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kv=${2:?--kernel needs a kernel release}; shift 2 ;;
	--secs) secs=${2:?--secs needs a number}; shift 2 ;;
	--rounds) rounds=${2:?--rounds needs a number}; shift 2 ;;
	--no-ddt) ddt=0; shift ;;
	-h | --help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
kv=${kv:-$(vm_host_kernels | tail -n 1)}
[ -n "$kv" ] || { echo "bench: no 6.1 or 6.12 kernel with headers installed: run 'make deps'" >&2; exit 1; }

inject=$(vm_host_inject)
ko=$(vm_host_kmod "$kv" "/lib/modules/$kv/build") || {
	echo "bench: the aoekit module does not build for $kv: $(vm_host_kmod_error "$kv")" >&2
	exit 1
}
initrd=$("$here/mkinitramfs.sh" --kver "$kv" --module "$ko" --inject "$inject")
out="$top/build/bench"
mkdir -p "$out"
guest_timeout=$((rounds * (22 * (secs + 10) + 120) + 120))
vm_host_qemu "/boot/vmlinuz-$kv" "$initrd" \
	"aoetest.scenarios=bench-guest aoetest.timeout=$guest_timeout aoebench.secs=$secs aoebench.rounds=$rounds"
echo "bench: booting the VM on $kv (about $((rounds * (22 * secs + 60) / 60 + 1)) minutes) ..." >&2
timeout --foreground -k 5 $((guest_timeout + 200)) "${qemu[@]}" </dev/null >"$out/console.raw" 2>&1 || true
vm_host_clean_console <"$out/console.raw" >"$out/console.log"
grep -a '^AOE-BENCH ' "$out/console.log" >"$out/bench.txt" || true
grep -a '^AOE-LAT ' "$out/console.log" >"$out/lat.txt" || true
[ -s "$out/bench.txt" ] || {
	echo "bench: no results (see $out/console.log):" >&2
	grep -a 'AOE-RESULT\|FAILED' "$out/console.log" >&2 || true
	exit 1
}
grep -a 'AOE-RESULT' "$out/console.log" | grep -v PASS >&2 || true

# bench.json: {kernel, secs, rounds, results: [best run of each row], runs: [every run],
# latency: [best (lowest p50) run of each driver and MTU], latency_runs: [every run]},
# a run being {driver, mtu, loss_pct, test, mb_s, iops}, a latency run
# {driver, mtu, test, p50_us, p99_us, iops}.
awk '{ printf "{\"driver\":\"%s\",\"mtu\":%d,\"test\":\"%s\",\"p50_us\":%.1f,\"p99_us\":%.1f,\"iops\":%.1f}\n", $2, $3, $4, $5, $6, $7 }' \
	"$out/lat.txt" | jq -s . >"$out/lat.json"
awk '{ printf "{\"driver\":\"%s\",\"mtu\":%d,\"loss_pct\":%d,\"test\":\"%s\",\"mb_s\":%.2f,\"iops\":%.1f}\n", $2, $3, $4, $5, $6, $7 }' \
	"$out/bench.txt" | jq -s --arg k "$kv" --argjson s "$secs" --argjson r "$rounds" \
	--slurpfile lat "$out/lat.json" \
	'{kernel: $k, secs: $s, rounds: $r,
	  results: (group_by([.mtu, .loss_pct, .test, .driver]) | map(max_by(.iops))),
	  runs: .,
	  latency: ($lat[0] | map(select(.p50_us > 0)) | group_by([.mtu, .driver]) | map(min_by(.p50_us))),
	  latency_runs: $lat[0]}' >"$out/bench.json"

echo "aoekit vs in-tree aoe, kernel $kv, vblade on brd, fio libaio O_DIRECT, ${secs}s per run, best of $rounds (qemu TCG)"
awk '
	{
		k = $3 " " $4 " " $5
		if (!(($2, k) in iops) || $7 > iops[$2, k]) { mbs[$2, k] = $6; iops[$2, k] = $7 }
		if (!(k in seen)) { seen[k] = 1; order[n++] = k }
	}
	END {
		printf "%-5s %-5s %-9s %-7s %10s %10s %9s %8s\n", "MTU", "loss", "test", "driver", "MB/s", "IOPS", "ratio", "kept"
		for (i = 0; i < n; i++) {
			split(order[i], f, " ")
			for (d = 0; d < 2; d++) {
				drv = d ? "aoekit" : "intree"
				r = ""
				if (d && iops["intree", order[i]] > 0)
					r = sprintf("%.2f", iops["aoekit", order[i]] / iops["intree", order[i]])
				# under loss: the share of the loss-free rate of the same driver
				kept = ""
				base = mbs[drv, f[1] " 0 " f[3]]
				if (f[2] != 0 && base > 0)
					kept = sprintf("%.0f%%", 100 * mbs[drv, order[i]] / base)
				printf "%-5s %-5s %-9s %-7s %10.1f %10.0f %9s %8s\n", f[1], f[2] "%", f[3], drv, mbs[drv, order[i]], iops[drv, order[i]], r, kept
			}
		}
	}' "$out/bench.txt"
echo "(ratio: aoekit/in-tree; kept: throughput under loss / the driver's loss-free throughput;"
echo " results in build/bench/bench.json)"
if [ -s "$out/lat.txt" ]; then
	echo
	echo "4 KiB O_DIRECT write latency at iodepth 1, completion latency in us, best (lowest p50) of $rounds"
	jq -r '.latency[] | [.mtu, .driver, .p50_us, .p99_us, .iops] | @tsv' "$out/bench.json" |
		awk -F'\t' 'BEGIN { printf "%-5s %-12s %9s %9s %8s\n", "MTU", "driver", "p50 us", "p99 us", "IOPS" }
			{ printf "%-5s %-12s %9.1f %9.1f %8.0f\n", $1, $2, $3, $4, $5 }'
	echo "(aoekit-zc1: aoe_zerocopy=1, write data sent from the request's pages; aoekit-zc0: copied)"
fi

if [ "$ddt" = 1 ]; then
	echo
	"$top/tests/bench/ddt-vs-fio.sh" --kernel "$kv"
fi
