#!/bin/bash
# Guest side of "make demo" (tests/vm/demo.sh): one initiator, one target.
#
#   a0 (initiator: aoe.ko, MTU 9000) <--veth--> b0 (target: vblade e1.2 on a 256 MiB RAM disk)
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

heading() { printf '\n=== %s\n' "$*"; }
have() { [ -x "/aoe/bin/$1" ]; }
intree=0
grep -qw 'aoetest.demo=intree' /proc/cmdline && intree=1

heading "Network: a veth pair, a0 (initiator side) <-> b0 (target side), jumbo frames"
vm_veth a0 b0 9000

heading "Target: vblade exports a 256 MiB RAM disk as shelf 1, slot 2 (e1.2) on b0"
disk=$(vm_ramdisk 256)
vm_vblade 1 2 b0 "$disk"
log "target MAC (b0): $(vm_mac b0)"

if [ "$intree" = 1 ]; then
	heading "Initiator: the distribution's in-tree aoe driver, with aoetools (baseline)"
	vm_load_intree_aoe aoe_iflist=a0
	pp /usr/sbin/aoe-discover
	vm_wait_for "/usr/sbin/aoe-stat | grep -q 'e1\\.2'" 10 || true
	heading "aoetools aoe-stat"
	pp /usr/sbin/aoe-stat
	heading "sysfs: /sys/block/etherd!e1.2"
	for f in state mac netif firmware-version payload size; do
		printf '%-18s %s\n' "$f" "$(cat "/sys/block/etherd!e1.2/$f")"
	done
	heading "A read through /dev/etherd/e1.2"
	pp dd if=/dev/etherd/e1.2 of=/dev/null bs=1M count=16 iflag=direct
	vm_unload_aoe
	exit 0
fi

heading "Initiator: load the aoekit module"
if ! vm_load_aoe aoe_iflist=a0; then
	echo
	echo "*** The aoe module did not load. Kernel log:"
	dmesg | tail -n 20 | sed "s/^/    /"
	die "aoe.ko failed to load"
fi
log "module version $(cat /sys/module/aoe/version 2>/dev/null || echo unknown)"

for tool in aoe-discover aoe-stat; do
	have "$tool" || echo "note: $tool is not built (run 'make userland'); skipping it"
done

if have aoe-discover; then
	heading "aoe-discover: broadcast a Query Config and list who answered"
	pp aoe-discover || echo "(aoe-discover exited $?)"
fi

if have aoe-stat; then
	heading "aoe-stat: targets, paths and state"
	vm_wait_for "aoe-stat | grep -q 'e1\\.2'" 10 || true
	pp aoe-stat || echo "(aoe-stat exited $?)"
	heading "aoe-stat --json (excerpt: e1.2)"
	aoe-stat --json | jq '.targets[] | select(.device == "e1.2")' || true
fi

if vm_wait_for "test -b /dev/etherd/e1.2" 10; then
	heading "The block device: ext2 on /dev/etherd/e1.2, write and read back 8 MiB"
	pp mke2fs -q -t ext2 /dev/etherd/e1.2
	mkdir -p /mnt/e1.2
	pp mount -t ext2 /dev/etherd/e1.2 /mnt/e1.2
	pp dd if=/dev/urandom of=/tmp/blob bs=1M count=8 status=none
	pp cp /tmp/blob /mnt/e1.2/blob
	pp umount /mnt/e1.2
	pp mount -t ext2 -o ro /dev/etherd/e1.2 /mnt/e1.2
	pp df -h /mnt/e1.2
	a=$(md5sum </tmp/blob) b=$(md5sum </mnt/e1.2/blob)
	echo "md5 written $a, read back $b"
	pp umount /mnt/e1.2
	[ "$a" = "$b" ] || die "data read back differs"
else
	echo "note: /dev/etherd/e1.2 did not appear: no block device to show"
fi

if have aoe-ddt; then
	heading "aoe-ddt: throughput of e1.2"
	pp timeout 120 aoe-ddt e1.2 || echo "(aoe-ddt exited $?)"
fi
if have aoe-top; then
	heading "aoe-top -b -n 2: live counters, two samples"
	pp timeout 60 aoe-top -b -n 2 || echo "(aoe-top exited $?)"
fi

heading "Unload"
vm_unload_aoe
log "demo finished"
