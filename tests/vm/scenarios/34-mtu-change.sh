#!/bin/bash
# needs: aoe.ko
# timeout: 180
# MTU 9000 <-> 1500 on the initiator's side during I/O:
#
#   a0 (aoe.ko) <--veth--> a0p [br0] b0p <--veth--> b0 (vblade 1 2 b0 /dev/ram0,
#                                                     MTU 9000: 17 sectors per frame)
#
# While a fio verify runs, the MTU of a0 and of the bridge port a0p goes
# 9000 -> 1500 -> 9000 several times; after each change sysfs payload follows
# (1024 / 8704) within 5 s; fio verify passes. Its buffers start 512 bytes
# past a page boundary (iomem_align=512): the frames split when the MTU
# shrinks under them start and end inside pages (io.c aoe_io_range()).
# vblade exits when a send fails (EMSGSIZE on its own interface, ENOBUFS
# when its veth peer drops a frame too
# big for it), so b0 keeps MTU 9000 and the bridge drops vblade's big answers
# still in flight silently, as a switch would.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

disk=$(vm_ramdisk 256)
vm_bridged a0 b0 9000
vm_vblade 1 2 b0 "$disk"
vm_load_aoe aoe_iflist=a0
pp "$AOETOOLS/aoe-discover"
vm_aoe_up e1.2
[ "$(vm_sysfs e1.2 payload)" = 8704 ] || die "payload at MTU 9000 is $(vm_sysfs e1.2 payload), expected 8704"
FIO_TIMEOUT=150
vm_fio_verify /dev/etherd/e1.2 8 --iomem_align=512 >/tmp/fio.log 2>&1 &
fio_pid=$!
for round in 1 2 3; do
	sleep 2
	pp ip link set a0 mtu 1500
	pp ip link set a0p mtu 1500
	vm_wait_for "[ \$(vm_sysfs e1.2 payload) = 1024 ]" 5 ||
		die "round $round: payload $(vm_sysfs e1.2 payload) after MTU 1500, expected 1024"
	log "round $round: MTU 1500, payload 1024"
	sleep 2
	pp ip link set a0p mtu 9000
	pp ip link set a0 mtu 9000
	vm_wait_for "[ \$(vm_sysfs e1.2 payload) = 8704 ]" 5 ||
		die "round $round: payload $(vm_sysfs e1.2 payload) after MTU 9000, expected 8704"
	log "round $round: MTU 9000, payload 8704"
done
rc=0
wait "$fio_pid" || rc=$?
cat /tmp/fio.log
if [ "$rc" != 0 ]; then
	pp aoe-stat -a
	kill -0 "${_vm_pids[0]}" 2>/dev/null || log "vblade exited: $(cat /tmp/vblade-1.2-b0.log)"
	die "fio verify during MTU changes failed (status $rc)"
fi
kill -0 "$fio_pid" 2>/dev/null && die "fio still running"
pp aoe-stat -a
vm_unload_aoe
