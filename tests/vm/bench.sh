#!/usr/bin/env bash
# make bench: the in-tree aoe against aoekit in one VM boot (qemu TCG, 2 vCPUs),
# each against vblade on a 256 MiB brd RAM disk and against aoe-fastd
# (tests/tools/aoe-fastd.c, a 256 MiB RAM disk), fio libaio O_DIRECT (see
# tests/vm/bench-guest.sh), then tests/bench/ddt-vs-fio.sh.
#
#   tests/vm/bench.sh [--kernel KVER] [--secs N] [--rounds N] [--no-ddt]
#                     [--targets LIST] [--drivers LIST] [--mtus LIST] [--tests LIST]
#
#   --kernel KVER  kernel to boot (default: the newest installed 6.1/6.12)
#   --secs N       seconds per fio run (default 10)
#   --rounds N     runs of every row, drivers alternating (default 3); the
#                  table shows each row's best (other work on the host only
#                  ever makes a run slower)
#   --no-ddt       skip tests/bench/ddt-vs-fio.sh
#   --targets LIST vblade,fastd (default both); fastd-wN: aoe-fastd with N
#                  worker threads (default: half the vCPUs)
#   --drivers LIST intree,aoekit (default both)
#   --mtus LIST    1500,9000 (default both)
#   --tests LIST   seqwrite,seqread,randread,loss,lat,multi4,paths2 (default
#                  all; loss: seqread at MTU 9000 under 1 % and 5 % netem loss;
#                  lat: qd1 4 KiB write latency, in-tree and aoekit with
#                  aoe_zerocopy=1 and =0, against the first target;
#                  multi4: 1 MiB reads at qd 8 on 4 targets at once on one
#                  link, and on 1 of them (row multi1); paths2: the same on
#                  one target over 2 links, and over 1 (row paths1))
#   e.g. the target comparison alone:
#     --mtus 9000 --tests seqread --rounds 2 --no-ddt
#
# Prints a table (driver rows, MB/s and IOPS, aoekit/in-tree ratio, the
# target's CPU use and the VM's, the VM's CPU seconds per GB moved), the
# fastd/vblade, multi4/multi1 and paths2/paths1 ratios, and writes
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
targets=vblade,fastd
drivers=intree,aoekit
mtus=1500,9000
tests=seqwrite,seqread,randread,loss,lat,multi4,paths2
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kv=${2:?--kernel needs a kernel release}; shift 2 ;;
	--secs) secs=${2:?--secs needs a number}; shift 2 ;;
	--rounds) rounds=${2:?--rounds needs a number}; shift 2 ;;
	--no-ddt) ddt=0; shift ;;
	--targets) targets=${2:?--targets needs a list}; shift 2 ;;
	--drivers) drivers=${2:?--drivers needs a list}; shift 2 ;;
	--mtus) mtus=${2:?--mtus needs a list}; shift 2 ;;
	--tests) tests=${2:?--tests needs a list}; shift 2 ;;
	-h | --help) sed -n '2,33p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
# fio runs and driver loads per round: per MTU, target and driver, one run
# per test (2 loss runs at 9000, 2 runs of multi4 and of paths2); one load
# for the other tests, one for multi4, two for paths2
words() { tr ',' ' ' <<<"$1" | wc -w; }
nt=$(words "$targets")
nd=$(words "$drivers")
nruns=0
nsetups=0
for m in ${mtus//,/ }; do
	plain=0
	for t in ${tests//,/ }; do
		case $t in
		loss) [ "$m" = 9000 ] && nruns=$((nruns + 2)) && plain=1 ;;
		multi4) nruns=$((nruns + 2)) nsetups=$((nsetups + 1)) ;;
		paths2) nruns=$((nruns + 2)) nsetups=$((nsetups + 2)) ;;
		*) nruns=$((nruns + 1)) plain=1 ;;
		esac
	done
	nsetups=$((nsetups + plain))
done
nruns=$((nruns * nt * nd))
nsetups=$((nsetups * nt * nd))
guest_timeout=$((rounds * (nruns * (secs + 10) + nsetups * 45) + 120))
vm_host_qemu "/boot/vmlinuz-$kv" "$initrd" \
	"aoetest.scenarios=bench-guest aoetest.timeout=$guest_timeout aoebench.secs=$secs aoebench.rounds=$rounds aoebench.targets=$targets aoebench.drivers=$drivers aoebench.mtus=$mtus aoebench.tests=$tests"
