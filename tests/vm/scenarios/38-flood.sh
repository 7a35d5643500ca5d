#!/bin/bash
# needs: aoe.ko
# timeout: 240
# kernels: 6.1 (the module's own protocol logic or a tool, no kernel interface the two series differ in: the whole suite runs it on one series, balanced for the 45 min budget; make test-full and a named run: every kernel)
# 10^5 malformed and spoofed frames during I/O:
#
#   a0 (aoe.ko) <--veth--> b0 (vblade 1 2 b0 /dev/ram0, aoe-inject x 4)
#
# While a fio verify runs, aoe-inject sends 25000 frames each of garbage,
# ATA responses with unknown tags (spoofed from vblade's MAC), user tags and
# bad-version frames to a0: the verify passes, the drops are counted (at
# least half of the frames: the rest may be lost in the receive backlog),
# rmmod works.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

disk=$(vm_ramdisk 256)
vm_veth a0 b0
vm_vblade 1 2 b0 "$disk"
vm_load_aoe aoe_iflist=a0
vm_aoe_up e1.2
amac=$(vm_mac a0)
bmac=$(vm_mac b0)
total() { aoe-stat --json | jq '[.module.drops // {} | .[]] | add // 0'; }
d0=$(total)
FIO_TIMEOUT=200
vm_fio_verify /dev/etherd/e1.2 4 >/tmp/fio.log 2>&1 &
fio_pid=$!
sleep 1
m0=$(vm_ms)
pp aoe-inject -i b0 -d "$amac" -n 25000 --seed 3 garbage >/dev/null
pp aoe-inject -i b0 -d "$amac" -s "$bmac" -n 25000 ata-unknown-tag >/dev/null
pp aoe-inject -i b0 -d "$amac" -s "$bmac" -n 25000 user-tag >/dev/null
pp aoe-inject -i b0 -d "$amac" -s "$bmac" -n 25000 bad-version >/dev/null
log "100000 frames injected in $(($(vm_ms) - m0)) ms"
rc=0
wait $fio_pid || rc=$?
cat /tmp/fio.log
[ "$rc" = 0 ] || die "fio verify during the flood failed (status $rc)"
sleep 1
d1=$(total)
aoe-stat --json | jq -cM .module.drops
echo "AOE-FLOOD drops $d0 -> $d1 ($((d1 - d0)) of 100000 injected)"
[ $((d1 - d0)) -ge 50000 ] || die "only $((d1 - d0)) of 100000 injected frames counted as drops"
vm_aoe_up e1.2
vm_unload_aoe
