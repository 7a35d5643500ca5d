#!/bin/bash
# Data integrity through the in-tree aoe (baseline for 08-data):
#
#   a0 (in-tree aoe) <--veth--> b0 (vblade 1 2 b0 /dev/ram0)
#
# Raw O_DIRECT writes read back identical; an ext2 file system made, mounted,
# written and read back.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

vm_veth a0 b0
disk=$(vm_ramdisk 256)
vm_vblade 1 2 b0 "$disk"
vm_load_intree_aoe aoe_iflist=a0
pp "$AOETOOLS/aoe-discover"
vm_wait_for "test -b /dev/etherd/e1.2" 10 || die "no /dev/etherd/e1.2"
vm_data_check /dev/etherd/e1.2
vm_unload_aoe
