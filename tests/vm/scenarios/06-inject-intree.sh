#!/bin/bash
# The frame injector against the in-tree aoe (proves aoe-inject builds the
# frames it claims to, before our module exists):
#
#   a0 (in-tree aoe, aoe_iflist=a0) <--veth--> b0 (vblade 1 2 b0, aoe-inject)
#
# Frames the in-tree driver must ignore (R clear, E set, broadcast
# shelf/slot, unknown command, user tag) carry firmware version 0x5555 and
# must not change /sys/block/etherd!e1.2/firmware-version; a valid config
# response with 0x1234 must. The E and unknown-command frames leave the
# in-tree driver's own log messages.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

vm_veth a0 b0
disk=$(vm_ramdisk 256)
vm_vblade 1 2 b0 "$disk"
vm_load_intree_aoe aoe_iflist=a0
pp "$AOETOOLS/aoe-discover"
fw=/sys/block/etherd\!e1.2/firmware-version
vm_wait_for "test -e '$fw'" 10 || die "in-tree aoe never created e1.2"
orig=$(cat "$fw")
amac=$(vm_mac a0)
rx() { cat /sys/class/net/a0/statistics/rx_packets; }

for kind in not-response error bcast-addr unknown-cmd user-tag garbage; do
	r0=$(rx)
	vm_dmesg_mark
	pp aoe-inject -i b0 -d "$amac" -n 50 --fwver 0x5555 --bufcnt 3 "$kind"
	vm_wait_for "[ \$(rx) -ge $((r0 + 50)) ]" 5 || die "$kind: a0 received $(($(rx) - r0)) of 50 frames"
	sleep 0.2
	[ "$(cat "$fw")" = "$orig" ] || die "$kind: in-tree aoe took firmware version $(cat "$fw")"
	case "$kind" in
	error) vm_dmesg_since | grepq 'error packet from 1.2' || die "no 'error packet' message for E frames" ;;
	unknown-cmd) vm_dmesg_since | grepq 'unknown AoE command type 0x0a' || die "no 'unknown AoE command' message" ;;
	esac
	log "$kind: 50 frames received by a0, ignored by the in-tree aoe"
done

pp aoe-inject -i b0 -d "$amac" --fwver 0x1234 config
vm_wait_for "grep -qx 0x1234 '$fw'" 5 || die "valid config response did not set firmware-version (is $(cat "$fw"))"
log "valid config response: firmware-version $orig -> $(cat "$fw")"

# Observation, not a check: the in-tree driver does not length-check a
# config response (it skips the pull when the frame is short and reads on).
pp aoe-inject -i b0 -d "$amac" -n 18 --fwver 0x5555 short
sleep 0.5
echo "AOE-NOTE in-tree aoe after 18 truncated config responses (14..31 bytes, fwver 0x5555): firmware-version $(cat "$fw")"
vm_unload_aoe
