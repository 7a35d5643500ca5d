#!/bin/bash
# needs: aoe.ko
# Partitions and a file system on our device:
#
#   a0 (aoe.ko) <--veth--> b0 (vblade 1 2 b0 /dev/ram0)
#
# sfdisk writes a table with two partitions; /dev/etherd/e1.2p1 and p2 appear
# with the right sizes; ext2 on p1: mount, write files, umount, mount again,
# read back and compare; p2 untouched by it.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

mnt=/tmp/pfs
trap 'rc=$?; set +e; grep -qs " $mnt " /proc/mounts && umount "$mnt"; (exit $rc); _vm_cleanup' EXIT
pp modprobe ext4
disk=$(vm_ramdisk 256)
vm_veth a0 b0 9000
vm_vblade 1 2 b0 "$disk"
vm_load_aoe aoe_iflist=a0
vm_aoe_up e1.2
dev=/dev/etherd/e1.2
pp dd if=/dev/zero of=$dev bs=1M count=1 oflag=direct status=none
printf 'label: dos\nstart=2048, size=65536, type=83\nstart=67584, size=32768, type=83\n' |
	pp timeout 30 sfdisk --no-reread $dev
timeout 30 blockdev --rereadpt $dev || true
vm_wait_for "test -b ${dev}p1 && test -b ${dev}p2" 10 || die "no ${dev}p1/p2 after sfdisk: $(ls /dev/etherd/)"
pp ls -l /dev/etherd/
[ "$(cat '/sys/block/etherd!e1.2/etherd!e1.2p1/size')" = 65536 ] || die "p1 size $(cat '/sys/block/etherd!e1.2/etherd!e1.2p1/size'), expected 65536"
[ "$(cat '/sys/block/etherd!e1.2/etherd!e1.2p2/size')" = 32768 ] || die "p2 size wrong"
pp timeout 30 sfdisk -d $dev
# p2 gets a pattern that the file system on p1 must not touch.
pp dd if=/dev/urandom of=/tmp/p2 bs=1M count=16 status=none
pp dd if=/tmp/p2 of=${dev}p2 bs=1M oflag=direct status=none
pp mke2fs -q -F -t ext2 ${dev}p1
mkdir -p $mnt /tmp/files
for i in 1 2 3 4 5; do
	dd if=/dev/urandom of=/tmp/files/f$i bs=1k count=$((i * 700)) status=none
done
pp mount -t ext2 ${dev}p1 $mnt
pp cp -r /tmp/files $mnt/
pp umount $mnt
pp mount -t ext2 ${dev}p1 $mnt
for i in 1 2 3 4 5; do
	cmp /tmp/files/f$i $mnt/files/f$i || die "file f$i read back from ext2 on ${dev}p1 differs"
done
pp umount $mnt
pp timeout 60 e2fsck -fn ${dev}p1
dd if=${dev}p2 of=/tmp/p2.back bs=1M count=16 iflag=direct status=none
cmp /tmp/p2 /tmp/p2.back || die "${dev}p2 changed"
log "partitions and ext2 ok"
vm_unload_aoe
