#!/bin/bash
# needs: aoe.ko
# timeout: 300
# Several blk-mq hardware queues per disk (aoe_hw_queues, blkdev.c):
#
#   a0 (aoe.ko aoe_hw_queues=2) <--veth--> b0 (vblade 1 2 b0 /dev/ram0), MTU 9000
#
# - the disk has one hardware queue per CPU up to the parameter
#   (/sys/block/etherd!e1.2/mq/N, CPU N alone in mq/N/cpu_list), 1 by
#   default, and the disk's 128 requests are shared among them
#   (nr_requests 64, no I/O scheduler); the parameter is load time only (a run-time
#   write fails) and 0, 17 and x fail the load, the kernel log naming it
# - four fio jobs, two pinned to each vCPU (so each submits through its
#   own CPU's queue), random writes of 4-256 KiB crc32c verified
# - raw 4 MiB writes and an ext2 file read back identical (vm_data_check)
# - the disk open while aoe.ko is removed refuses and leaves it working,
#   then closes and aoe.ko unloads
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

[ "$(nproc)" -ge 2 ] || die "needs 2 vCPUs, has $(nproc)"
P=/sys/module/aoe/parameters
disk=$(vm_ramdisk 256)
vm_veth a0 b0 9000
vm_vblade 1 2 b0 "$disk"

# default: one queue
vm_load_aoe aoe_iflist=a0
vm_aoe_up e1.2
[ "$(cat $P/aoe_hw_queues)" = 1 ] || die "aoe_hw_queues default is $(cat $P/aoe_hw_queues), not 1"
n=$(find "/sys/block/etherd!e1.2/mq/" -mindepth 1 -maxdepth 1 -type d | wc -l)
[ "$n" = 1 ] || die "default: $n hardware queues, not 1"
vm_unload_aoe

for bad in 0 17 x; do
	vm_dmesg_mark
	if insmod "$AOE_KO" aoe_hw_queues=$bad 2>/dev/null; then
		die "aoe_hw_queues=$bad accepted at load"
	fi
	vm_dmesg_since | grepq aoe_hw_queues || die "no kernel message naming aoe_hw_queues after aoe_hw_queues=$bad"
done
log "aoe_hw_queues 0, 17 and x refused at load"

vm_load_aoe aoe_iflist=a0 aoe_hw_queues=2
vm_aoe_up e1.2
if (echo 1 >$P/aoe_hw_queues) 2>/dev/null; then
	die "aoe_hw_queues written at run time"
fi
n=$(find "/sys/block/etherd!e1.2/mq/" -mindepth 1 -maxdepth 1 -type d | wc -l)
[ "$n" = 2 ] || die "aoe_hw_queues=2: $n hardware queues, not 2"
for q in 0 1; do
	[ "$(cat "/sys/block/etherd!e1.2/mq/$q/cpu_list")" = "$q" ] ||
		die "hardware queue $q serves CPUs '$(cat "/sys/block/etherd!e1.2/mq/$q/cpu_list")', not $q"
done
# without an I/O scheduler (blk-mq's default for several queues),
# nr_requests is each queue's depth
if grepq -F '[none]' "/sys/block/etherd!e1.2/queue/scheduler"; then
	[ "$(vm_sysfs e1.2 queue/nr_requests)" = 64 ] ||
		die "aoe_hw_queues=2: nr_requests $(vm_sysfs e1.2 queue/nr_requests), not 64"
fi
log "aoe_hw_queues=2: 2 hardware queues, one per CPU, 64 requests each"

vm_fio_verify /dev/etherd/e1.2 8 --cpus_allowed=0,1 --cpus_allowed_policy=split

vm_data_check /dev/etherd/e1.2

exec 3</dev/etherd/e1.2
if rmmod aoe 2>/dev/null; then
	die "aoe.ko removed while e1.2 is open"
fi
dd if=/dev/etherd/e1.2 of=/dev/null bs=1M count=4 iflag=direct status=none ||
	die "e1.2 unreadable after the refused rmmod"
exec 3<&-
vm_unload_aoe
log "open disk: rmmod refused, disk still read; closed: unloaded"
