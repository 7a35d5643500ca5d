#!/bin/bash
# needs: aoe.ko
# timeout: 300
# kernels: 6.12 (the module's own protocol logic, no kernel interface the two series differ in: the whole suite runs it on one series, balanced for the 45 min budget; make test-full and a named run: every kernel)
# Twins of write copies (issue 13, the stale-write fence): the network
# duplicates write frames and holds the copies, each on its own, so the
# two copies of one write land far apart. The next write to the same
# sectors must wait until neither can land.
#   B. The "switch" (netem on the bridge port b0p) duplicates every write
#      frame and holds each copy 200-600 ms. The write times out on a0, is
#      resent and answered on a1, and the newer write waits behind the
#      ghost of the held copy. The first copy's late answer on a0 must not
#      lift the ghost: its twin is still held.
#   C. Every frame leaving a0 is sent twice (netem on a0), and the switch
#      sends each copy at once or holds it 500 ms: a write is answered at
#      once on a0 while its twin is held. On a path seen duplicating, an
#      answered write is fenced its fence time from its send (1 s), not a
#      few RTOs.
#
#   a0 (aoe.ko) <--veth--> a0p [br0] b0p <--veth--> b0 (vblade 1 2 b0 /dev/ram0)
#   a1 (aoe.ko) <--veth--> b1                           (vblade 1 2 b1 /dev/ram0)
#
# Each round: 24 blocks of 1 KiB (one frame each at MTU 1500), each written
# by its own thread (aoe-rewrite) with old data and, the moment that write
# returns, with new data (held by the fence); 3 s later every sector must
# read new. Holds stay 400 ms
# under the fence's 1 s floor (a loaded host stretches them).
# Every round on a module loaded afresh: a0's RTO learnt on fast reads
# (40 ms), so held copies time out (once they are answered late, the
# spurious-timeout floor keeps a0's later copies from timing out). B: 3
# rounds, C: 2; the fence must have held writes in each step (the hazard
# was made).
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

disk=$(vm_ramdisk 256)
vm_bridged a0 b0
vm_veth a1 b1
vm_vblade 1 2 b0 "$disk"
vm_vblade 1 2 b1 "$disk"

n=24

load() {
	vm_load_aoe aoe_iflist=a0,a1
	pp aoe-discover >/dev/null || true
	vm_aoe_up e1.2
	vm_wait_for "[ \$(aoe-stat --json | jq '[.targets[] | select(.device == \"e1.2\") | .paths[]] | length') = 2 ]" 10 ||
		{ aoe-stat --json; die "e1.2 does not have 2 paths"; }
}
counters() {
	aoe-stat --json | jq -c '.targets[] | select(.device == "e1.2") | {counters: (.counters | {retransmits, timeouts, drops, fence_ghosts, fence_held, fence_held_us}), paths: [.paths[] | {interface, state, rto_us}]}'
}

rounds=0 bad=0
# stale_round NETEM...: one round of 24 old-then-new writes (aoe-rewrite:
# the new write the moment the old one returns) with the switch doing
# NETEM, then every block read back
stale_round() {
	local got_bad=0
	pp tc qdisc replace dev b0p root netem "$@"
	pp aoe-rewrite /dev/etherd/e1.2 "$rounds" "$n" 1024 >"/tmp/rw$rounds.txt" ||
		{ cat "/tmp/rw$rounds.txt"; die "round $rounds: a write failed"; }
	# new frames go through at once again; the held copies stay held
	pp tc qdisc replace dev b0p root netem delay 0ms
	sleep 3
	if ! aoe-rewrite --check /dev/etherd/e1.2 "$rounds" "$n" 1024 >"/tmp/rwc$rounds.txt"; then
		cat "/tmp/rwc$rounds.txt"
		got_bad=$(grep -c '^block' "/tmp/rwc$rounds.txt" || true)
		[ "$got_bad" -gt 0 ] || die "round $rounds: the check failed"
	fi
	pp tc qdisc del dev b0p root
	bad=$((bad + got_bad))
	echo "AOE-LATEDUP round $rounds (netem $*): $got_bad of $n blocks stale; new writes that took over 200 ms: $(awk '$7 > 200' "/tmp/rw$rounds.txt" | wc -l)"
	rounds=$((rounds + 1))
}
# step NAME ROUNDS A0_NETEM SWITCH_NETEM...: ROUNDS rounds, each on a module
# loaded afresh; A0_NETEM ("-": none) on a0 from the warm-up reads on (a0
# is then seen duplicating before the round)
declare -A stale_in held_in
step() {
	local name=$1 nr=$2 a0q=$3 r bad0=$bad h=0
	shift 3
	log "step $name: netem on a0: $a0q; the switch: netem $*"
	for r in $(seq "$nr"); do
		load
		# shellcheck disable=SC2086
		if [ "$a0q" != - ]; then pp tc qdisc replace dev a0 root netem $a0q; fi
		pp dd if=/dev/etherd/e1.2 of=/dev/null bs=4k count=256 iflag=direct status=none
		stale_round "$@"
		counters
		h=$((h + $(vm_counter e1.2 fence_held)))
		if [ "$a0q" != - ]; then pp tc qdisc del dev a0 root; fi
		vm_unload_aoe
	done
	stale_in[$name]=$((bad - bad0))
	held_in[$name]=$h
	echo "AOE-LATEDUP step $name: ${stale_in[$name]} of $((nr * n)) blocks stale, $h writes held by the fence"
}
step B 3 - delay 400ms 200ms duplicate 100%
step C 2 "duplicate 100%" delay 500ms reorder 50%
[ "$bad" = 0 ] ||
	die "$bad of $((rounds * n)) blocks read stale data after the fence let the newer write go (B ${stale_in[B]}, C ${stale_in[C]})"
for s in B C; do
	[ "${held_in[$s]}" -gt 0 ] ||
		die "step $s: the fence held no write: the step did not make the hazard"
done
