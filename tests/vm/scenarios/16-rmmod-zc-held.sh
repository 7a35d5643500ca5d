#!/bin/bash
# needs: aoe.ko
# timeout: 150
# rmmod while a network device still holds a zero-copy write frame:
#
#   a0 (aoe.ko, aoe_deadsecs=2, netem delay 40 s) <--veth--> b0 (vblade)
#
# One 4 KiB O_DIRECT write: its frames sit in a0's netem queue, the target
# never answers, the write fails with EIO after about aoe_deadsecs. The frames
# still reference the module (their release callback is in aoe.ko), so rmmod
# must be refused (not hang, not unload) and the module must say what holds
# them; once the qdisc is deleted (the frames are released) rmmod works. No
# Oops (/init checks the kernel log).
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

disk=$(vm_ramdisk 256)
vm_veth a0 b0
vm_vblade 1 2 b0 "$disk"
vm_load_aoe aoe_iflist=a0 aoe_deadsecs=2
vm_aoe_up e1.2
[ "$(cat /sys/module/aoe/parameters/aoe_zerocopy)" = Y ] || die "aoe_zerocopy is not on"
pp tc qdisc add dev a0 root netem delay 40s
vm_dmesg_mark
pp dd if=/dev/urandom of=/tmp/blk bs=4k count=1 status=none
m0=$(vm_ms)
rc=0
timeout 30 dd if=/tmp/blk of=/dev/etherd/e1.2 bs=4k count=1 oflag=direct status=none 2>/tmp/dd.err || rc=$?
m1=$(vm_ms)
cat /tmp/dd.err
log "write ended after $((m1 - m0)) ms, status $rc"
[ "$rc" != 0 ] || die "the write succeeded although every frame is held 40 s"
[ "$rc" != 124 ] || die "the write hung (aoe_deadsecs=2)"
grep -q 'Input/output error' /tmp/dd.err || die "the write failed, but not with EIO: $(cat /tmp/dd.err)"
pp tc -s qdisc show dev a0
log "module refcnt $(cat /sys/module/aoe/refcnt)"

rc=0
m0=$(vm_ms)
pp timeout 40 rmmod aoe 2>/tmp/rmmod.err || rc=$?
m1=$(vm_ms)
cat /tmp/rmmod.err
log "rmmod: status $rc after $((m1 - m0)) ms"
fail=""
if [ "$rc" = 0 ] || [ ! -e /sys/module/aoe ]; then
	fail="rmmod aoe unloaded the module while a0's qdisc held a write frame"
elif [ "$rc" = 124 ]; then
	fail="rmmod aoe hung while a0's qdisc held a write frame"
elif ! grep -q 'in use' /tmp/rmmod.err; then
	fail="rmmod failed, but not with 'in use': $(cat /tmp/rmmod.err)"
fi
if [ -n "$fail" ]; then
	# release the frame anyway: on a module that let go early, this is
	# where the kernel oopses (/init reports it)
	tc qdisc del dev a0 root || true
	sleep 2
	die "$fail"
fi
# the module says what holds the frames and how to release them
vm_wait_for "vm_dmesg_since | grepq 'cannot be unloaded'" 10 ||
	die "no message naming what holds the write frames"
vm_dmesg_since | grep 'cannot be unloaded' | head -n 2
vm_dmesg_since | grepq 'cannot be unloaded.*a0' || die "the message does not name a0"
# still a working module
vm_has_target e1.2 || die "e1.2 gone from aoe-stat after the refused rmmod"

pp tc qdisc del dev a0 root
vm_wait_for "timeout 10 rmmod aoe" 20 || die "rmmod aoe still refused 20 s after the qdisc was deleted: $(timeout 10 rmmod aoe 2>&1)"
[ ! -e /sys/module/aoe ] || die "module aoe still loaded"
log "rmmod after the qdisc was deleted: ok"
sleep 1
