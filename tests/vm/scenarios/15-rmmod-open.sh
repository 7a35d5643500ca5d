#!/bin/bash
# needs: aoe.ko
# rmmod while the device is open fails cleanly, and works once it is closed:
#
#   a0 (aoe.ko) <--veth--> b0 (vblade 1 2 b0 /dev/ram0)
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

disk=$(vm_ramdisk 256)
vm_veth a0 b0
vm_vblade 1 2 b0 "$disk"
vm_load_aoe aoe_iflist=a0
vm_aoe_up e1.2
exec 3</dev/etherd/e1.2
log "holding /dev/etherd/e1.2 open (fd 3)"
rc=0
pp timeout 20 rmmod aoe || rc=$?
[ "$rc" != 0 ] || die "rmmod aoe succeeded while /dev/etherd/e1.2 was open"
[ "$rc" != 124 ] || die "rmmod aoe hung while /dev/etherd/e1.2 was open"
[ -e /sys/module/aoe ] || die "module gone although rmmod failed"
log "rmmod refused (status $rc), refcnt $(cat /sys/module/aoe/refcnt)"
# Still usable through the open descriptor and by name.
pp dd if=/dev/etherd/e1.2 of=/dev/null bs=64k count=16 iflag=direct status=none
vm_aoe_up e1.2
exec 3<&-
vm_unload_aoe
log "rmmod after close ok"