echo "bench: booting the VM on $kv (about $((rounds * (nruns * (secs + 2) + nsetups * 10) / 60 + 2)) minutes) ..." >&2
# A TCG vCPU sometimes panics while booting (as in run.sh): that boot is
# tried once more; a panic ends the VM at once (qemu can hang after one).
for attempt in 1 2; do
	vm_host_boot "$out/console.raw" $((guest_timeout + 200))
	grep -aq 'AOE-BOOT' "$out/console.raw" && break
	[ "$attempt" = 2 ] || echo "bench: the VM did not reach /init; booting again" >&2
done
vm_host_clean_console <"$out/console.raw" >"$out/console.log"
grep -a '^AOE-BENCH ' "$out/console.log" >"$out/bench.txt" || true
grep -a '^AOE-LAT ' "$out/console.log" >"$out/lat.txt" || true
[ -s "$out/bench.txt" ] || {
	echo "bench: no results (see $out/console.log):" >&2
	grep -a 'AOE-RESULT\|FAILED' "$out/console.log" >&2 || true
	exit 1
}
grep -a 'AOE-RESULT' "$out/console.log" | grep -v PASS >&2 || true

# bench.json: {kernel, secs, rounds, results: [best run of each row],
# scaling: [{driver, target, mtu, test (multi4, paths2), base (multi1, paths1),
# ratio: MB/s over the base's, best runs}], runs: [every run],
# latency: [best (lowest p50) run of each driver and MTU], latency_runs: [every run]},
# a run being {driver, target, mtu, loss_pct, test, mb_s, iops, target_cpu_pct,
# vm_cpu_pct, target_busy_pct (aoe-fastd only, else null), vm_cpu_s_per_gb
# (null when nothing moved)}, a latency run
# {driver, mtu, test, p50_us, p99_us, iops}.
awk '{ printf "{\"driver\":\"%s\",\"mtu\":%d,\"test\":\"%s\",\"p50_us\":%.1f,\"p99_us\":%.1f,\"iops\":%.1f}\n", $2, $3, $4, $5, $6, $7 }' \
	"$out/lat.txt" | jq -s . >"$out/lat.json"
awk '{ printf "{\"driver\":\"%s\",\"target\":\"%s\",\"mtu\":%d,\"loss_pct\":%d,\"test\":\"%s\",\"mb_s\":%.2f,\"iops\":%.1f,\"target_cpu_pct\":%d,\"vm_cpu_pct\":%d,\"target_busy_pct\":%s,\"vm_cpu_s_per_gb\":%s}\n", $2, ($8 == "" ? "vblade" : $8), $3, $4, $5, $6, $7, $9, $10, ($11 ~ /^[0-9]+$/ ? $11 : "null"), ($12 ~ /^[0-9.]+$/ ? $12 : "null") }' \
	"$out/bench.txt" | jq -s --arg k "$kv" --argjson s "$secs" --argjson r "$rounds" \
	--slurpfile lat "$out/lat.json" \
	'(group_by([.mtu, .loss_pct, .test, .target, .driver]) | map(max_by(.iops))) as $best |
	 {kernel: $k, secs: $s, rounds: $r,
	  results: $best,
	  scaling: [$best[] | select(.test == "multi4" or .test == "paths2") as $x
		| $best[] | select(.test == ($x.test | sub("[24]$"; "1")) and .driver == $x.driver
		    and .target == $x.target and .mtu == $x.mtu and .loss_pct == $x.loss_pct and .mb_s > 0)
		| {driver, target, mtu, test: $x.test, base: .test, ratio: ($x.mb_s / .mb_s)}],
	  runs: .,
	  latency: ($lat[0] | map(select(.p50_us > 0)) | group_by([.mtu, .driver]) | map(min_by(.p50_us))),
	  latency_runs: $lat[0]}' >"$out/bench.json"

