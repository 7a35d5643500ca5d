#!/bin/bash
# needs: aoe.ko
# timeout: 180
# kernels: 6.1 (the module's own protocol logic or a tool, no kernel interface the two series differ in: the whole suite runs it on one series, balanced for the 45 min budget; make test-full and a named run: every kernel)
# Corrupted frames (netem corrupt 1 % on a0 and b0): AoE has no checksum of
# its own and veth no FCS, so corruption can reach data and is not checked;
# what is checked: I/O under corruption ends (bounded), nothing crashes
# (/init checks the kernel log), and once the corruption stops a fio verify
# passes and the module unloads.
#
#   a0 (aoe.ko) <--veth, netem corrupt 1%--> b0 (vblade 1 2 b0 /dev/ram0)
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

disk=$(vm_ramdisk 256)
vm_veth a0 b0
vm_vblade 1 2 b0 "$disk"
vm_load_aoe aoe_iflist=a0
vm_aoe_up e1.2
pp tc qdisc replace dev a0 root netem corrupt 1%
pp tc qdisc replace dev b0 root netem corrupt 1%
m0=$(vm_ms)
# Writes and reads of 16 MiB, mixed sizes; errors are allowed, hangs are not.
rc=0
timeout -k 5 90 fio --name=corrupt --filename=/dev/etherd/e1.2 --ioengine=libaio --direct=1 \
	--rw=randrw --bsrange=4k-128k --iodepth=16 --size=16M --offset=64M --numjobs=2 \
	--offset_increment=16M --group_reporting --eta=never --output=/tmp/fio.out || rc=$?
grep -E 'READ:|WRITE:|err=' /tmp/fio.out || true
[ "$rc" != 124 ] || die "I/O under 1% corruption did not finish in 90 s"
log "I/O under corruption: fio status $rc after $(($(vm_ms) - m0)) ms"
pp aoe-stat --json | jq -cM '.module.drops'
pp tc qdisc del dev a0 root
pp tc qdisc del dev b0 root
vm_aoe_up e1.2 10
vm_fio_verify /dev/etherd/e1.2 4
vm_unload_aoe
