#!/usr/bin/env bash
# make bench's report and plot on a fixed set of result lines
# (tests/bench/fixtures: aoekit, in-tree and the NVMe/TCP and NBD peers):
# the ratios in the table and in bench.json are the ones the lines give, and
# tests/bench/plot.sh draws an SVG and a PNG. Prints "PASS bench/<check>" or
# "FAIL bench/<check>: reason" lines.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
failed=0
pass() { echo "PASS bench/$1"; }
fail() { echo "FAIL bench/$1: $2"; failed=1; }
check() { # name jq-expression expected
	local got
	got=$(jq -r "$2" "$d/bench.json" 2>&1)
	[ "$got" = "$3" ] && pass "$1" || fail "$1" "$2 is '$got', not '$3'"
}

d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
cp tests/bench/fixtures/bench.txt tests/bench/fixtures/lat.txt tests/bench/fixtures/profile.txt "$d/"
if ! tests/bench/report.sh --dir "$d" --kernel 6.x --secs 10 --rounds 2 --no-plot >"$d/table" 2>"$d/err"; then
	fail report "report.sh failed: $(head -n 3 "$d/err")"
	exit 1
fi
pass report
# best of two runs per row; the ratio column aoekit/in-tree (IOPS)
check best-run '[.results[] | select(.driver == "aoekit" and .test == "seqread" and .loss_pct == 0)] | .[0].mb_s' 200
grep -Eq '^9000 +0% +seqread +fastd +aoekit +200\.0 +191 +2\.00 ' "$d/table" && pass table-ratio ||
	fail table-ratio "no aoekit seqread row with ratio 2.00 in the table"
# aoekit on its best target over each peer, same MTU, loss and test
check peer-nvme-seq '.peers[] | select(.peer == "nvme-tcp" and .test == "seqread" and .loss_pct == 0) | .ratio * 100 | round' 125
check peer-nbd-seq '.peers[] | select(.peer == "nbd" and .test == "seqread") | .ratio * 100 | round' 250
check peer-nvme-loss '.peers[] | select(.peer == "nvme-tcp" and .loss_pct == 1) | .ratio' 2
check peer-nvme-iops '.peers[] | select(.peer == "nvme-tcp" and .test == "randread") | .ratio' 2
check peers-count '.peers | length' 4
grep -Eq 'seqread +aoekit@fastd +/ nvme-tcp +1\.25x' "$d/table" && pass table-peers ||
	fail table-peers "no 'aoekit@fastd / nvme-tcp 1.25x' line in the table"
# make bench --profile: each row's top symbols after the table
grep -Eq '^ +21\.50% +\[kernel\.kallsyms\] \[k\] memcpy_orig$' "$d/table" &&
	grep -Eq '^  nvme-tcp MTU 9000 loss 0% seqread @nvmet$' "$d/table" && pass table-profile ||
	fail table-profile "no profile summary (aoekit memcpy_orig 21.50 %, an nvme-tcp row) in the table"
check scaling '.scaling[] | select(.test == "multi4") | .ratio' 3.3
check latency-rows '.latency | length' 3
check latency-nvme '.latency[] | select(.driver == "nvme-tcp") | .p50_us' 400
check cpu-per-gb-none '.results[] | select(.driver == "nvme-tcp" and .test == "randread") | .vm_cpu_s_per_gb' null
check setup-default '.setup' ''
# --setup (bench.sh --ktgt-params, --target-cpus): under the title and in the json
if tests/bench/report.sh --dir "$d" --kernel 6.x --secs 10 --rounds 2 --no-plot \
	--setup 'target side on vCPU(s) 1' >"$d/table2" 2>"$d/err"; then
	check setup-json '.setup' 'target side on vCPU(s) 1'
	[ "$(sed -n 2p "$d/table2")" = 'setup: target side on vCPU(s) 1' ] && pass setup-table ||
		fail setup-table "line 2 of the table is '$(sed -n 2p "$d/table2")'"
else
	fail setup-json "report.sh --setup failed: $(head -n 3 "$d/err")"
fi
# the plot, both formats
for f in svg png; do
	if out=$(tests/bench/plot.sh --json "$d/bench.json" --out "$d/bench.$f" 2>&1) && [ -s "$d/bench.$f" ]; then
		case $f in
		svg) grep -q 'nvme-tcp@nvmet' "$d/bench.svg" && pass plot-svg || fail plot-svg "no nvme-tcp@nvmet series in the SVG" ;;
		png) [ "$(head -c 4 "$d/bench.png" | od -An -tx1 | tr -d ' ')" = 89504e47 ] && pass plot-png ||
			fail plot-png "not a PNG" ;;
		esac
	else
		fail "plot-$f" "plot.sh failed: $out"
	fi
done
tests/bench/plot.sh --json "$d/none.json" >/dev/null 2>&1 && fail plot-missing "plot.sh succeeded without a json" ||
	pass plot-missing
exit $failed
