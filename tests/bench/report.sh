#!/usr/bin/env bash
# make bench's report: the table, the ratios and build/bench/bench.json (and
# its plot) from the AOE-BENCH and AOE-LAT lines of one VM boot (see
# tests/vm/bench-guest.sh), which tests/vm/bench.sh saved as DIR/bench.txt
# and DIR/lat.txt:
#
#   tests/bench/report.sh --dir DIR --kernel KVER --secs N --rounds N
#                         [--base TEXT] [--setup TEXT] [--no-plot]
#
#   --base TEXT  the run has driver aoebase, aoekit's module at TEXT (a git
#                commit): the ratio column is aoekit/aoebase
#   --setup TEXT how the run differed from the default (bench.sh's
#                --ktgt-params, --target-cpus): under the title, and as
#                bench.json's "setup"
#   --no-plot    no DIR/bench.svg (tests/bench/plot.sh)
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
out="" kv="" secs="" rounds="" base="" setup="" plot=1
while [ $# -gt 0 ]; do
	case "$1" in
	--dir) out=${2:?--dir needs a folder}; shift 2 ;;
	--kernel) kv=${2:?--kernel needs a kernel release}; shift 2 ;;
	--secs) secs=${2:?--secs needs a number}; shift 2 ;;
	--rounds) rounds=${2:?--rounds needs a number}; shift 2 ;;
	--base) base=${2:?--base needs a text}; shift 2 ;;
	--setup) setup=${2:?--setup needs a text}; shift 2 ;;
	--no-plot) plot=0; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "report.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
if [ -z "$out" ] || [ -z "$kv" ] || [ -z "$secs" ] || [ -z "$rounds" ]; then
	echo "report.sh: --dir, --kernel, --secs and --rounds are required (see --help)" >&2
	exit 2
fi
[ -s "$out/bench.txt" ] || { echo "report.sh: $out/bench.txt: no results" >&2; exit 1; }
touch "$out/lat.txt"

# bench.json: {kernel, secs, rounds, setup (--setup, else ""), results: [best run of each row],
# scaling: [{driver, target, mtu, test (multi4, paths2), base (multi1, paths1),
# ratio: MB/s over the base's, best runs}], peers: [{peer (nvme-tcp, nbd),
# target (aoekit's best), mtu, loss_pct, test, ratio: aoekit's IOPS over the
# peer's, best runs}], runs: [every run],
# latency: [best (lowest p50) run of each driver and MTU], latency_runs: [every run]},
# a run being {driver, target, mtu, loss_pct, test, mb_s, iops, target_cpu_pct,
# vm_cpu_pct, target_busy_pct (aoe-fastd only, else null), vm_cpu_s_per_gb
# (null when nothing moved)}, a latency run
# {driver, mtu, test, p50_us, p99_us, iops}.
awk '{ printf "{\"driver\":\"%s\",\"mtu\":%d,\"test\":\"%s\",\"p50_us\":%.1f,\"p99_us\":%.1f,\"iops\":%.1f}\n", $2, $3, $4, $5, $6, $7 }' \
	"$out/lat.txt" | jq -s . >"$out/lat.json"
