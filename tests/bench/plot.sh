#!/usr/bin/env bash
# Draw make bench's results (build/bench/bench.json) as one picture:
#
#   tests/bench/plot.sh [--json FILE] [--out FILE.svg|FILE.png]
#
#   --json FILE  bench.json to draw (default build/bench/bench.json)
#   --out FILE   picture to write, SVG or PNG by its name (default
#                bench.svg beside the json)
#
# Three panels, one bar per initiator@target (best run of each row):
#   throughput  MB/s of the 1 MiB rows (seqwrite, seqread, loss, multi,
#               paths), one group per MTU/test/loss
#   IOPS        4 KiB random reads at qd 32, one group per MTU
#   latency     p50 of 4 KiB qd1 random reads/writes in us (lower is better)
# Needs gnuplot (make deps installs gnuplot-nox) and jq. Prints the path.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
json=$top/build/bench/bench.json
out=""
while [ $# -gt 0 ]; do
	case "$1" in
	--json) json=${2:?--json needs a file}; shift 2 ;;
	--out) out=${2:?--out needs a file}; shift 2 ;;
	-h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "plot.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
[ -s "$json" ] || { echo "plot.sh: $json: no such file; run make bench first" >&2; exit 1; }
command -v gnuplot >/dev/null || { echo "plot.sh: gnuplot is not installed: run make deps" >&2; exit 1; }
out=${out:-$(dirname "$json")/bench.svg}
case $out in
*.svg) term="svg size 1200,1300 dynamic font 'sans,11'" ;;
*.png) term="pngcairo size 1200,1300 font 'sans,10'" ;;
*) echo "plot.sh: --out $out: the name must end in .svg or .png" >&2; exit 2 ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# table FILTER VALUE FILE: a TSV, a header row of the series (driver@target)
# then one row per group (its label first), "-" where a series has no run.
table() {
	jq -r --arg v "$2" "[$1] as \$r
		| (\$r | map(.series) | unique) as \$s
		| ([\"group\"] + \$s | @tsv),
		  (\$r | group_by(.group)[] | . as \$g
		    | [\$g[0].group] + [\$s[] as \$x | ((\$g[] | select(.series == \$x) | .[\$v]) // \"-\")] | @tsv)" \
		"$json" >"$3"
}
table '.results[] | select(.test != "randread") |
	{series: "\(.driver)@\(.target)", group: "\(.mtu) \(.test)\(if .loss_pct > 0 then " \(.loss_pct)%" else "" end)", mb_s}' \
	mb_s "$tmp/tput.tsv"
table '.results[] | select(.test == "randread") | {series: "\(.driver)@\(.target)", group: "MTU \(.mtu)", iops}' \
	iops "$tmp/iops.tsv"
table '(.latency // [])[] | {series: .driver, group: "\(.mtu) \(.test)", p50_us}' \
	p50_us "$tmp/lat.tsv"
[ "$(wc -l <"$tmp/tput.tsv")" -gt 1 ] || [ "$(wc -l <"$tmp/iops.tsv")" -gt 1 ] ||
	{ echo "plot.sh: $json has no results to draw" >&2; exit 1; }

kernel=$(jq -r '.kernel' "$json")
rounds=$(jq -r '.rounds' "$json")
# panel TITLE YLABEL FILE: one clustered histogram (skipped when empty)
panel() {
	local n
	n=$(head -n 1 "$3" | awk -F'\t' '{ print NF }')
	if [ "$(wc -l <"$3")" -le 1 ]; then
		echo "set title '$1 (no runs)'; unset key; plot [0:1][0:1] NaN notitle"
		return
	fi
	cat <<-GP
		set title '$1'
		set ylabel '$2'
		set key outside right top vertical
		plot for [i=2:$n] '$3' using i:xtic(1) title columnheader(i)
	GP
}
{
	cat <<-GP
		set terminal $term
		set output '$out'
		set datafile separator '\t'
		set datafile missing '-'
		set style data histogram
		set style histogram clustered gap 1
		set style fill solid 0.85 border -1
		set boxwidth 0.9
		set grid ytics
		set yrange [0:*]
		set xtics rotate by -30 noenhanced
		set key noenhanced
		set multiplot layout 3,1 title 'make bench, kernel $kernel, best of $rounds (qemu TCG: compare bars, not absolute numbers)' noenhanced
	GP
	panel 'throughput, 1 MiB at qd 8 (higher is better)' 'MB/s' "$tmp/tput.tsv"
	panel '4 KiB random read, qd 32 (higher is better)' 'IOPS' "$tmp/iops.tsv"
	panel '4 KiB qd 1 latency, p50 (lower is better)' 'us' "$tmp/lat.tsv"
	echo "unset multiplot"
} >"$tmp/plot.gp"
gnuplot "$tmp/plot.gp" 2>"$tmp/err" || { cat "$tmp/err" >&2; echo "plot.sh: gnuplot failed" >&2; exit 1; }
[ -s "$out" ] || { echo "plot.sh: gnuplot wrote nothing to $out" >&2; exit 1; }
echo "$out"
