#!/bin/bash
# needs: aoe.ko
# timeout: 120
# The target dies under I/O (aoe_deadsecs=5):
#
#   a0 (aoe.ko, aoe_deadsecs=5) <--veth--> b0 (vblade 1 2 b0 /dev/ram0)
#
# vblade is killed while a reader runs: the read fails within deadsecs + 2 s,
# sysfs state becomes down, nothing hangs; vblade restarted and a discover
# written to /dev/etherd/discover bring e1.2 back up on the same device
# node; new I/O works.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

disk=$(vm_ramdisk 256)
vm_veth a0 b0
# vblade started directly (not through vm_vblade/pp) so that $! is vblade.
start_vblade() {
	log "vblade 1 2 b0 $disk"
	vblade 1 2 b0 "$disk" >>/tmp/vblade.log 2>&1 &
	vb=$!
	_vm_pids+=("$vb")
	sleep 0.3
	kill -0 $vb || die "vblade did not start: $(cat /tmp/vblade.log)"
}
start_vblade
vm_load_aoe aoe_iflist=a0 aoe_deadsecs=5
vm_aoe_up e1.2
node=$(stat -c '%t:%T' /dev/etherd/e1.2)
sysdev=$(vm_sysfs e1.2 dev)
# A long reader (the whole device, several times over).
(timeout 60 dd if=/dev/etherd/e1.2 of=/dev/null bs=64k iflag=direct count=100000 2>/tmp/dd.err && echo 0 >/tmp/dd.rc || echo $? >/tmp/dd.rc) &
reader=$!
sleep 2
kill -0 $reader || die "reader ended before the target was killed: $(cat /tmp/dd.err)"
m0=$(vm_ms)
pp kill $vb
wait $vb 2>/dev/null || true
vm_wait_for "! kill -0 $reader" 15 || die "reader still blocked 15 s after the target died (aoe_deadsecs=5)"
m1=$(vm_ms)
wait $reader || true
cat /tmp/dd.err
rc=$(cat /tmp/dd.rc)
echo "AOE-TARGET-KILL reader ended $((m1 - m0)) ms after vblade was killed, dd status $rc"
[ "$rc" != 0 ] || die "read succeeded although the target died"
[ "$rc" != 124 ] || die "reader timed out instead of failing"
# 2 s of slack for noticing; a debug kernel (--slow N) notices N times later.
slack=$((2000 * AOE_SLOW))
[ $((m1 - m0)) -le $((5000 + slack)) ] || die "I/O failed after $((m1 - m0)) ms, more than aoe_deadsecs + $((slack / 1000)) s"
vm_wait_for "grep -q '^down' '/sys/block/etherd!e1.2/state'" 3 || die "state '$(vm_sysfs e1.2 state)', expected down"
log "state: $(vm_sysfs e1.2 state)"
# New I/O on a dead target fails quickly too.
rc=0
timeout 20 dd if=/dev/etherd/e1.2 of=/dev/null bs=4k count=1 iflag=direct status=none 2>/dev/null || rc=$?
[ "$rc" != 124 ] || die "I/O on the down target hangs"
log "read on the down target: status $rc"

start_vblade
pp sh -c 'echo > /dev/etherd/discover'
vm_aoe_up e1.2 10
[ "$(stat -c '%t:%T' /dev/etherd/e1.2)" = "$node" ] || die "device node changed: $node -> $(stat -c '%t:%T' /dev/etherd/e1.2)"
[ "$(vm_sysfs e1.2 dev)" = "$sysdev" ] || die "sysfs dev changed: $sysdev -> $(vm_sysfs e1.2 dev)"
log "e1.2 up again after restart + discover (same node $node)"
pp dd if=/dev/urandom of=/tmp/blob bs=1M count=2 status=none
pp dd if=/tmp/blob of=/dev/etherd/e1.2 bs=1M oflag=direct status=none
dd if=/dev/etherd/e1.2 of=/tmp/back bs=1M count=2 iflag=direct status=none
cmp /tmp/blob /tmp/back || die "data read back after the restart differs"
log "new I/O after the restart ok"
vm_unload_aoe
