#!/bin/bash
# needs: aoe.ko
# timeout: 120
# A forged Query Config answer cannot raise an up path's sectors per frame
# (review of per-path payload, MEDIUM-4):
#
#   a0 (aoe.ko, mtu 9000) <--veth--> b0 (aoe-fastd --maxsect 2, mtu 9000)
#
# aoe-fastd announces 2 sectors per frame and aborts any ATA command with
# more (as a target whose buffers hold 2 sectors drops such frames): e1.2's
# payload is 1024 although the link carries 8704. A spoofer on the segment
# answers with b0's MAC and maxsect 17, 20 times under a write: the payload
# stays 1024, the write and its read back succeed with no ATA error on either
# side. Anyone can send a Query Config answer; a larger value is taken only
# when the path is checked again (its target's own announcement).
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

dev=/dev/etherd/e1.2
vm_veth a0 b0 9000
vm_fastd -i b0 -s 64M -b 64 --maxsect 2
vm_load_aoe aoe_iflist=a0
vm_aoe_up e1.2
[ "$(vm_sysfs e1.2 payload)" = 1024 ] || die "payload $(vm_sysfs e1.2 payload) for maxsect 2, expected 1024"

pp dd if=/dev/urandom of=/tmp/data bs=1M count=16 status=none
dd if=/tmp/data of=$dev bs=1M oflag=direct status=none &
dd_pid=$!
pp aoe-inject -i b0 -d "$(vm_mac a0)" -s "$(vm_mac b0)" --shelf 1 --slot 2 --maxsect 17 --tag 0x80000001 \
	-n 20 -w 50000 config
log "payload after the forged answers: $(vm_sysfs e1.2 payload)"
[ "$(vm_sysfs e1.2 payload)" = 1024 ] || die "forged Query Config answers (maxsect 17) raised e1.2's payload to $(vm_sysfs e1.2 payload)"
vm_wait_for "! kill -0 $dd_pid 2>/dev/null" 60 || die "the write did not end within 60 s"
rc=0
wait $dd_pid || rc=$?
[ "$rc" = 0 ] || die "the write under forged answers failed (status $rc): frames larger than the target takes"
dd if=$dev bs=1M count=16 iflag=direct status=none | cmp - /tmp/data || die "16 MiB read back differ"
errs=$(aoe-stat --json | jq '.targets[] | select(.device == "e1.2") | .counters.ata_errors')
[ "$errs" = 0 ] || die "e1.2 counted $errs ATA errors"
vm_unload_aoe
vm_fastd_stop
[ "$(vm_fastd_counter errors)" = 0 ] || die "aoe-fastd aborted $(vm_fastd_counter errors) commands (more sectors than its maxsect)"
