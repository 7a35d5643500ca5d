#!/bin/bash
# needs: aoe.ko
# timeout: 300
# kernels: 6.12 (the module's own protocol logic or a tool, no kernel interface the two series differ in: the whole suite runs it on one series, balanced for the 45 min budget; make test-full and a named run: every kernel)
# Packet loss on both directions (netem on a0 and b0): 0 %, 1 %, 5 %, 20 %.
#
#   a0 (aoe.ko) <--veth, netem loss--> b0 (vblade 1 2 b0 /dev/ram0)
#
# fio verify passes at every level; aoe-stat --json shows no retransmit on the
# clean link and retransmits > 0 once there is loss. Prints "AOE-LOSS <loss> retransmits <n> timeouts <n>
# ms <n>" per level (0 % is the clean baseline).
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

disk=$(vm_ramdisk 256)
vm_veth a0 b0
vm_vblade 1 2 b0 "$disk"
vm_load_aoe aoe_iflist=a0
vm_aoe_up e1.2
FIO_TIMEOUT=150
for loss in 0 1 5 20; do
	# 20 %: 36 % of round trips fail, so much less data (64 KiB per job).
	small=()
	case $loss in 0 | 1) mb=4 ;; 5) mb=2 ;; 20) mb=1 small=(--size=64k --offset_increment=64k --bsrange=4k-16k) ;; esac
	if [ $loss != 0 ]; then
		pp tc qdisc replace dev a0 root netem loss "$loss%"
		pp tc qdisc replace dev b0 root netem loss "$loss%"
	fi
	r0=$(vm_counter e1.2 retransmits)
	t0=$(vm_counter e1.2 timeouts)
	m0=$(vm_ms)
	vm_fio_verify /dev/etherd/e1.2 "$mb" "${small[@]}"
	r1=$(vm_counter e1.2 retransmits)
	t1=$(vm_counter e1.2 timeouts)
	echo "AOE-LOSS $loss% retransmits $((r1 - r0)) timeouts $((t1 - t0)) ms $(($(vm_ms) - m0)) (4 x $mb MiB ${small[*]})"
	if [ $loss = 0 ] && [ $((r1 - r0)) != 0 ]; then
		aoe-stat -x -a
		die "clean link: $((r1 - r0)) retransmits, expected 0"
	fi
	if [ $loss != 0 ] && [ $((r1 - r0)) -le 0 ]; then
		aoe-stat --json | jq '.targets[] | .counters'
		die "loss $loss%: no retransmits counted"
	fi
done
pp aoe-stat -a
pp tc qdisc del dev a0 root
pp tc qdisc del dev b0 root
vm_unload_aoe
