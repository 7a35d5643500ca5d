#!/bin/bash
# needs: aoe.ko
# Data integrity through our module, MTU 1500 and 9000 (jumbo frames):
#
#   a0 (aoe.ko) <--veth--> b0 (vblade 1 2 b0 /dev/ram0)
#
# Raw O_DIRECT writes read back identical; an ext2 file system made, mounted,
# written and read back (07-intree-data is the same with the in-tree driver).
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

disk=$(vm_ramdisk 256)
for mtu in 1500 9000; do
	log "MTU $mtu"
	vm_veth a0 b0 "$mtu"
	vm_vblade 1 2 b0 "$disk"
	vm_load_aoe aoe_iflist=a0
	vm_wait_for "test -b /dev/etherd/e1.2" 10 || die "no /dev/etherd/e1.2 (MTU $mtu)"
	vm_data_check /dev/etherd/e1.2
	vm_vblade_link_del
done
