#!/bin/bash
# needs: aoe.ko
# timeout: 150
# kernels: 6.1 (the module's own protocol logic or a tool, no kernel interface the two series differ in: the whole suite runs it on one series, balanced for the 45 min budget; make test-full and a named run: every kernel)
# An answer is credited to the path that carried it (issue 12, item 5):
#
#   a0 (aoe.ko) <--veth--> b0 (vblade 1 2 b0 /dev/ram0)   answers 5 ms late
#   a1 (aoe.ko) <--veth--> b1 (vblade 1 2 b1 /dev/ram0)   answers delayed
#                                                         20 ms +- 20 ms
#
# Frames on a1 time out or are overtaken and go again on a0; the answer to
# the a1 transmission often arrives before a0's. IPv6 is off on these links,
# so every frame they receive is AoE. Per path, from before a fio verify:
# the answers credited (frames_received) plus the frames dropped never
# exceed what arrived on that interface (rx_packets) during the fio, and
# equal it once the links are quiet; a0's smoothed RTT stays below a1's.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

disk=$(vm_ramdisk 256)
# no IPv6 neighbour discovery on the new links: rx_packets counts AoE only
ipv6=$(cat /proc/sys/net/ipv6/conf/default/disable_ipv6 2>/dev/null || echo)
[ -z "$ipv6" ] || echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6
vm_veth a0 b0
vm_veth a1 b1
vm_vblade 1 2 b0 "$disk"
vm_vblade 1 2 b1 "$disk"
vm_load_aoe aoe_iflist=a0,a1
pp aoe-discover >/dev/null || true
vm_aoe_up e1.2
vm_wait_for "[ \$(aoe-stat --json | jq '[.targets[] | select(.device == \"e1.2\") | .paths[]] | length') = 2 ]" 10 ||
	{ aoe-stat --json; die "e1.2 does not have 2 paths"; }
[ -z "$ipv6" ] || echo "$ipv6" >/proc/sys/net/ipv6/conf/default/disable_ipv6
pp tc qdisc replace dev b0 root netem delay 5ms
pp tc qdisc replace dev b1 root netem delay 20ms 20ms

# got IFACE: frames_received + drops of the path on IFACE, from /tmp/s.json
got() {
	jq --arg i "$1" '.targets[] | select(.device == "e1.2") | .paths[] | select(.interface == $i) |
		.counters.frames_received + ([.counters.drops // {} | .[]] | add // 0)' /tmp/s.json
}
declare -A rx0 got0
aoe-stat --json >/tmp/s.json
for ifc in a0 a1; do
	got0[$ifc]=$(got $ifc)
	rx0[$ifc]=$(cat /sys/class/net/$ifc/statistics/rx_packets)
done
# check WHEN [exact]: per path, the frames credited or dropped since the
# start (read first) are at most (exact: exactly) those that arrived since
check() {
	local ifc rx n
	aoe-stat --json >/tmp/s.json
	for ifc in a0 a1; do
		rx=$(($(cat /sys/class/net/$ifc/statistics/rx_packets) - rx0[$ifc]))
		n=$(($(got $ifc) - got0[$ifc]))
		echo "AOE-ANSWER-PATH $1 $ifc: arrived $rx, credited + dropped $n"
		if [ "$n" -gt "$rx" ] || { [ -n "${2:-}" ] && [ "$n" != "$rx" ]; }; then
			jq -c '.targets[] | .paths[] | {interface, rtt_avg_us, counters}' /tmp/s.json
			die "path $ifc: $n answers credited or dropped, $rx frames arrived on $ifc"
		fi
	done
}
FIO_TIMEOUT=120
vm_fio_verify /dev/etherd/e1.2 4 >/tmp/fio.log 2>&1 &
fio_pid=$!
for i in 1 2 3 4 5 6; do
	sleep 2
	kill -0 $fio_pid 2>/dev/null || break
	check "during fio ($i)"
done
rc=0
wait $fio_pid || rc=$?
cat /tmp/fio.log
[ "$rc" = 0 ] || die "fio verify failed (status $rc)"
sleep 1	# the last delayed answers
check "after fio" exact
jq -c '.targets[] | .paths[] | {interface, rtt_avg_us, rtt_min_us, rto_us, counters: (.counters | {frames_received, retransmits, timeouts, lost, drops})}' /tmp/s.json
r0=$(jq '.targets[] | .paths[] | select(.interface == "a0") | .rtt_avg_us' /tmp/s.json)
r1=$(jq '.targets[] | .paths[] | select(.interface == "a1") | .rtt_avg_us' /tmp/s.json)
re=$(jq '.targets[] | select(.device == "e1.2") | .counters.retransmits' /tmp/s.json)
[ "$re" -gt 0 ] || die "no retransmission: the delay on a1 did not take effect"
[ "$r0" -lt "$r1" ] || die "a0's smoothed RTT ($r0 us) is not below a1's ($r1 us)"
pp tc qdisc del dev b0 root
pp tc qdisc del dev b1 root
vm_unload_aoe
