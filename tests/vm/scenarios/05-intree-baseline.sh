#!/bin/bash
# The distribution's in-tree aoe + vblade + aoetools: the harness baseline.
#
#   a0 (initiator, in-tree aoe) <--veth--> b0 (vblade 1 2 b0 /dev/ram0)
#
# aoetools' aoe-stat must list e1.2 on a0 with vblade's MAC. Prints the exact
# aoe-stat line ("AOE-STAT-LINE ") and the sysfs attributes ("AOE-SYSFS ")
# for the userland tools to compare with.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

vm_veth a0 b0
disk=$(vm_ramdisk 256)
vm_vblade 1 2 b0 "$disk"
mac=$(vm_mac b0)
vm_load_intree_aoe aoe_iflist=a0
pp "$AOETOOLS/aoe-discover"
vm_wait_for "$AOETOOLS/aoe-stat | grepq 'e1\.2'" 10 || die "aoetools aoe-stat does not list e1.2"
pp "$AOETOOLS/aoe-stat"
"$AOETOOLS/aoe-stat" | while IFS= read -r l; do printf 'AOE-STAT-LINE %s|\n' "$l"; done
line=$("$AOETOOLS/aoe-stat" | grep 'e1\.2')
grep -q 'a0' <<<"$line" || die "aoe-stat line has no interface a0: $line"
vm_wait_for "grep -q '^up' '/sys/block/etherd!e1.2/state'" 10 || die "e1.2 not up: $(cat '/sys/block/etherd!e1.2/state')"
for f in /sys/block/etherd\!e1.2/*; do
	if [ ! -f "$f" ] || [ ! -r "$f" ]; then continue; fi
	printf 'AOE-SYSFS %s=%s\n' "${f##*/}" "$(tr '\n' ' ' <"$f" 2>/dev/null | sed 's/ $//')"
done
[ "$(cat '/sys/block/etherd!e1.2/mac')" = "${mac//:/}" ] || die "sysfs mac $(cat '/sys/block/etherd!e1.2/mac') is not vblade's $mac"
[ "$(cat '/sys/block/etherd!e1.2/netif')" = a0 ] || die "sysfs netif is not a0"
pp ls -l /dev/etherd/
# A quick read through the block device proves the data path.
pp dd if=/dev/etherd/e1.2 of=/dev/null bs=64k count=16 iflag=direct
vm_unload_aoe
log "in-tree baseline ok"
