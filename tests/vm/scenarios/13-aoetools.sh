#!/bin/bash
# needs: aoe.ko
# Debian's aoetools (by full path, $AOETOOLS) against our module:
#
#   a0 (aoe.ko) <--veth--> b0 (vblade 1 2 b0 /dev/ram0)
#
# aoetools' aoe-stat line for e1.2 equals ours (aoe-stat from /aoe/bin);
# aoe-flush -a forgets e1.2 (not open), aoe-discover finds it again;
# aoe-interfaces sets the interface list (as aoe_iflist); aoe-revalidate
# keeps e1.2 up with the same size.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

disk=$(vm_ramdisk 256)
vm_veth a0 b0
vm_vblade 1 2 b0 "$disk"
vm_load_aoe
pp "$AOETOOLS/aoe-discover"
vm_aoe_up e1.2

theirs=$(pp "$AOETOOLS/aoe-stat" | grep -E '^ *e1\.2 ' || true)
ours=$(pp aoe-stat | grep -E '^ *e1\.2 ' || true)
printf 'aoetools: [%s]\naoekit:   [%s]\n' "$theirs" "$ours"
[ -n "$theirs" ] || die "aoetools' aoe-stat has no e1.2 line"
[ "$theirs" = "$ours" ] || die "aoe-stat lines differ: aoetools [$theirs], aoekit [$ours]"

# aoe-flush -a: e1.2 is up but not open, so it goes.
pp "$AOETOOLS/aoe-flush" -a
vm_wait_for "! test -e '/sys/block/etherd!e1.2'" 5 || die "aoe-flush -a did not remove e1.2"
vm_wait_for "! test -e /dev/etherd/e1.2" 5 || die "/dev/etherd/e1.2 still there after aoe-flush -a"
log "aoe-flush -a removed e1.2"
pp "$AOETOOLS/aoe-discover"
vm_aoe_up e1.2 10
log "aoe-discover found e1.2 again"

# aoe-interfaces: the same as aoe_iflist.
pp "$AOETOOLS/aoe-interfaces" a0
aoe-stat --json | jq -e '.module.iflist == "a0"' >/dev/null ||
	die "after aoe-interfaces a0 iflist is '$(aoe-stat --json | jq -r .module.iflist)'"
pp "$AOETOOLS/aoe-interfaces" -c
aoe-stat --json | jq -e '.module.iflist == ""' >/dev/null ||
	die "after aoe-interfaces -c iflist is '$(aoe-stat --json | jq -r .module.iflist)'"

# aoe-revalidate: size re-read, device stays up.
size=$(vm_sysfs e1.2 size)
pp "$AOETOOLS/aoe-revalidate" e1.2
sleep 1
vm_aoe_up e1.2
[ "$(vm_sysfs e1.2 size)" = "$size" ] || die "size changed after aoe-revalidate: $size -> $(vm_sysfs e1.2 size)"
pp dd if=/dev/etherd/e1.2 of=/dev/null bs=64k count=16 iflag=direct status=none
pp "$AOETOOLS/aoe-stat"
vm_unload_aoe
