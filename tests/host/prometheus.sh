#!/usr/bin/env bash
# Host tests for aoe-stat --prometheus: the formatter's output for a synthetic
# model (build/userland/aoe-prom-sample, no module needed) must pass
# `promtool check metrics` and carry the metrics man/aoe-stat.8 documents.
# Prints "PASS prometheus/<name>" or "FAIL prometheus/<name>: reason" lines.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

SAMPLE=${SAMPLE:-build/userland/aoe-prom-sample}
STAT=${STAT:-build/userland/aoe-stat}
failed=0
pass() { echo "PASS prometheus/$1"; }
fail() { echo "FAIL prometheus/$1: $2"; failed=1; }

if [ ! -x "$SAMPLE" ]; then
	fail build "$SAMPLE missing: run make userland"
	exit 1
fi
if ! command -v promtool >/dev/null; then
	fail promtool "promtool missing: apt-get install prometheus"
	exit 1
fi
out=$(mktemp)
trap 'rm -f "$out" "$out.err"' EXIT

"$SAMPLE" >"$out"
if promtool check metrics <"$out" >"$out.err" 2>&1; then
	pass promtool-sample
else
	fail promtool-sample "$(tr '\n' ' ' <"$out.err")"
fi

"$SAMPLE" --no-module >"$out"
if promtool check metrics <"$out" >"$out.err" 2>&1 && grep -qx 'aoe_up 0' "$out"; then
	pass promtool-no-module
else
	fail promtool-no-module "$(tr '\n' ' ' <"$out.err")"
fi

# Every family the formatter emits is documented in aoe-stat(8), and the
# counters end in _total.
"$SAMPLE" >"$out"
undoc=""
for m in $(awk '$1 == "#" && $2 == "TYPE" { print $3 }' "$out"); do
	grep -q "^\.B $m\$" man/aoe-stat.8 || undoc="$undoc $m"
done
[ -z "$undoc" ] && pass documented || fail documented "not in man/aoe-stat.8:$undoc"
bad=$(awk '$1 == "#" && $2 == "TYPE" && $4 == "counter" && $3 !~ /_total$/ { print $3 }' "$out")
[ -z "$bad" ] && pass counter-names || fail counter-names "counters without _total: $bad"

# Labels: target on every target/path series, interface and mac per path.
if grep -q '^aoe_path_rtt_seconds{target="e1.2",interface="eth0",mac="00:11:22:33:44:55"} 0.00025$' "$out" &&
	grep -q '^aoe_target_dropped_frames_total{target="e1.2",reason="late"} 5$' "$out" &&
	grep -q '^aoe_module_dropped_frames_total{reason="no_target"} 2$' "$out" &&
	! grep -qE '^aoe_(target|path)_[a-z_]+ ' "$out"; then
	pass labels
else
	fail labels "expected series or labels missing"
fi
# A value the kernel did not send is left out, not 0 (e7.0 has no counters).
if ! grep -q 'target="e7.0"} 0$' "$out" && ! grep -q '^aoe_target_frames_sent_total{target="e7.0"' "$out"; then
	pass missing-left-out
else
	fail missing-left-out "a missing value was exported"
fi

# The real tool: --json and --prometheus together are a usage error (2).
if [ -x "$STAT" ]; then
	"$STAT" --json --prometheus >/dev/null 2>&1
	rc=$?
	[ "$rc" = 2 ] && pass usage || fail usage "aoe-stat --json --prometheus exit $rc, not 2"
fi
exit $failed
