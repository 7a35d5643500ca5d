#!/bin/bash
# needs: aoe.ko
# timeout: 240
# kernels: 6.12 (the module's own protocol logic, no kernel interface the two series differ in: the whole suite runs it on one series, balanced for the 45 min budget; make test-full and a named run: every kernel)
# Hundreds of frames in flight to one target: its tag table grows (tag.c:
# twice the buckets past two entries a bucket) while answers look tags up:
#
#   a0 (aoe.ko aoe_maxout=256, MTU 1500) <--veth--> b0 (aoe-fastd -b 256)
#
# At MTU 1500 a frame carries 1 KiB, so fio's 4 jobs x 64 random 4-16 KiB
# writes (crc32c verify) put up to 256 frames in flight, the target's
# buffer count: with their previous and retired tags, more than the 256
# entries the first 128 buckets hold. The verify passes, the window really
# opened past 128 frames, no ATA error was answered, rmmod works.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

vm_veth a0 b0
vm_fastd -i b0 -s 64M -b 256
vm_load_aoe aoe_iflist=a0 aoe_maxout=256
vm_aoe_up e1.2 30

# the most frames in flight seen, sampled while fio runs
peak=0
watch() {
	local n
	while kill -0 "$1" 2>/dev/null; do
		n=$(aoe-stat --json | jq '[.targets[] | select(.device == "e1.2") | .outstanding][0] // 0')
		[ "$n" -le "$peak" ] || peak=$n
		sleep 0.2
	done
	echo "$peak"
}

timeout -k 5 $((200 * AOE_SLOW)) fio --name=deep --filename=/dev/etherd/e1.2 --ioengine=libaio \
	--direct=1 --rw=randwrite --bsrange=4k-16k --iodepth=64 --numjobs=4 --size=8M \
	--offset_increment=8M --verify=crc32c --verify_fatal=1 --do_verify=1 --randrepeat=0 \
	--group_reporting --eta=never --output=/tmp/fio-deep.out &
fio_pid=$!
_vm_pids+=("$fio_pid")
peak=$(watch "$fio_pid")
rc=0
wait "$fio_pid" || rc=$?
grep -E 'WRITE:|READ:' /tmp/fio-deep.out || true
[ "$rc" = 0 ] || { tail -n 30 /tmp/fio-deep.out; die "fio verify at 256 frames in flight failed (status $rc)"; }
log "most frames in flight seen: $peak"
[ "$peak" -gt 128 ] || die "at most $peak frames in flight: the tag table was not made to grow"
vm_unload_aoe
vm_fastd_stop
[ "$(vm_fastd_counter errors)" = 0 ] || die "aoe-fastd answered $(vm_fastd_counter errors) ATA errors"
