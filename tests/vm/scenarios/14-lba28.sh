#!/bin/bash
# needs: aoe.ko
# kernels: 6.12 (the module's own protocol logic or a tool, no kernel interface the two series differ in: the whole suite runs it on one series, balanced for the 45 min budget; make test-full and a named run: every kernel)
# A target without LBA48 (vblade always reports LBA48, so this uses
# aoe-target28 from tests/tools: IDENTIFY has the capacity only in words
# 60-61, word 83 bit 10 clear; READ/WRITE SECTORS 0x20/0x30 only, LBA48
# commands aborted and counted):
#
#   a0 (aoe.ko) <--veth--> b0 (aoe-target28 -i b0 -s 40000)
#
# sysfs size is 40000 sectors, lba48 is false in aoe-stat --json, 4 MiB of
# random data written at two offsets (one reaching the last sector) read back
# identical, and the target never saw an LBA48 command.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

sectors=40000
vm_veth a0 b0
# Started directly (not through pp) so that $! is the target itself.
log "aoe-target28 -i b0 -s $sectors"
aoe-target28 -i b0 -s $sectors >/tmp/t28.out 2>/tmp/t28.err &
t28=$!
_vm_pids+=("$t28")
sleep 0.3
kill -0 $t28 || die "aoe-target28 did not start: $(cat /tmp/t28.err)"
vm_load_aoe aoe_iflist=a0
pp aoe-discover >/dev/null || true
vm_aoe_up e1.2
[ "$(vm_sysfs e1.2 size)" = $sectors ] || die "size $(vm_sysfs e1.2 size) sectors, expected $sectors (28-bit IDENTIFY words 60-61)"
log "size $(vm_sysfs e1.2 size) sectors"
aoe-stat --json | jq -cM '.targets[] | {device, sectors, lba48, model, payload}'
aoe-stat --json | jq -e '.targets[] | select(.device == "e1.2") | .lba48 != true' >/dev/null ||
	die "aoe-stat says LBA48 for a 28-bit-only target"
pp dd if=/dev/urandom of=/tmp/blob bs=1M count=4 status=none
last=$((sectors * 512 / 4096 - 1024))    # 4 MiB ending at the last 4 KiB block
for off in 0 $last; do
	pp dd if=/tmp/blob of=/dev/etherd/e1.2 bs=4k seek="$off" oflag=direct status=none
	dd if=/dev/etherd/e1.2 of=/tmp/back bs=4k skip="$off" count=1024 iflag=direct status=none
	cmp /tmp/blob /tmp/back ||
		die "data read back at 4k block $off differs"
	log "4 MiB at 4k block $off: read back identical"
done
# Reading past the end fails cleanly (short read, no hang).
n=$(timeout 20 dd if=/dev/etherd/e1.2 bs=4k skip=$((sectors / 8 - 1)) count=4 iflag=direct 2>/dev/null | wc -c)
log "read at the end returned $n bytes"
vm_unload_aoe
kill $t28
wait $t28 || true
cat /tmp/t28.out
grep -q 'lba48 0 ' /tmp/t28.out || die "the initiator sent LBA48 commands to a 28-bit target: $(head -n 3 /tmp/t28.err)"
grep -q 'writes [1-9]' /tmp/t28.out || die "no writes reached the target"
