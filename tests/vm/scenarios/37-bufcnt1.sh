#!/bin/bash
# needs: aoe.ko
# kernels: 6.1 (the module's own protocol logic or a tool, no kernel interface the two series differ in: the whole suite runs it on one series, balanced for the 45 min budget; make test-full and a named run: every kernel)
# A target with buffer count 1 (vblade -b 1):
#
#   a0 (aoe.ko) <--veth--> b0 (vblade -b 1 1 2 b0 /dev/ram0)
#
# The in-tree driver leaves such a device unusable; ours works with a window
# of 1 frame and warns once in the kernel log.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

disk=$(vm_ramdisk 256)
vm_veth a0 b0
vm_vblade 1 2 b0 "$disk" -b 1
vm_dmesg_mark
vm_load_aoe aoe_iflist=a0
pp aoe-discover >/dev/null || true
vm_aoe_up e1.2
aoe-stat --json | jq -e '[.targets[] | select(.device == "e1.2") | .paths[].bufcnt] == [1]' >/dev/null ||
	die "bufcnt is not 1: $(aoe-stat --json | jq -cM '[.targets[].paths[].bufcnt]')"
vm_fio_verify /dev/etherd/e1.2 2
pp aoe-discover >/dev/null || true
pp sh -c 'echo > /dev/etherd/discover'
sleep 1
n=$(vm_dmesg_since | grep -c 'buffer count 1: working with a window of 1' || true)
vm_dmesg_since | grep 'buffer count' || true
[ "$n" = 1 ] || die "expected one 'buffer count 1: working with a window of 1' warning in the kernel log, found $n"
aoe-stat --json | jq -cM '.targets[] | select(.device == "e1.2") | [.paths[] | {bufcnt, window}]'
vm_unload_aoe
