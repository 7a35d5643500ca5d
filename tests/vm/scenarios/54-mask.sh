#!/bin/bash
# needs: aoe.ko
# timeout: 200
# kernels: 6.1 (the module's own protocol logic or a tool, no kernel interface the two series differ in: the whole suite runs it on one series, balanced for the 45 min budget; make test-full and a named run: every kernel)
# aoe-mask against vblade (AoE MAC Mask List):
#
#   a0 (aoe.ko) <--veth--> a0p [br0] b0p <--veth--> b0 (vblade 1 2 b0 /dev/ram0)
#   a1 (raw)    <--veth--> a1p [br0]
#
# a0 is this host's initiator (the module), a1 stands for another host
# (raw sockets, -i a1). The list reads empty; aoe-mask --set <a1's MAC>
# through the module masks this host out: a read of the list now gets no
# answer (exit 1), an O_DIRECT read of e1.2 fails (aoe_deadsecs=3), and
# after aoe-flush a discovery finds nothing. a1 still sees the list and
# adds a0 back (raw, --add): discovery, I/O (data verified) and the list
# through the module work again. vblade 25 gets lists of more than two
# MACs wrong (addmask() stores the third over the second) and crashes on a
# delete directive (rmmask()), so the list stays at two MACs and nothing is
# deleted; "mask list full" and the other mask errors are unit-tested.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

disk=$(vm_ramdisk 64)
vm_bridged a0 b0
vm_veth a1 a1p
pp ip link set a1p master br0
vm_vblade 1 2 b0 "$disk"
vm_load_aoe aoe_iflist=a0 aoe_deadsecs=3
pp aoe-discover >/dev/null || true
vm_aoe_up e1.2
a0mac=$(vm_mac a0)
a1mac=$(vm_mac a1)
pp dd if=/dev/urandom of=/tmp/data bs=64k count=4 status=none
pp dd if=/tmp/data of=/dev/etherd/e1.2 bs=64k oflag=direct status=none

pp aoe-mask --json e1.2 >/tmp/m.json || { cat /tmp/m.json; die "aoe-mask e1.2 failed"; }
vm_json_check /tmp/m.json '.via == "module" and .paths[0].ok and .paths[0].mask == []' "the mask list is not empty"

pp aoe-mask e1.2 --set "$a1mac" >/tmp/o || { cat /tmp/o; die "aoe-mask --set failed"; }
cat /tmp/o
grep -q "mask $a1mac" /tmp/o || die "aoe-mask --set does not show the new list"

# This host is masked out now.
rc=0
aoe-mask -t 600 e1.2 >/tmp/o 2>&1 || rc=$?
cat /tmp/o
[ "$rc" = 1 ] && grep -q "no answer" /tmp/o || die "a masked-out host read the mask list (exit $rc)"
rc=0
timeout 30 dd if=/dev/etherd/e1.2 of=/dev/null bs=4k count=1 iflag=direct status=none || rc=$?
[ "$rc" != 0 ] || die "a masked-out host still reads e1.2"
vm_wait_for "[ \"\$(vm_target_json e1.2 | jq -r .state)\" = down ]" 10 || die "e1.2 is not down for a masked-out host"
pp aoe-flush e1.2
rc=0
aoe-discover >/tmp/o 2>&1 || rc=$?
cat /tmp/o
[ "$rc" = 1 ] || die "aoe-discover exited $rc for a masked-out host, expected 1 (nothing found)"
! vm_has_target e1.2 || die "a masked-out host discovered e1.2"
log "masked out: no answers, I/O fails, discovery finds nothing"

# The other host (allowed) sees it and lets this one back in.
pp aoe-mask --raw -i a1 --json e1.2 >/tmp/m.json || { cat /tmp/m.json; die "aoe-mask over raw sockets on a1 failed"; }
vm_json_check /tmp/m.json ".via == \"raw\" and .paths[0].mask == [\"$a1mac\"]" "a1 does not see the mask list [a1]"
pp aoe-mask --raw -i a1 e1.2 --add "$a0mac" >/tmp/o || { cat /tmp/o; die "aoe-mask --add over raw sockets failed"; }
cat /tmp/o
pp aoe-discover
vm_aoe_up e1.2 10
pp dd if=/dev/etherd/e1.2 of=/tmp/back bs=64k count=4 iflag=direct status=none
cmp /tmp/data /tmp/back || die "e1.2 reads back other data after the mask was restored"
aoe-mask --json e1.2 >/tmp/m.json
vm_json_check /tmp/m.json ".paths[0].mask == [\"$a1mac\", \"$a0mac\"]" "the module does not read the restored list"

log "mask: out, and back in"
