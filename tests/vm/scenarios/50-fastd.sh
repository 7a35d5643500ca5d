#!/bin/bash
# needs: aoe.ko
# timeout: 300
# kernels: 6.1 (the module's own protocol logic or a tool, no kernel interface the two series differ in: the whole suite runs it on one series, balanced for the 45 min budget; make test-full and a named run: every kernel)
# aoe-fastd, the fast test target of tests/tools (RAM disk, default workers
# and ring), against our module and the in-tree one:
#
#   a0 (aoe.ko) <--veth--> b0 (aoe-fastd -i b0)
#
# - fio crc32c verify at MTU 1500 (4 x 2 MiB) and 9000 (4 x 4 MiB), payload
#   1024 / 8704, no ATA error answered
# - --lba28: size from IDENTIFY words 60-61, data up to the last sector
# - --volatile: a write with O_DIRECT and no flush is gone after a power cut
#   (the target serves the flushed data again); a WRITE that was followed by a
#   "flush" survives; without --volatile the same cut loses nothing
# - --file /dev/ram0 (O_DIRECT + libaio): 4 MiB through e1.2 land on ram0
# - the in-tree driver: discovery, 4 MiB written and read back
# The cut is checked at the target level: the flush comes from aoe-fastd's
# control FIFO (aoe.ko's own FLUSH CACHE is scenario 46's and 47's).
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

dev=/dev/etherd/e1.2

# reset: module, target and link gone.
reset() {
	vm_unload_aoe
	vm_fastd_stop
	_vm_pids=()
	pp ip link del a0
	_vm_links=()
}

# pattern BYTE: 1 MiB of that byte in /tmp/pat-BYTE.
pattern() { head -c 1048576 /dev/zero | tr '\0' "\\$(printf '%03o' "$1")" >"/tmp/pat-$1"; }

# readback OFF_MB: md5 of 1 MiB of the device at OFF_MB, read with O_DIRECT.
readback() { dd if=$dev bs=1M skip="$1" count=1 iflag=direct status=none | md5sum | cut -d' ' -f1; }

for mtu in 1500 9000; do
	vm_veth a0 b0 "$mtu"
	vm_fastd -i b0 -s 64M -b 64
	vm_load_aoe aoe_iflist=a0
	vm_aoe_up e1.2
	want=$(((mtu - 36) / 512 * 512))
	[ "$(vm_sysfs e1.2 payload)" = "$want" ] || die "MTU $mtu: payload $(vm_sysfs e1.2 payload), expected $want"
	[ "$(vm_sysfs e1.2 size)" = $((64 * 2048)) ] || die "size $(vm_sysfs e1.2 size), expected $((64 * 2048))"
	t0=$(vm_ms)
	mb=$((mtu == 1500 ? 2 : 4))
	vm_fio_verify $dev $mb
	log "MTU $mtu: fio verify 4 x $mb MiB in $(($(vm_ms) - t0)) ms"
	reset
	[ "$(vm_fastd_counter errors)" = 0 ] || die "aoe-fastd answered $(vm_fastd_counter errors) ATA errors"
	[ "$(vm_fastd_counter writes)" -gt 0 ] || die "no writes reached aoe-fastd"
done

# 28-bit LBA only.
sectors=40000
vm_veth a0 b0 9000
vm_fastd -i b0 -s ${sectors}s --lba28
vm_load_aoe aoe_iflist=a0
vm_aoe_up e1.2
[ "$(vm_sysfs e1.2 size)" = $sectors ] || die "--lba28: size $(vm_sysfs e1.2 size), expected $sectors (IDENTIFY words 60-61)"
pp dd if=/dev/urandom of=/tmp/blob bs=1M count=2 status=none
pp dd if=/tmp/blob of=$dev bs=4k seek=$((sectors / 8 - 512)) oflag=direct status=none
dd if=$dev bs=4k skip=$((sectors / 8 - 512)) count=512 iflag=direct status=none | cmp - /tmp/blob ||
	die "--lba28: 2 MiB at the end read back differ"
log "--lba28: size $sectors sectors, 2 MiB at the end read back identical"
reset
[ "$(vm_fastd_counter errors)" = 0 ] || die "--lba28: the initiator sent commands the 28-bit target aborted ($(vm_fastd_counter errors))"

