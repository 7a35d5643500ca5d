#!/bin/bash
# needs: aoe.ko
# timeout: 300
# kernels: 6.12 (the module's own protocol logic or a tool, no kernel interface the two series differ in: the whole suite runs it on one series, balanced for the 45 min budget; make test-full and a named run: every kernel)
# Malformed and hostile frames are dropped and counted by reason:
#
#   a0 (aoe.ko, aoe_iflist=a0) <--veth--> b0 (vblade 1 2 b0 /dev/ram0, aoe-inject)
#   a1 (not in aoe_iflist)     <--veth--> b1 (aoe-inject, spoofed config)
#
# For each kind, aoe-inject sends 200 frames from b0 to a0's MAC and the
# module's drop counter for the matching reason (aoe-stat --json,
# .module.drops.<reason>) must rise by (nearly: 90%) 200; e1.2 must stay as it was (MAC, bufcnt,
# config) and no other target may appear. The frames carry values vblade
# never sends (bufcnt 3, fwver 0x1234, config "EVIL") so a frame that gets
# through shows.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

N=200
vm_veth a0 b0
vm_veth a1 b1
disk=$(vm_ramdisk 256)
vm_vblade 1 2 b0 "$disk"
vm_load_aoe aoe_iflist=a0
pp aoe-discover >/dev/null || true
vm_wait_for "vm_has_target e1.2" 10 || die "e1.2 never showed up"
amac=$(vm_mac a0)
a1mac=$(vm_mac a1)

# What must not change: the targets and e1.2's paths (without counters/RTT).
shape() {
	aoe-stat --json | jq -c '[.targets[] | {device, config,
		paths: [.paths[] | {interface, mac, bufcnt, fwver, maxsect}]}]'
}
before=$(shape)
log "targets before: $before"

inject() {
	# inject REASON KIND [aoe-inject options]
	local reason=$1 kind=$2 n0 n1
	shift 2
	n0=$(vm_drops "$reason")
	pp aoe-inject -i b0 -d "$amac" -n "$N" --bufcnt 3 --fwver 0x1234 --config EVIL "$@" "$kind"
	# Every frame must be counted; allow 10% lost on the way (backlog).
	vm_wait_for "[ \$(vm_drops $reason) -ge $((n0 + N * 9 / 10)) ]" 5 || true
	n1=$(vm_drops "$reason")
	[ "$n1" -gt "$n0" ] || {
		aoe-stat --json | jq -c .module.drops
		die "$kind: drop counter '$reason' stayed at $n0"
	}
	log "$kind: drops.$reason $n0 -> $n1"
	[ "$n1" -ge $((n0 + N * 9 / 10)) ] || die "$kind: $N frames sent, drops.$reason rose only by $((n1 - n0))"
}

inject short short
inject short short --len 14
inject short short --len 23
inject version bad-version
inject not_response not-response
inject reserved_flags reserved-flags
inject error error
inject bad_address bcast-addr
inject bad_address mcast-src
inject bad_address zero-src
inject bad_config cfg-overrun
inject bad_config cfg-too-long
inject unknown_cmd unknown-cmd
inject unknown_cmd unknown-cmd --cmd 0xf0
inject no_tag ata-unknown-tag
# as in-tree, each answer with an unknown tag is a line in /dev/etherd/err
# (written after the target's lock is dropped; the ring keeps the last 100)
timeout 3 cat /dev/etherd/err >/tmp/err.txt || true
grep -q '^unexpected rsp e1\.2 tag=[0-9a-f]\{8\}@' /tmp/err.txt ||
	die "no 'unexpected rsp e1.2' line in /dev/etherd/err: $(head -n 3 /tmp/err.txt)"
log "/dev/etherd/err: $(grep -c '^unexpected rsp' /tmp/err.txt) unexpected rsp lines"
inject no_target ata-unknown-tag --shelf 9 --slot 9
inject user_tag user-tag

# Random garbage: some reason must count every frame; nothing else changes.
total() { aoe-stat --json | jq '[.module.drops // {} | .[]] | add // 0'; }
t0=$(total)
pp aoe-inject -i b0 -d "$amac" -n 500 --seed 7 garbage
vm_wait_for "[ \$(total) -gt $t0 ]" 5 || die "garbage frames were not counted as drops"
log "garbage: drops in all $t0 -> $(total)"

# A valid-looking config response from another MAC on a1 (not in aoe_iflist).
n0=$(vm_drops iface)
pp aoe-inject -i b1 -d "$a1mac" -s 02:00:00:00:00:99 --shelf 7 --slot 7 -n 100 config
pp aoe-inject -i b1 -d ff:ff:ff:ff:ff:ff -s 02:00:00:00:00:98 --shelf 1 --slot 2 -n 100 config
vm_wait_for "[ \$(vm_drops iface) -ge $((n0 + 180)) ]" 5 ||
	die "200 config responses on a1: drops.iface rose only by $(($(vm_drops iface) - n0))"
log "iface: drops.iface $n0 -> $(vm_drops iface)"

after=$(shape)
log "targets after: $after"
[ "$after" = "$before" ] || die "targets changed: before $before, after $after"
pp aoe-stat
vm_unload_aoe
