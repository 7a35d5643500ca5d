#!/bin/bash
# needs: aoe.ko
# timeout: 180
# Tracepoints (issue 16), read from tracefs during I/O:
#
#   a0 (aoe.ko) <--veth--> b0 (vblade 1 2 b0 /dev/ram0)
#   a1 (aoe.ko) <--veth--> b1 (vblade 1 2 b1 /dev/ram0)
#
# events/aoe/ has the eight events, and each says what happened:
# 0. load + discover: aoe_target_state none -> init -> up, aoe_target_event
#    new and up (with the capacity), aoe_path_state none -> candidate ->
#    up for both paths (verified by IDENTIFY before they carry I/O)
# 1. a 1 MiB O_DIRECT write at 3 MiB: the first transmissions
#    (aoe_frame_sent 'W', tries 0) cover LBA 6144..8191 once each; every one
#    answered once (aoe_frame_answered with the tag and LBA it was sent
#    with, 0 < rtt_us < 10 s, status 0x40, error 0) over a0 or a1
# 2. a1's answers lost (netem 100 % on b1) during reads: aoe_frame_timeout
#    on a1 (waited_us >= rto_us), aoe_frame_retransmit from a1's tag to a new
#    tag on a0 (tries >= 1), aoe_path_state up -> down for a1; loss gone:
#    down -> candidate (checked again) -> up
# 3. both paths lost, aoe_deadsecs=4: aoe_frame_failed (status 10 = IOERR)
#    for the read, aoe_target_state up -> down, aoe_target_event down
# 4. aoe-flush -a: aoe_target_event gone; aoe-discover: a new target again
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

dev=/dev/etherd/e1.2
disk=$(vm_ramdisk 64)
sectors=$(blockdev --getsz "$disk")
vm_veth a0 b0
vm_veth a1 b1
tr=/sys/kernel/tracing
vm_tracefs
# The aoe events are enabled once, before the targets exist, and stay on
# until rmmod.
: >$tr/trace
vm_load_aoe aoe_iflist=a0,a1 aoe_deadsecs=60
for e in aoe_frame_sent aoe_frame_answered aoe_frame_timeout aoe_frame_retransmit \
	aoe_frame_failed aoe_path_state aoe_target_state aoe_target_event; do
	[ -e $tr/events/aoe/$e/format ] || die "no tracepoint aoe:$e in $tr/events/aoe"
done
echo 1 >$tr/events/aoe/enable
vm_vblade 1 2 b0 "$disk"
vm_vblade 1 2 b1 "$disk"
pp aoe-discover >/dev/null || true
vm_aoe_up e1.2
vm_wait_for "[ \$(aoe-stat --json | jq '[.targets[] | select(.device == \"e1.2\") | .paths[]] | length') = 2 ]" 10 ||
	die "e1.2 does not have 2 paths"
# trace_now FILE: the events so far (tracing stays on).
trace_now() { cat $tr/trace >"$1"; }
if0=$(cat /sys/class/net/a0/ifindex)
if1=$(cat /sys/class/net/a1/ifindex)

log "0. discovery"
trace_now /tmp/t0
grep 'aoe_target_state: e1.2 none -> init' /tmp/t0 || die "no aoe_target_state none -> init"
grep 'aoe_target_state: e1.2 init -> up' /tmp/t0 || die "no aoe_target_state init -> up"
grep 'aoe_target_event: e1.2 new ' /tmp/t0 || die "no aoe_target_event new"
grep "aoe_target_event: e1.2 up state up sectors $sectors " /tmp/t0 ||
	die "no aoe_target_event up with $sectors sectors"
for i in $if0 $if1; do
	grep "aoe_path_state: e1.2 a[01] (if$i) .* none -> candidate" /tmp/t0 || die "no aoe_path_state none -> candidate on if$i"
	grep "aoe_path_state: e1.2 a[01] (if$i) .* candidate -> up" /tmp/t0 || die "no aoe_path_state candidate -> up on if$i"
done
: >$tr/trace

log "1. a 1 MiB write at 3 MiB"
pp dd if=/dev/urandom of=/tmp/w bs=1M count=1 status=none
pp dd if=/tmp/w of=$dev bs=1M seek=3 count=1 oflag=direct status=none
trace_now /tmp/t1
# "e1.2 if3 aa:..:ff tag 0000002a W lba 6144 sectors 2 tries 0"
field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); next } }'; }
awk '/aoe_frame_sent:.* W lba .* tries 0$/ {
	for (i = 1; i < NF; i++) { if ($i == "lba") l = $(i + 1) + 0; if ($i == "sectors") n = $(i + 1) + 0 }
	for (s = l; s < l + n; s++) c[s]++
} END {
	k = 0
	for (s in c) { k++; if (s + 0 < 6144 || s + 0 > 8191) { print "outside " s; bad = 1 } if (c[s] != 1) { print "twice " s; bad = 1 } }
	if (k != 2048) { print "covered " k " sectors"; bad = 1 }
	exit bad
}' /tmp/t1 || die "the first transmissions of 'W' frames do not cover LBA 6144..8191 once each"
# every 'W' frame answered once, with the tag and LBA of a transmission
awk '/aoe_frame_sent:.* W lba / { for (i = 1; i < NF; i++) { if ($i == "tag") t = $(i + 1); if ($i == "lba") l = $(i + 1) }
	sent[t] = l; if ($NF == 0) first++ }
