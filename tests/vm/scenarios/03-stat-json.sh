#!/bin/bash
# needs: aoe.ko
# aoe-stat with our module:
#
#   a0 (initiator, aoe.ko) <--veth--> b0 (vblade 1 2 b0 /dev/ram0)
#
# --json shows e1.2 with vblade's MAC, path interface a0, bufcnt 16 and a
# firmware version; the text output has a row for e1.2; without the module
# aoe-stat exits 1 and says to modprobe.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

vm_veth a0 b0
disk=$(vm_ramdisk 256)
vm_vblade 1 2 b0 "$disk"
mac=$(ip link show b0 | awk '/link\/ether/ { print $2 }')
[ -n "$mac" ] || die "no MAC for b0"
vm_load_aoe
pp aoe-discover >/dev/null || true
vm_wait_for "vm_has_target e1.2" 10 || die "aoe-stat --json never listed e1.2"

pp vm_stat_json /tmp/stat.json
cat /tmp/stat.json
vm_json_check /tmp/stat.json '.targets | type == "array"' "no .targets array"
t='(.targets[] | select(.device == "e1.2"))'
norm='ascii_downcase | gsub("[^0-9a-f]"; "")'
want=$(tr -d : <<<"$mac")
vm_json_check /tmp/stat.json "[$t | .paths[] | select((.mac | $norm) == \"$want\")] | length == 1" \
	"e1.2 has no path with vblade's MAC $mac"
vm_json_check /tmp/stat.json "[$t | .paths[] | select((.mac | $norm) == \"$want\") | .interface] == [\"a0\"]" \
	"e1.2's path is not on interface a0"
vm_json_check /tmp/stat.json "[$t | .paths[] | .bufcnt] == [16]" "e1.2's bufcnt is not 16 (vblade's default)"
vm_json_check /tmp/stat.json "[$t | .paths[] | .fwver | numbers | select(. > 0)] | length == 1" \
	"e1.2 has no firmware version"

pp aoe-stat | tee /tmp/stat.txt
grep -qE '(^|[[:space:]])e1\.2([[:space:]]|$)' /tmp/stat.txt || die "aoe-stat text output has no e1.2 row"

vm_unload_aoe
rc=0
aoe-stat >/tmp/stat.out 2>/tmp/stat.err || rc=$?
cat /tmp/stat.out /tmp/stat.err
[ "$rc" = 1 ] || die "aoe-stat without the module exited $rc, expected 1"
grep -qi modprobe /tmp/stat.err || die "aoe-stat without the module does not mention modprobe"
