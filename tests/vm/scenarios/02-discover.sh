#!/bin/bash
# needs: aoe.ko
# Discovery with our module and aoe-discover:
#
#   a0 (initiator, aoe.ko) <--veth--> b0 (vblade 1 2 b0 /dev/ram0)
#
# aoe-discover (default wait) lists e1.2 within 5 s; --json is valid JSON
# listing e1.2.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

vm_veth a0 b0
disk=$(vm_ramdisk 256)
vm_vblade 1 2 b0 "$disk"
vm_load_aoe

t0=$(vm_ms)
out=$(pp aoe-discover)
t1=$(vm_ms)
echo "$out"
log "aoe-discover took $((t1 - t0)) ms"
grep -qE '(^|[^0-9.])e1\.2([^0-9]|$)' <<<"$out" || die "aoe-discover did not list e1.2"
limit=$((5000 * AOE_SLOW))	# run.sh --slow: a loaded host or a debug kernel
[ $((t1 - t0)) -le $limit ] || die "aoe-discover took $((t1 - t0)) ms (limit $limit)"

pp aoe-discover --json >/tmp/discover.json
cat /tmp/discover.json
vm_json_check /tmp/discover.json . "aoe-discover --json is not valid JSON"
vm_json_check /tmp/discover.json '[.. | objects | select(.device? == "e1.2")] | length > 0' \
	"aoe-discover --json does not contain e1.2"
vm_unload_aoe
