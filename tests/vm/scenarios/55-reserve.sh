#!/bin/bash
# needs: aoe.ko
# timeout: 150
# kernels: 6.12 (the module's own protocol logic, no kernel interface the two series differ in: the whole suite runs it once, make test's 45 min budget)
# aoe-reserve against vblade (AoE Reserve/Release) and AoE error 6 on I/O:
#
#   a0 <--veth--> a0p [br0] b0p <--veth--> b0 (vblade 1 2 b0 /dev/ram0): port 1
#   a1 <--veth--> a1p [br0]
#   a2 <--veth--> b2 (vblade 1 2 b2 /dev/ram0, started later): port 2
#
# 1. e1.2 over a0 and a1 (one port): the list reads empty. Reserved for
#    a1's MAC only: writes still work (data verified), a0's frames are
#    refused with error 6 and go out again on a1: reserve_conflicts counts
#    them on a0's path, not on a1's.
# 2. --force to a MAC of no host here: writes fail fast (within 5 s, not at
#    a deadline) with the one log line "e1.2: reserved by another
#    initiator: I/O fails until it releases (aoe-reserve e1.2)", e1.2 stays
#    up, the counter shows in aoe-stat -a; --reserve without --force is
#    refused in words (exit 1). --release --force: writes work again.
# 3. A second port (a2 -> b2): reserved by another MAC over raw sockets on
#    a2 only; aoe-reserve --reserve then takes port 1 but not port 2: exit 3
#    and "not changed". Released.
# 4. Module unloaded: read, reserve and release over raw sockets.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

disk=$(vm_ramdisk 64)
vm_bridged a0 b0
vm_veth a1 a1p
pp ip link set a1p master br0
vm_veth a2 b2
vm_vblade 1 2 b0 "$disk"
vm_load_aoe aoe_iflist=a0,a1,a2 aoe_deadsecs=10
pp aoe-discover >/dev/null || true
vm_aoe_up e1.2
vm_wait_for "[ \$(vm_target_json e1.2 | jq '.paths | length') = 2 ]" 10 || die "e1.2 does not have 2 paths"
a0mac=$(vm_mac a0)
a1mac=$(vm_mac a1)
b0mac=$(vm_mac b0)
pathcnt() { vm_target_json e1.2 | jq -r --arg i "$1" '.paths[] | select(.interface == $i) | .counters.reserve_conflicts'; }

pp aoe-reserve --json e1.2 >/tmp/r.json || { cat /tmp/r.json; die "aoe-reserve e1.2 failed"; }
vm_json_check /tmp/r.json '.via == "module" and (.paths | length) == 2 and all(.paths[]; .ok and .reserved == [])' \
	"e1.2 is reserved already, or not read on both paths"

# 1. Reserved for a1 only: a0's frames move to a1.
pp aoe-reserve e1.2 --reserve "$a1mac" || die "aoe-reserve --reserve a1 failed"
aoe-reserve --json e1.2 | jq -e --arg m "$a1mac" 'all(.paths[]; .reserved == [$m])' >/dev/null ||
	die "the reserve list is not [a1]"
pp dd if=/dev/urandom of=/tmp/data bs=64k count=16 status=none
pp timeout 30 dd if=/tmp/data of=/dev/etherd/e1.2 bs=64k oflag=direct status=none ||
	die "writes failed although a1's MAC holds the reservation"
pp timeout 30 dd if=/dev/etherd/e1.2 of=/tmp/back bs=64k count=16 iflag=direct status=none
cmp /tmp/data /tmp/back || die "e1.2 reads back other data"
c0=$(pathcnt a0)
c1=$(pathcnt a1)
log "reserve_conflicts: a0 $c0, a1 $c1"
[ "$c0" -gt 0 ] 2>/dev/null || die "no reserve conflict counted on a0's path"
[ "$c1" = 0 ] || die "reserve conflicts counted on a1's path, whose MAC holds the reservation"

