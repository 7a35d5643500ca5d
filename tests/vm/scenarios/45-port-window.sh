#!/bin/bash
# needs: aoe.ko
# timeout: 180
# Two local interfaces reach one target MAC (issue 12, item 6):
#
#   a0 <--veth--> a0p [br0] b0p <--veth--> b0 (vblade 1 2 b0 /dev/ram0,
#   a1 <--veth--> a1p [br0]                    buffer count 16)
#
# 1. During a fio verify, aoe-stat --json sampled every 0.3 s: the frames
#    outstanding on the two paths to vblade's MAC never add up to more than
#    its buffer count.
# 2. A blackout shorter than the RTO (netem loss 100 % on vblade's side for
#    about 35 ms, during I/O) loses every frame in flight at once: that is
#    one timeout event per path (counter backoffs +1, at most +2 should the
#    blackout outlast an RTO on a loaded machine), and no path goes down.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

disk=$(vm_ramdisk 256)
vm_bridged a0 b0
vm_veth a1 a1p
pp ip link set a1p master br0
vm_vblade 1 2 b0 "$disk"
vm_load_aoe aoe_iflist=a0,a1
pp aoe-discover >/dev/null || true
vm_aoe_up e1.2
vm_wait_for "[ \$(aoe-stat --json | jq '[.targets[] | select(.device == \"e1.2\") | .paths[]] | length') = 2 ]" 10 ||
	{ aoe-stat --json; die "e1.2 does not have 2 paths"; }
mac=$(vm_mac b0)
tgt() { jq -c '.targets[] | select(.device == "e1.2")' "$@"; }
aoe-stat --json | tgt | jq -c '[.paths[] | {interface, mac, bufcnt}]'
bufcnt=$(aoe-stat --json | tgt | jq '[.paths[].bufcnt] | min')

# 1. the buffer count bounds both paths together
FIO_TIMEOUT=120
vm_fio_verify /dev/etherd/e1.2 6 >/tmp/fio.log 2>&1 &
fio_pid=$!
max=0 n=0
fail=()	# reported at the end, so that part 2 runs even if part 1 failed
while kill -0 $fio_pid 2>/dev/null && [ $n -lt 40 ]; do
	aoe-stat --json >/tmp/s.json
	sum=$(tgt /tmp/s.json | jq --arg m "$mac" '[.paths[] | select(.mac == $m) | .outstanding] | add')
	[ "$sum" -le "$max" ] || max=$sum
	if [ "$sum" -gt "$bufcnt" ] && [ ${#fail[@]} = 0 ]; then
		tgt /tmp/s.json | jq -c '[.paths[] | {interface, window, outstanding}]'
		fail+=("$sum frames outstanding to $mac over its paths, buffer count $bufcnt")
	fi
	n=$((n + 1))
	sleep 0.3
done
rc=0
wait $fio_pid || rc=$?
cat /tmp/fio.log
[ "$rc" = 0 ] || die "fio verify failed (status $rc)"
echo "AOE-PORT-WINDOW $n samples, at most $max frames outstanding to $mac (buffer count $bufcnt)"
[ $n -ge 5 ] || die "only $n samples taken during fio"
aoe-stat --json | tgt | jq -e '[.paths[] | .counters.frames_sent > 100] | all' >/dev/null ||
	die "I/O did not go over both paths"

# 2. a blackout shorter than the RTO is one timeout event per path
pp tc qdisc replace dev b0 root netem loss 0%
vm_fio_verify /dev/etherd/e1.2 12 >/tmp/fio2.log 2>&1 &
fio_pid=$!
sleep 2
snap() { aoe-stat --json | tgt | jq -c '[.paths[] | {interface, state, rto_us, t: .counters.timeouts, b: .counters.backoffs}]'; }
done_ok=0
for try in 1 2 3 4; do
	kill -0 $fio_pid 2>/dev/null || break
	before=$(snap)
	m0=$(vm_ms)
	{
		echo "qdisc change dev b0 root netem loss 100%"
		sleep 0.035
		echo "qdisc change dev b0 root netem loss 0%"
	} | tc -batch -
	m1=$(vm_ms)
	sleep 2
	after=$(snap)
	echo "AOE-BURST try $try: blackout about $((m1 - m0)) ms; before $before; after $after"
	t=$(jq -n --argjson a "$after" --argjson b "$before" '[range(0; 2) | $a[.].t - $b[.].t] | add')
	worst=$(jq -n --argjson a "$after" --argjson b "$before" '[range(0; 2) | $a[.].b - $b[.].b] | max')
	down=$(jq -n --argjson a "$after" '[$a[] | select(.state != "up") | .interface] | join(",")')
	[ -z "$down" ] || fail+=("path(s) $down marked down by a $((m1 - m0)) ms blackout")
	[ "$worst" -le 2 ] || fail+=("a $((m1 - m0)) ms blackout: $t frames timed out and one path backed its RTO off $worst times")
	if [ "$t" -ge 4 ] || [ -n "$down" ] || [ "$worst" -gt 2 ]; then
		done_ok=1
		break
	fi
	log "only $t timeouts: the blackout did not catch a window, again"
	sleep 1
done
rc=0
wait $fio_pid || rc=$?
cat /tmp/fio2.log
[ "$rc" = 0 ] || die "fio verify failed after the blackouts (status $rc)"
[ ${#fail[@]} = 0 ] || die "$(printf '%s; ' "${fail[@]}")"
[ $done_ok = 1 ] || die "no blackout lost a window of frames (test inconclusive)"
pp tc qdisc del dev b0 root
vm_unload_aoe