# Volatile write cache and power cuts.
pattern 65
pattern 66
pattern 67
a=$(md5sum </tmp/pat-65 | cut -d' ' -f1)
b=$(md5sum </tmp/pat-66 | cut -d' ' -f1)
c=$(md5sum </tmp/pat-67 | cut -d' ' -f1)
for mode in volatile durable; do
	vm_veth a0 b0 9000
	if [ $mode = volatile ]; then vm_fastd -i b0 -s 64M --volatile; else vm_fastd -i b0 -s 64M; fi
	vm_load_aoe aoe_iflist=a0
	vm_aoe_up e1.2
	pp dd if=/tmp/pat-65 of=$dev bs=1M seek=3 oflag=direct status=none
	vm_fastd_ctl flush
	pp dd if=/tmp/pat-66 of=$dev bs=1M seek=3 oflag=direct status=none
	pp dd if=/tmp/pat-67 of=$dev bs=1M seek=7 oflag=direct status=none
	[ "$(readback 3)" = "$b" ] || die "$mode: the second write does not read back before the cut"
	vm_fastd_ctl cut
	grep 'power cut' /tmp/fastd.out
	if [ $mode = volatile ]; then
		[ "$(readback 3)" = "$a" ] || die "volatile: after the cut, 1 MiB at 3 MiB is not the flushed data"
		[ "$(readback 7)" = "$(head -c 1048576 /dev/zero | md5sum | cut -d' ' -f1)" ] ||
			die "volatile: after the cut, never-flushed 1 MiB at 7 MiB is not zeros"
		grep -q 'power cut 1: 4096 unflushed sectors lost' /tmp/fastd.out ||
			die "volatile: expected 4096 unflushed sectors lost"
		log "volatile: unflushed writes gone after the cut, the flushed data served again"
	else
		[ "$(readback 3)" = "$b" ] && [ "$(readback 7)" = "$c" ] ||
			die "durable: data changed by a power cut"
		log "durable: the cut lost nothing"
	fi
	# The device keeps working after the cut.
	pp dd if=/tmp/pat-67 of=$dev bs=1M seek=3 oflag=direct status=none
	[ "$(readback 3)" = "$c" ] || die "$mode: write after the cut does not read back"
	reset
	[ "$(vm_fastd_counter cuts)" = 1 ] || die "$mode: cuts counter $(vm_fastd_counter cuts)"
done

# A block device: --file (O_DIRECT, libaio), the first 64 MiB of brd.
ram=$(vm_ramdisk 256)
vm_veth a0 b0 9000
vm_fastd -i b0 --file "$ram" -s 64M
vm_load_aoe aoe_iflist=a0
vm_aoe_up e1.2
[ "$(vm_sysfs e1.2 size)" = $((64 * 2048)) ] || die "--file: size $(vm_sysfs e1.2 size), expected $((64 * 2048))"
pp dd if=/dev/urandom of=/tmp/blob bs=1M count=4 status=none
pp dd if=/tmp/blob of=$dev bs=1M seek=9 oflag=direct status=none
dd if=$dev bs=1M skip=9 count=4 iflag=direct status=none | cmp - /tmp/blob ||
	die "--file: 4 MiB read back through e1.2 differ"
dd if="$ram" bs=1M skip=9 count=4 iflag=direct status=none | cmp - /tmp/blob ||
	die "--file: 4 MiB written through e1.2 are not on $ram"
log "--file $ram: 4 MiB written, read back through e1.2 and from $ram identical"
reset

# The in-tree driver.
vm_veth a0 b0 9000
vm_fastd -i b0 -s 64M -b 64
vm_load_intree_aoe aoe_iflist=a0
pp "$AOETOOLS/aoe-discover"
vm_aoe_up e1.2 20
pp dd if=/dev/urandom of=/tmp/blob bs=1M count=4 status=none
pp dd if=/tmp/blob of=$dev bs=1M seek=5 oflag=direct status=none
dd if=$dev bs=1M skip=5 count=4 iflag=direct status=none | cmp - /tmp/blob ||
	die "in-tree aoe: 4 MiB read back differ"
log "in-tree aoe: payload $(vm_sysfs e1.2 payload), 4 MiB read back identical"
reset
[ "$(vm_fastd_counter errors)" = 0 ] || die "in-tree aoe: aoe-fastd answered ATA errors"