/aoe_frame_answered:.* W lba / { for (i = 1; i < NF; i++) { if ($i == "tag") t = $(i + 1); if ($i == "lba") l = $(i + 1)
		if ($i == "rtt_us") r = $(i + 1) + 0; if ($i == "status") st = $(i + 1); if ($i == "error") er = $(i + 1) + 0 }
	n++
	if (!(t in sent) || sent[t] != l) { print "answer to no such transmission: " $0; bad = 1 }
	if (r <= 0 || r >= 10000000 || st != "0x40" || er != 0) { print "fields: " $0; bad = 1 }
}
END { if (n != first) { print first " frames, " n " answers"; bad = 1 } exit bad }' /tmp/t1 ||
	die "aoe_frame_answered does not match aoe_frame_sent (tag, LBA, rtt_us, status, error, once per frame)"
grep -m 2 'aoe_frame_answered:.* W lba ' /tmp/t1
! grep 'aoe_frame_answered:' /tmp/t1 | grep -v " if$if0 \| if$if1 " || die "an answer on neither path"
pp timeout "$((60 * AOE_SLOW))" dd if=$dev of=/tmp/r bs=1M skip=3 count=1 iflag=direct status=none
pp cmp /tmp/r /tmp/w

log "2. a1's answers lost during reads: timeouts, retransmits, path down, up"
: >$tr/trace
pp tc qdisc replace dev b1 root netem loss 100%
path_state() { aoe-stat --json | jq -r ".targets[] | select(.device == \"e1.2\") | .paths[] | select(.interface == \"$1\") | .state"; }
pp timeout "$((60 * AOE_SLOW))" dd if=$dev of=/dev/null bs=64k count=256 iflag=direct status=none
vm_wait_for "[ \"\$(path_state a1)\" = down ] || { dd if=$dev of=/dev/null bs=64k count=16 iflag=direct status=none; false; }" 20 ||
	die "path a1 did not go down with its answers lost"
trace_now /tmp/t2
grep -m 2 "aoe_frame_timeout: e1.2 if$if1 " /tmp/t2 || die "no aoe_frame_timeout on a1 (if$if1)"
awk '/aoe_frame_timeout:/ { for (i = 1; i < NF; i++) { if ($i == "waited_us") w = $(i + 1) + 0; if ($i == "rto_us") r = $(i + 1) + 0 }
	if (w < r || r <= 0) { print "early: " $0; bad = 1 } } END { exit bad }' /tmp/t2 ||
	die "aoe_frame_timeout before its RTO"
grep -m 2 "aoe_frame_retransmit: e1.2 tag [0-9a-f]* if$if1 .* -> tag [0-9a-f]* if$if0 .* tries [1-9][0-9]*$" /tmp/t2 ||
	die "no aoe_frame_retransmit from a1 to a0 (tries >= 1)"
grep "aoe_path_state: e1.2 a1 (if$if1) .* up -> down" /tmp/t2 || die "no aoe_path_state up -> down for a1"
: >$tr/trace
pp tc qdisc del dev b1 root
vm_wait_for "[ \"\$(path_state a1)\" = up ]" 20 || die "path a1 did not come back up"
trace_now /tmp/t3
grep "aoe_path_state: e1.2 a1 (if$if1) .* down -> candidate" /tmp/t3 || die "no aoe_path_state down -> candidate for a1"
grep "aoe_path_state: e1.2 a1 (if$if1) .* candidate -> up" /tmp/t3 || die "no aoe_path_state candidate -> up for a1"

log "3. both paths lost: the read fails after aoe_deadsecs"
echo 4 >/sys/module/aoe/parameters/aoe_deadsecs
: >$tr/trace
pp tc qdisc replace dev b0 root netem loss 100%
pp tc qdisc replace dev b1 root netem loss 100%
! timeout "$((60 * AOE_SLOW))" dd if=$dev of=/dev/null bs=4k count=1 skip=100 iflag=direct status=none ||
	die "a read with both paths lost succeeded"
trace_now /tmp/t4
grep -m 1 'aoe_frame_failed: e1.2 R lba 800 .* status 10 ' /tmp/t4 || die "no aoe_frame_failed for LBA 800 (status 10)"
age=$(grep -m 1 'aoe_frame_failed: e1.2 R lba 800 ' /tmp/t4 | field age_ms)
# the target is dead 4 s after its last answer, which may be older than the read
[ -n "$age" ] && [ "$age" -lt 60000 ] || die "aoe_frame_failed age_ms '$age'"
grep 'aoe_target_state: e1.2 up -> down' /tmp/t4 || die "no aoe_target_state up -> down"
grep 'aoe_target_event: e1.2 down state down ' /tmp/t4 || die "no aoe_target_event down"
pp tc qdisc del dev b0 root
pp tc qdisc del dev b1 root

log "4. aoe-flush -a, discover"
: >$tr/trace
pp aoe-flush -a
vm_wait_for "[ ! -e $dev ]" 10 || die "$dev still there after aoe-flush -a"
pp aoe-discover >/dev/null || true
vm_aoe_up e1.2
trace_now /tmp/t5
grep 'aoe_target_event: e1.2 gone ' /tmp/t5 || die "no aoe_target_event gone"
grep 'aoe_target_state: e1.2 none -> init' /tmp/t5 || die "no aoe_target_state none -> init after the flush"
grep 'aoe_target_event: e1.2 up ' /tmp/t5 || die "no aoe_target_event up after the flush"
log "tracepoints OK"
vm_unload_aoe