awk '{ printf "{\"driver\":\"%s\",\"target\":\"%s\",\"mtu\":%d,\"loss_pct\":%d,\"test\":\"%s\",\"mb_s\":%.2f,\"iops\":%.1f,\"target_cpu_pct\":%d,\"vm_cpu_pct\":%d,\"target_busy_pct\":%s,\"vm_cpu_s_per_gb\":%s}\n", $2, ($8 == "" ? "vblade" : $8), $3, $4, $5, $6, $7, $9, $10, ($11 ~ /^[0-9]+$/ ? $11 : "null"), ($12 ~ /^[0-9.]+$/ ? $12 : "null") }' \
	"$out/bench.txt" | jq -s --arg k "$kv" --arg setup "$setup" --argjson s "$secs" --argjson r "$rounds" \
	--slurpfile lat "$out/lat.json" \
	'(group_by([.mtu, .loss_pct, .test, .target, .driver]) | map(max_by(.iops))) as $best |
	 {kernel: $k, secs: $s, rounds: $r, setup: $setup,
	  results: $best,
	  scaling: [$best[] | select(.test == "multi4" or .test == "paths2") as $x
		| $best[] | select(.test == ($x.test | sub("[24]$"; "1")) and .driver == $x.driver
		    and .target == $x.target and .mtu == $x.mtu and .loss_pct == $x.loss_pct and .mb_s > 0)
		| {driver, target, mtu, test: $x.test, base: .test, ratio: ($x.mb_s / .mb_s)}],
	  runs: .,
	  peers: [$best[] | select(.driver == "nvme-tcp" or .driver == "nbd") as $p
		| [$best[] | select(.driver == "aoekit" and .mtu == $p.mtu and .loss_pct == $p.loss_pct
		    and .test == $p.test and $p.iops > 0)] | max_by(.iops) // empty
		| {peer: $p.driver, target, mtu, loss_pct, test, ratio: (.iops / $p.iops)}],
	  latency: ($lat[0] | map(select(.p50_us > 0)) | group_by([.mtu, .test, .driver]) | map(min_by(.p50_us))),
	  latency_runs: $lat[0]}' >"$out/bench.json"

