#!/bin/bash
# needs: aoe.ko
# timeout: 150
# kernels: 6.1 (the module's own protocol logic or a tool, no kernel interface the two series differ in: the whole suite runs it on one series, balanced for the 45 min budget; make test-full and a named run: every kernel)
# A forged Query Config answer cannot raise a verified path's sectors per
# frame (review of per-path payload, MEDIUM-4):
#
#   a0 (aoe.ko, mtu 9000) <--veth--> b0 (aoe-fastd --maxsect 2, mtu 9000)
#
# aoe-fastd announces 2 sectors per frame and aborts any ATA command with
# more (as a target whose buffers hold 2 sectors would drop such frames):
# e1.2's payload is 1024 although the link carries 8704.
# 1. A spoofer answers with b0's MAC, maxsect 17 and a kernel tag, 20 times
#    under a write (the path counts them received): the payload stays 1024,
#    the write and its read back succeed with no ATA error on either side.
# 2. The same with tag 0, an announcement: the path is checked again (an
#    IDENTIFY over it) and comes back with payload 1024; a write succeeds.
# 3. The target really restarts with 4 sectors per frame: after
#    aoe-revalidate e1.2 the payload is 2048 (an admin's revalidate takes a
#    larger count), and 16 MiB are written and read back equal.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

dev=/dev/etherd/e1.2
vm_veth a0 b0 9000
vm_fastd -i b0 -s 64M -b 64 --maxsect 2
vm_load_aoe aoe_iflist=a0
vm_aoe_up e1.2
[ "$(vm_sysfs e1.2 payload)" = 1024 ] || die "payload $(vm_sysfs e1.2 payload) for maxsect 2, expected 1024"
cnt() { aoe-stat --json | jq -r ".targets[] | select(.device == \"e1.2\") | $1"; }

# spoof TAG N: N forged answers (maxsect 17) under a 16 MiB write; checked
spoof() {
	local tag=$1 rx rc dd_pid
	pp dd if=/dev/urandom of=/tmp/data bs=1M count=16 status=none
	rx=$(cnt '.paths[0].counters.frames_received')
	dd if=/tmp/data of=$dev bs=1M oflag=direct status=none &
	dd_pid=$!
	pp aoe-inject -i b0 -d "$(vm_mac a0)" -s "$(vm_mac b0)" --shelf 1 --slot 2 --maxsect 17 \
		--tag "$tag" -n 20 -w 50000 config
	rx=$(($(cnt '.paths[0].counters.frames_received') - rx))
	log "tag $tag: payload after 20 forged answers $(vm_sysfs e1.2 payload), path received $rx frames"
	[ "$rx" -ge 20 ] || die "tag $tag: the path received $rx frames during 20 forged answers and a write: the forged ones were dropped before the target"
	vm_wait_for "! kill -0 $dd_pid 2>/dev/null" 60 || die "tag $tag: the write did not end within 60 s"
	rc=0
	wait $dd_pid || rc=$?
	[ "$rc" = 0 ] || die "tag $tag: the write under forged answers (maxsect 17) failed (status $rc): frames larger than the target takes"
	vm_wait_for "[ \"\$(cnt '.paths[0].state')\" = up ]" 15 || die "tag $tag: the path is $(cnt '.paths[0].state'), not up"
	[ "$(vm_sysfs e1.2 payload)" = 1024 ] || die "tag $tag: forged Query Config answers (maxsect 17) raised e1.2's payload to $(vm_sysfs e1.2 payload)"
	dd if=$dev bs=1M count=16 iflag=direct status=none | cmp - /tmp/data || die "tag $tag: 16 MiB read back differ"
	[ "$(cnt .counters.ata_errors)" = 0 ] || die "tag $tag: e1.2 counted $(cnt .counters.ata_errors) ATA errors"
}
spoof 1
spoof 0
pp aoe-stat -a
vm_fastd_stop
[ "$(vm_fastd_counter errors)" = 0 ] || die "aoe-fastd aborted $(vm_fastd_counter errors) commands (more sectors than its maxsect)"

# 3. a real restart with a larger count, taken on the admin's revalidate
vm_fastd -i b0 -s 64M -b 64 --maxsect 4
pp aoe-revalidate e1.2
vm_wait_for "[ \"\$(vm_sysfs e1.2 payload)\" = 2048 ]" 15 ||
	die "after aoe-fastd --maxsect 4 and aoe-revalidate the payload is $(vm_sysfs e1.2 payload), expected 2048"
vm_wait_for "[ \"\$(cnt '.paths[0].state')\" = up ]" 15 || die "after the restart the path is $(cnt '.paths[0].state'), not up"
pp dd if=/dev/urandom of=/tmp/data bs=1M count=16 status=none
pp dd if=/tmp/data of=$dev bs=1M oflag=direct status=none
dd if=$dev bs=1M count=16 iflag=direct status=none | cmp - /tmp/data || die "after the restart: 16 MiB read back differ"
vm_unload_aoe
vm_fastd_stop
[ "$(vm_fastd_counter errors)" = 0 ] || die "after the restart aoe-fastd aborted $(vm_fastd_counter errors) commands"
