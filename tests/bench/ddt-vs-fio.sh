#!/usr/bin/env bash
# Benchmark: aoe-ddt against fio, 4k random read at queue depth 32 and 1M
# sequential read at queue depth 8, O_DIRECT + libaio, time-based, both tools
# with their default submission policy. Prints a table.
#
#   tests/bench/ddt-vs-fio.sh [--kernel KVER]   on a brd RAM disk inside the VM
#                                                (runs VM scenario 21-ddt-vs-fio)
#   tests/bench/ddt-vs-fio.sh --host [FILE]     on a file on this host (default
#                                                build/ddt-bench/data, 1 GiB)
#
# Environment: SECS (seconds per run, default 4), ROUNDS (alternating runs per
# tool, best kept, default 3).
set -euo pipefail
cd "$(dirname "$0")/../.."

SECS=${SECS:-4}
ROUNDS=${ROUNDS:-3}
DDT=${DDT:-build/userland/aoe-ddt}
mode=vm
kernel=""
file=""
while [ $# -gt 0 ]; do
	case "$1" in
	--host) mode=host; file=${2:-}; [ $# -gt 1 ] && shift; shift ;;
	--kernel) kernel=$2; shift 2 ;;
	-h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "ddt-vs-fio.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done

# table: reads "DDT-BENCH test tool iops mbs" lines on stdin.
table() {
	awk '
		$1 == "DDT-BENCH" { iops[$2, $3] = $4; mbs[$2, $3] = $5; if (!($2 in seen)) { seen[$2] = 1; order[n++] = $2 } }
		END {
			printf "%-18s %12s %12s %10s %10s %8s\n", "test", "fio IOPS", "ddt IOPS", "fio MB/s", "ddt MB/s", "ddt/fio"
			for (i = 0; i < n; i++) {
				t = order[i]
				r = iops[t, "fio"] > 0 ? iops[t, "aoe-ddt"] / iops[t, "fio"] : 0
				printf "%-18s %12.0f %12.0f %10.1f %10.1f %7.1f%%\n", t, iops[t, "fio"], iops[t, "aoe-ddt"], mbs[t, "fio"], mbs[t, "aoe-ddt"], 100 * r
			}
		}'
}

if [ "$mode" = vm ]; then
	args=()
	[ -n "$kernel" ] && args=(--kernel "$kernel")
	if [ -z "$kernel" ]; then
		kernel=$(ls /boot/vmlinuz-6.1.*-amd64 2>/dev/null | head -n 1 | sed 's|/boot/vmlinuz-||')
		args=(--kernel "$kernel")
	fi
	tests/vm/run.sh "${args[@]}" 21-ddt-vs-fio || true
	echo "aoe-ddt vs fio in the VM (null_blk RAM disks paced at 10/50 ms, a file on one, null_blk and brd unpaced), kernel $kernel:"
	grep -a '^DDT-BENCH ' "build/vm/$kernel/console.log" | table
	exit 0
fi

[ -x "$DDT" ] || { echo "ddt-vs-fio.sh: $DDT missing: run make userland" >&2; exit 1; }
command -v fio >/dev/null || { echo "ddt-vs-fio.sh: fio missing: run make deps" >&2; exit 1; }
if [ -z "$file" ]; then
	mkdir -p build/ddt-bench
	file=build/ddt-bench/data
	if [ ! -s "$file" ]; then
		truncate -s 1G "$file"
		"$DDT" -w -q 16 "$file" >/dev/null
	fi
fi
best() { sort -g -k1,1 | tail -n 1; }
run() { # test rw bs qd
	local t=$1 rw=$2 bs=$3 qd=$4 i f d extra=()
	[ "$rw" = randread ] && extra=(--random)
	for ((i = 0; i < ROUNDS; i++)); do
		# each JSON is parsed after its tool exits (a parser in a pipeline
		# runs beside the measured I/O: -7 % for aoe-ddt at 4k)
		fio --name=b --filename="$file" --ioengine=libaio --direct=1 --rw="$rw" --bs="$bs" \
			--iodepth="$qd" --time_based --runtime="$SECS" --output-format=json >"$tmp/out" 2>/dev/null
		python3 -c 'import json,sys; r=json.load(sys.stdin)["jobs"][0]["read"]; print(r["iops"], r["bw_bytes"] / 1e6)' <"$tmp/out" >>"$tmp/fio"
		"$DDT" -r "${extra[@]}" -b "$bs" -q "$qd" -t "$SECS" --json "$file" >"$tmp/out"
		python3 -c 'import json,sys; r=json.load(sys.stdin)["read"]; print(r["iops"], r["bw_bytes_per_s"] / 1e6)' <"$tmp/out" >>"$tmp/ddt"
	done
	echo "DDT-BENCH $t fio $(best <"$tmp/fio")"
	echo "DDT-BENCH $t aoe-ddt $(best <"$tmp/ddt")"
	rm -f "$tmp/fio" "$tmp/ddt"
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "aoe-ddt vs fio on $file (host), best of $ROUNDS runs of $SECS s:"
{
	run randread-4k-qd32 randread 4k 32
	run seqread-1m-qd8 read 1M 8
} | table
