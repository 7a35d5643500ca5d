#!/bin/bash
# needs: aoe.ko
# timeout: 300
# kernels: 6.1 (the module's own protocol logic or a tool, no kernel interface the two series differ in: the whole suite runs it on one series, balanced for the 45 min budget; make test-full and a named run: every kernel)
# Duplicated, reordered and delayed frames (netem on a0 and b0):
#
#   a0 (aoe.ko) <--veth, netem--> b0 (vblade 1 2 b0 /dev/ram0)
#
# duplicate 5 %; reorder 25 % (delay 10 ms); delay 50 ms +- 20 ms:
# fio verify passes each time.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

disk=$(vm_ramdisk 256)
vm_veth a0 b0
vm_vblade 1 2 b0 "$disk"
vm_load_aoe aoe_iflist=a0
vm_aoe_up e1.2
FIO_TIMEOUT=120
for spec in "duplicate 5%" "delay 10ms reorder 25% 50%" "delay 50ms 20ms"; do
	# shellcheck disable=SC2086
	pp tc qdisc replace dev a0 root netem $spec
	# shellcheck disable=SC2086
	pp tc qdisc replace dev b0 root netem $spec
	m0=$(vm_ms)
	d0=$(aoe-stat --json | jq -cM .module.drops)
	# Delayed frames make the window the limit (about 70 s for 4 x 2 MiB with
	# 10 ms under TCG): 512 KiB per job once there is delay.
	small=()
	case $spec in delay*) small=(--size=512k --offset_increment=512k) ;; esac
	vm_fio_verify /dev/etherd/e1.2 2 "${small[@]}"
	echo "AOE-NETEM $spec: $(($(vm_ms) - m0)) ms, drops $d0 -> $(aoe-stat --json | jq -cM .module.drops)"
done
pp aoe-stat -a
pp tc qdisc del dev a0 root
pp tc qdisc del dev b0 root
vm_unload_aoe