[ -z "$base" ] || echo "aoebase: aoekit's module at $base; the ratio column is aoekit/aoebase"
echo "aoekit vs in-tree aoe, kernel $kv, vblade on brd / aoe-fastd / aoe_ktgt on their RAM disks, fio libaio O_DIRECT, ${secs}s per run, best of $rounds (qemu TCG)"
[ -z "$setup" ] || echo "setup: $setup"
awk '
	BEGIN { ref = "intree" }
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
		if ($2 == "aoebase") ref = "aoebase"
	}
	END {
		printf "%-5s %-5s %-9s %-10s %-8s %10s %10s %7s %6s %7s %6s %7s %8s\n", "MTU", "loss", "test", "target", "driver", "MB/s", "IOPS", "ratio", "kept", "tgtCPU", "vmCPU", "tgtBusy", "vmCPU/GB"
		for (i = 0; i < n; i++) {
			split(order[i], f, " ")
			for (d = 0; d < nd; d++) {
				drv = drvs[d]
				if (!((drv, order[i]) in iops)) continue
				r = ""
				if (drv == "aoekit" && iops[ref, order[i]] > 0)
					r = sprintf("%.2f", iops["aoekit", order[i]] / iops[ref, order[i]])
				# under loss: the share of the loss-free rate of the same driver
				kept = ""
				base = mbs[drv, f[1] " 0 " f[3] " " f[4]]
				if (f[2] != 0 && base > 0)
					kept = sprintf("%.0f%%", 100 * mbs[drv, order[i]] / base)
				printf "%-5s %-5s %-9s %-10s %-8s %10.1f %10.0f %7s %6s %6s%% %5s%% %7s %8s\n", f[1], f[2] "%", f[3], f[4], drv, mbs[drv, order[i]], iops[drv, order[i]], r, kept, tcpu[drv, order[i]], vcpu[drv, order[i]], busy[drv, order[i]], spg[drv, order[i]]
			}
		}
		hdr = 0
		for (i = 0; i < n; i++) {
			split(order[i], f, " ")
			if (f[4] !~ /^fastd/ && f[4] != "ktgt") continue
			kv = f[1] " " f[2] " " f[3] " vblade"
			for (d = 0; d < nd; d++) {
				drv = drvs[d]
				if (!((drv, kv) in iops) || iops[drv, kv] <= 0 || !((drv, order[i]) in iops)) continue
				if (!hdr++) printf "\nfastd/vblade, ktgt/vblade (same driver, same row):\n"
				printf "  MTU %s loss %s%% %-9s %-9s %-7s %6.2fx\n", f[1], f[2], f[3], f[4], drv, iops[drv, order[i]] / iops[drv, kv]
			}
		}
		# aoekit on its best AoE target against each peer (same MTU, loss, test)
		hdr = 0
		for (i = 0; i < n; i++) {
			split(order[i], f, " ")
			if (f[4] != "nvmet" && f[4] != "nbd-server") continue
			pdrv = (f[4] == "nvmet" ? "nvme-tcp" : "nbd")
			if (!((pdrv, order[i]) in iops) || iops[pdrv, order[i]] <= 0) continue
			best = 0
			for (j = 0; j < n; j++) {
				split(order[j], g, " ")
				if (g[1] != f[1] || g[2] != f[2] || g[3] != f[3] || !(("aoekit", order[j]) in iops)) continue
				if (iops["aoekit", order[j]] > best) { best = iops["aoekit", order[j]]; bt = g[4] }
			}
			if (best <= 0) continue
			if (!hdr++) printf "\naoekit (its best AoE target) / peer, same MTU, loss and test (issue 14: >= 1 against NVMe/TCP on seq and 4 KiB IOPS):\n"
			printf "  MTU %s loss %s%% %-9s aoekit@%-7s / %-9s %6.2fx\n", f[1], f[2], f[3], bt, pdrv, best / iops[pdrv, order[i]]
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
echo " ktgt: aoe_ktgt, in-kernel, serves in the receive softirq (tgtCPU 0: its work is in vmCPU);"
echo " vmCPU/GB: busy seconds of both vCPUs around the run per 10^9 bytes moved;"
echo " multi1/multi4: 1 / 4 targets of 64 MiB on one link; paths1/paths2: one target over 1 / 2 links;"
echo " nvme-tcp@nvmet, nbd@nbd-server: the peers, on the brd disk over the same veth (tgtCPU: nbd-server's; nvmet's kernel threads: 0);"
echo " results in build/bench/bench.json)"
if [ -s "$out/lat.txt" ]; then
	echo
	echo "4 KiB O_DIRECT random read (lat4kr) and write (lat4kw) latency at iodepth 1, total latency (submission to completion, fio lat_ns) in us, best (lowest p50) of $rounds"
	jq -r '.latency[] | [.mtu, .test, .driver, .p50_us, .p99_us, .iops] | @tsv' "$out/bench.json" |
		awk -F'\t' 'BEGIN { printf "%-5s %-7s %-12s %9s %9s %8s\n", "MTU", "test", "driver", "p50 us", "p99 us", "IOPS" }
			{ printf "%-5s %-7s %-12s %9.1f %9.1f %8.0f\n", $1, $2, $3, $4, $5, $6 }'
	echo "(aoekit-zc1: aoe_zerocopy=1, write data sent from the request's pages; aoekit-zc0: copied)"
fi

# make bench --profile: each row's top symbols (of every round: the best
# run's own profile is not told apart)
if [ -s "$out/profile.txt" ]; then
	echo
	echo "profiles (perf cpu-clock, all vCPUs; the top 6 of each row's first run; all in $out/profile.txt):"
	awk '{ k = $2 " MTU " $3 " loss " $4 "% " $5 " @" $6
		if (!(k in n)) { order[m++] = k; first[k] = NR }
		if (NR - first[k] < 6 && !(k in done)) { n[k]++; line[k] = line[k] sprintf("    %6.2f%%  %s\n", $7, substr($0, index($0, $8))) }
		else done[k] = 1 }
		END { for (i = 0; i < m; i++) printf "  %s\n%s", order[i], line[order[i]] }' "$out/profile.txt"
fi

if [ "$plot" = 0 ]; then
	:
elif command -v gnuplot >/dev/null; then
	echo
	echo "plot: $("$top/tests/bench/plot.sh" --json "$out/bench.json" --out "$out/bench.svg")"
else
	echo "(no plot: gnuplot is not installed; make deps installs it)"
fi