echo "aoekit vs in-tree aoe, kernel $kv, vblade on brd / aoe-fastd on its RAM disk, fio libaio O_DIRECT, ${secs}s per run, best of $rounds (qemu TCG)"
awk '
	{
		tg = ($8 == "" ? "vblade" : $8)
		k = $3 " " $4 " " $5 " " tg
		if (!(($2, k) in iops) || $7 > iops[$2, k]) {
			mbs[$2, k] = $6; iops[$2, k] = $7; tcpu[$2, k] = $9; vcpu[$2, k] = $10
			busy[$2, k] = ($11 ~ /^[0-9]+$/ ? $11 "%" : "-")
			spg[$2, k] = ($12 ~ /^[0-9.]+$/ ? sprintf("%.1fs", $12) : "-")
		}
		if (!(k in seen)) { seen[k] = 1; order[n++] = k }
		if (!($2 in dseen)) { dseen[$2] = 1; drvs[nd++] = $2 }
	}
	END {
		printf "%-5s %-5s %-9s %-7s %-7s %10s %10s %7s %6s %7s %6s %7s %8s\n", "MTU", "loss", "test", "target", "driver", "MB/s", "IOPS", "ratio", "kept", "tgtCPU", "vmCPU", "tgtBusy", "vmCPU/GB"
		for (i = 0; i < n; i++) {
			split(order[i], f, " ")
			for (d = 0; d < nd; d++) {
				drv = drvs[d]
				if (!((drv, order[i]) in iops)) continue
				r = ""
				if (drv == "aoekit" && iops["intree", order[i]] > 0)
					r = sprintf("%.2f", iops["aoekit", order[i]] / iops["intree", order[i]])
				# under loss: the share of the loss-free rate of the same driver
				kept = ""
				base = mbs[drv, f[1] " 0 " f[3] " " f[4]]
				if (f[2] != 0 && base > 0)
					kept = sprintf("%.0f%%", 100 * mbs[drv, order[i]] / base)
				printf "%-5s %-5s %-9s %-7s %-7s %10.1f %10.0f %7s %6s %6s%% %5s%% %7s %8s\n", f[1], f[2] "%", f[3], f[4], drv, mbs[drv, order[i]], iops[drv, order[i]], r, kept, tcpu[drv, order[i]], vcpu[drv, order[i]], busy[drv, order[i]], spg[drv, order[i]]
			}
		}
		hdr = 0
		for (i = 0; i < n; i++) {
			split(order[i], f, " ")
			if (f[4] !~ /^fastd/) continue
			kv = f[1] " " f[2] " " f[3] " vblade"
			for (d = 0; d < nd; d++) {
				drv = drvs[d]
				if (!((drv, kv) in iops) || iops[drv, kv] <= 0 || !((drv, order[i]) in iops)) continue
				if (!hdr++) printf "\nfastd/vblade (same driver, same row):\n"
				printf "  MTU %s loss %s%% %-9s %-9s %-7s %6.2fx\n", f[1], f[2], f[3], f[4], drv, iops[drv, order[i]] / iops[drv, kv]
			}
		}
		# several targets or paths against one (same driver, target, MTU)
		hdr = 0
		for (i = 0; i < n; i++) {
			split(order[i], f, " ")
			if (f[3] == "multi4") { one = "multi1"; goal = 3 }
			else if (f[3] == "paths2") { one = "paths1"; goal = 1.8 }
			else continue
			kv = f[1] " " f[2] " " one " " f[4]
			for (d = 0; d < nd; d++) {
				drv = drvs[d]
				if (!((drv, kv) in mbs) || mbs[drv, kv] <= 0 || !((drv, order[i]) in mbs)) continue
				if (!hdr++) printf "\nmulti4/multi1 (4 targets at once / 1, issue 14: >= 3x), paths2/paths1 (2 paths / 1, >= 1.8x), MB/s:\n"
				x = mbs[drv, order[i]] / mbs[drv, kv]
				printf "  MTU %s %-13s %-9s %-7s %6.2fx%s\n", f[1], f[3] "/" one, f[4], drv, x, (x >= goal ? "" : " (below " goal "x)")
			}
		}
	}' "$out/bench.txt"
echo "(ratio: aoekit/in-tree; kept: throughput under loss / the driver's loss-free throughput;"
echo " tgtCPU: the target processes' CPU time over the run in % of one vCPU (softirq work in its"
echo " context included, e.g. the initiator's receive path); vmCPU: both vCPUs busy;"
echo " tgtBusy: aoe-fastd's wall time serving rather than waiting for requests;"
echo " vmCPU/GB: busy seconds of both vCPUs around the run per 10^9 bytes moved;"
echo " multi1/multi4: 1 / 4 targets of 64 MiB on one link; paths1/paths2: one target over 1 / 2 links;"
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