# 2. Another host holds it: writes fail fast, with the log line.
pp aoe-reserve e1.2 --reserve 02:00:00:00:99:99 --force || die "aoe-reserve --force failed"
vm_dmesg_mark
t0=$(vm_ms)
rc=0
timeout 30 dd if=/tmp/data of=/dev/etherd/e1.2 bs=4k count=1 oflag=direct status=none 2>/tmp/dd.err || rc=$?
t1=$(vm_ms)
cat /tmp/dd.err
[ "$rc" != 0 ] || die "a write succeeded while another initiator holds the reservation"
[ $((t1 - t0)) -lt $((5000 * AOE_SLOW)) ] || die "the refused write took $((t1 - t0)) ms to fail"
vm_dmesg_since | grepq "e1.2: reserved by another initiator: I/O fails until it releases (aoe-reserve e1.2)" ||
	{ vm_dmesg_since; die "no 'reserved by another initiator' log line"; }
[ "$(vm_dmesg_since | grep -c 'reserved by another initiator')" = 1 ] || die "the log line is not one line"
[ "$(vm_target_json e1.2 | jq -r .state)" = up ] || die "e1.2 is not up after a reservation conflict"
aoe-stat -a | tee /tmp/stat.txt | grepq "reserve conflicts [0-9]* (another initiator holds a reservation: aoe-reserve e1.2)" ||
	{ cat /tmp/stat.txt; die "aoe-stat -a does not show the reserve conflicts"; }
rc=0
aoe-reserve e1.2 --reserve >/tmp/o 2>&1 || rc=$?
cat /tmp/o
[ "$rc" = 1 ] && grep -q "target reserved by another initiator" /tmp/o || die "--reserve over another's reservation: exit $rc"
pp aoe-reserve e1.2 --release --force || die "aoe-reserve --release --force failed"
pp timeout 30 dd if=/tmp/data of=/dev/etherd/e1.2 bs=64k oflag=direct status=none || die "writes fail after the release"

# 3. Two ports: port 2 reserved by another MAC, port 1 takes it: exit 3.
vm_vblade 1 2 b2 "$disk"
b2mac=$(vm_mac b2)
pp aoe-discover >/dev/null || true
vm_wait_for "[ \$(vm_target_json e1.2 | jq '.paths | length') = 3 ]" 10 || die "e1.2 does not have 3 paths"
pp aoe-reserve --raw -i a2 e1.2 --reserve 02:00:00:00:99:98 --force || die "the raw reservation on port 2 failed"
rc=0
aoe-reserve e1.2 --reserve >/tmp/o 2>&1 || rc=$?
cat /tmp/o
[ "$rc" = 3 ] || die "--reserve taken by one of two ports exited $rc, expected 3"
grep -q "port $b0mac: reserved for" /tmp/o && grep -q "port $b2mac: not changed" /tmp/o ||
	die "aoe-reserve does not say which port took it"
pp timeout 30 dd if=/tmp/data of=/dev/etherd/e1.2 bs=64k oflag=direct status=none ||
	die "writes failed although port 1 is reserved for this host"
pp aoe-reserve e1.2 --release --force || die "releasing both ports failed"

# 4. Without the module.
vm_unload_aoe
pp aoe-reserve --json -i a0 e1.2 >/tmp/r.json || { cat /tmp/r.json; die "aoe-reserve over raw sockets failed"; }
vm_json_check /tmp/r.json ".via == \"raw\" and .paths[0].reserved == [] and .paths[0].target_mac == \"$b0mac\"" \
	"the raw read does not show port 1 released"
pp aoe-reserve -i a0 e1.2 --reserve || die "raw --reserve failed"
aoe-reserve --json -i a0 e1.2 | jq -e --arg m "$a0mac" '.paths[0].reserved == [$m]' >/dev/null ||
	die "the raw reservation is not [a0]"
pp aoe-reserve -i a0 e1.2 --release || die "raw --release failed"
log "reservations: refused paths avoided, conflicts fail fast with one line, partial changes exit 3"
