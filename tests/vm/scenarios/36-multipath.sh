#!/bin/bash
# needs: aoe.ko
# timeout: 180
# kernels: 6.1 (the module's own protocol logic or a tool, no kernel interface the two series differ in: the whole suite runs it on one series, balanced for the 45 min budget; make test-full and a named run: every kernel)
# One target over two paths; one path cut during I/O:
#
#   a0 (aoe.ko) <--veth--> b0 (vblade 1 2 b0 /dev/ram0)
#   a1 (aoe.ko) <--veth--> b1 (vblade 1 2 b1 /dev/ram0)
#
# aoe-stat --json shows e1.2 with 2 paths (a0, a1); netem loss 100 % on a1
# and b1 during a fio verify: no error (the I/O moves to a0). Then a1 heals
# (its path comes back up), and during a second fio verify the interface a1
# is deleted: no error, e1.2 is left with the one path a0.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

disk=$(vm_ramdisk 256)
vm_veth a0 b0
vm_veth a1 b1
vm_vblade 1 2 b0 "$disk"
vm_vblade 1 2 b1 "$disk"
vm_load_aoe aoe_iflist=a0,a1
pp aoe-discover >/dev/null || true
vm_aoe_up e1.2
vm_wait_for "[ \$(aoe-stat --json | jq '[.targets[] | select(.device == \"e1.2\") | .paths[]] | length') = 2 ]" 10 ||
	{ aoe-stat --json; die "e1.2 does not have 2 paths"; }
aoe-stat --json | jq -cM '.targets[] | select(.device == "e1.2") | [.paths[] | {interface, mac, state}]'
aoe-stat --json | jq -e '[.targets[] | select(.device == "e1.2") | .paths[].interface] | sort == ["a0", "a1"]' >/dev/null ||
	die "paths are not on a0 and a1"
FIO_TIMEOUT=150
vm_fio_verify /dev/etherd/e1.2 12 >/tmp/fio.log 2>&1 &
fio_pid=$!
sleep 1
kill -0 $fio_pid || { cat /tmp/fio.log; die "fio ended before the path was cut"; }
pp tc qdisc replace dev a1 root netem loss 100%
pp tc qdisc replace dev b1 root netem loss 100%
log "path a1 cut"
rc=0
wait $fio_pid || rc=$?
cat /tmp/fio.log
[ "$rc" = 0 ] || die "fio verify failed after one of two paths was cut (status $rc)"
pp aoe-stat -a
aoe-stat --json | jq -cM '.targets[] | select(.device == "e1.2") | [.paths[] | {interface, state, counters}]'

# The path heals; then its interface disappears under I/O.
pp tc qdisc del dev a1 root
pp tc qdisc del dev b1 root
path_state() { aoe-stat --json | jq -r ".targets[] | select(.device == \"e1.2\") | .paths[] | select(.interface == \"$1\") | .state"; }
vm_wait_for "[ \"\$(path_state a1)\" = up ]" 15 || die "path a1 did not come back up after the loss ended"
log "path a1 up again"
vm_fio_verify /dev/etherd/e1.2 12 >/tmp/fio2.log 2>&1 &
fio_pid=$!
sleep 1
kill -0 $fio_pid || { cat /tmp/fio2.log; die "second fio ended before a1 was deleted"; }
pp ip link del a1
log "interface a1 deleted"
rc=0
wait $fio_pid || rc=$?
cat /tmp/fio2.log
[ "$rc" = 0 ] || die "fio verify failed after the interface of one of two paths was deleted (status $rc)"
pp aoe-stat -a
[ "$(aoe-stat --json | jq -c '[.targets[] | select(.device == "e1.2") | .paths[].interface]')" = '["a0"]' ] ||
	die "e1.2 should have only the path on a0 after a1 was deleted"
vm_unload_aoe
