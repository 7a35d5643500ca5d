#!/bin/bash
# needs: aoe.ko
# An open racing a flush (or an eviction) either keeps the disk or is
# refused; it never gets a descriptor on a disk that is being torn down:
#
#   a0 (aoe.ko aoe_test_faults=4) <--veth--> b0 (vblade 1 2 b0 /dev/ram0)
#
# aoe_test_faults=4 makes the teardown of a flushed target wait 3 s between
# unlinking it and deleting its disk (a testing aid that widens the window).
# During that time the disk is opened: the open must fail (ENXIO), or,
# had it come first, the flush must have kept the target. Then the same
# with the open first: the flush keeps the open disk, which stays usable.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

disk=$(vm_ramdisk 64)
vm_veth a0 b0
vm_vblade 1 2 b0 "$disk"
vm_load_aoe aoe_iflist=a0 aoe_test_faults=4
vm_aoe_up e1.2

# 1. The flush first, the open during its teardown.
# The control file, not aoe-flush: netlink commands (aoe-stat too) wait
# for one another, and bash's echo starts at once.
(echo e1.2 >/dev/etherd/flush) &
flush_pid=$!
sleep 1
if ! [ -b /dev/etherd/e1.2 ] || ! kill -0 $flush_pid 2>/dev/null; then
	die "inconclusive: the teardown of e1.2 ended before the open"
fi
opened=0
if exec 3</dev/etherd/e1.2; then
	opened=1
	log "opened /dev/etherd/e1.2 during the flush's teardown"
else
	log "open refused during the flush's teardown (expected)"
fi
kill -0 $flush_pid 2>/dev/null || log "note: the teardown ended during the open"
wait $flush_pid || die "writing e1.2 to /dev/etherd/flush failed"
if [ $opened = 1 ]; then
	if ! vm_has_target e1.2; then
		dd bs=4k count=1 iflag=direct of=/dev/null status=none <&3 ||
			log "and a read on it fails"
		exec 3<&-
		die "an open during a flush's teardown succeeded, on a disk being deleted"
	fi
	exec 3<&-
	die "inconclusive: the open came before the flush (the flush kept e1.2)"
fi

# 2. The open first: the flush keeps the open disk.
pp aoe-discover >/dev/null || true
vm_aoe_up e1.2
exec 3</dev/etherd/e1.2
pp aoe-flush -a
vm_has_target e1.2 || die "aoe-flush -a removed e1.2 while it was open"
dd bs=4k count=1 iflag=direct of=/dev/null status=none <&3 ||
	die "e1.2 held open across a flush cannot read"
exec 3<&-
pp aoe-flush -a
vm_wait_for "! vm_has_target e1.2" 10 || die "aoe-flush -a kept e1.2 after it was closed"
vm_unload_aoe
