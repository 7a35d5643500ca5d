#!/usr/bin/env bash
# Host tests for tests/tools/aoe-fastd (the fast AoE test target): it builds
# with -Wall -Wextra -Werror, --help documents every long option, bad option
# values are refused; as root, in a private network namespace with a veth
# pair (no traffic leaves it): `aoe-discover --probe` over raw AoE finds
# e1.2 with the size, model and buffer count it serves and reads back the
# full jumbo payload (Query Config, READ probes, IDENTIFY), a power cut on the
# control FIFO is acknowledged, and SIGTERM prints the counter line and exits 0.
# Prints "PASS fastd/<name>", "FAIL fastd/<name>: reason" or "SKIP ..." lines.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

DISCOVER=${DISCOVER:-build/userland/aoe-discover}
bin=build/host/aoe-fastd
failed=0
pass() { echo "PASS fastd/$1"; }
fail() { echo "FAIL fastd/$1: $2"; failed=1; }

mkdir -p build/host
if gcc -O2 -Wall -Wextra -Werror -pthread -o "$bin" tests/tools/aoe-fastd.c -laio 2>build/host/fastd-build.log; then
	pass build
else
	fail build "$(head -n 3 build/host/fastd-build.log | tr '\n' ' ')"
	exit 1
fi

# Every long option of the source is in --help.
# (Read --help once: "--help | grep -q" fails under pipefail when grep exits
# at the first match and the help, longer than one pipe write, gets SIGPIPE.)
missing=""
help=$("$bin" --help)
for o in $(grep -oE '^\s+\{ "[a-z0-9-]+", (no|required)_argument' tests/tools/aoe-fastd.c | grep -oE '"[a-z0-9-]+"' | tr -d '"'); do
	grep -q -- "--$o" <<<"$help" || missing="$missing --$o"
done
if [ -z "$missing" ]; then pass help; else fail help "undocumented:$missing"; fi

bad=0
for args in "" "-i x -b 0" "-i x -b 257" "-i x -s 1000" "-i x --ring v4" "-i x --error-lba 9-3" \
	"-i x --file /dev/null --volatile" "-i x --fanout foo"; do
	# shellcheck disable=SC2086
	"$bin" $args >/dev/null 2>&1
	[ $? = 2 ] || { bad=1; echo "  '$args' not refused with status 2"; }
done
if [ $bad = 0 ]; then pass bad-options; else fail bad-options "see above"; fi

if [ "$(id -u)" != 0 ] || ! ip netns list >/dev/null 2>&1; then
	echo "SKIP fastd/netns: needs root and ip netns"
	exit $failed
fi
if [ ! -x "$DISCOVER" ]; then
	fail probe "$DISCOVER missing: run make userland"
	exit 1
fi
ns=aoefastd$$
tmp=$(mktemp -d)
pid=""
cleanup() {
	[ -z "$pid" ] || kill "$pid" 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
in_ns() { ip netns exec "$ns" "$@"; }
ip netns add "$ns" &&
	in_ns ip link add a0 type veth peer name b0 &&
	in_ns ip link set a0 mtu 9000 && in_ns ip link set b0 mtu 9000 &&
	in_ns ip link set a0 up && in_ns ip link set b0 up || { fail netns "cannot set up $ns"; exit 1; }
ip netns exec "$ns" "$bin" -i b0 -s 64M -b 200 --volatile -w 2 -c "$tmp/ctl" >"$tmp/out" 2>"$tmp/err" &
pid=$!  # ip netns exec execs the target: this is its PID
for _ in $(seq 50); do grep -q '^aoe-fastd: e1.2' "$tmp/out" && break; sleep 0.1; done
grep -q '^aoe-fastd: e1.2' "$tmp/out" || { fail start "$(cat "$tmp/err")"; exit 1; }

in_ns timeout 20 "$DISCOVER" --probe a0 --json -w 5 >"$tmp/probe.json" 2>"$tmp/probe.err"
rc=$?
if jq -e '[.targets[] | select(.device == "e1.2")][0] |
	.sectors == 131072 and (.model | test("aoekit fast")) and
	(.paths[0].bufcnt == 200) and (.paths[0].payload == 8704)' "$tmp/probe.json" >/dev/null 2>&1; then
	pass probe
else
	fail probe "exit $rc: $(head -c 600 "$tmp/probe.json") $(head -c 300 "$tmp/probe.err")"
fi

echo cut >"$tmp/ctl"
for _ in $(seq 30); do grep -q 'power cut 1: 0 unflushed' "$tmp/out" && break; sleep 0.1; done
if grep -q 'power cut 1: 0 unflushed' "$tmp/out"; then pass cut; else fail cut "$(cat "$tmp/out")"; fi

kill "$pid"
wait "$pid"
rc=$?
pid=""
line=$(grep '^aoe-fastd: reads' "$tmp/out")
if [ $rc = 0 ] && [[ $line =~ reads\ [1-9].*identify\ [1-9].*cuts\ 1\ errors\ 0 ]]; then
	pass counters
else
	fail counters "exit $rc, '$line'"
fi
exit $failed
