#!/bin/bash
# needs: aoe.ko
# timeout: 150
# Tracepoints (issue 16), read from tracefs during I/O:
#
#   a0 (aoe.ko) <--veth--> b0 (vblade 1 2 b0 /dev/ram0)
#   a1 (aoe.ko) <--veth--> b1 (vblade 1 2 b1 /dev/ram0)
#
# events/aoe/ has the six events (frame sent, answered, timeout, retransmit;
# path state, target state), and each reports what happened:
# - a 1 MiB O_DIRECT write at 3 MiB: aoe_frame_sent 'W' frames cover LBA
#   6144..8191 exactly once each (first transmissions), each answered
#   (aoe_frame_answered once per frame, rtt_us >= 0, status 0x40,
#   error 0), on a0/a1 by
#   ifindex and MAC;
# - a1's answers lost (netem 100 % on b1) during reads: aoe_frame_timeout
#   on a1 (waited_us >= rto_us), aoe_frame_retransmit from a1's old tag to a
#   new tag on a0, aoe_path_state "down" for a1; loss gone: "up" again;
# - aoe-flush -a: aoe_target_state "gone"; aoe-discover: "new", then "up".
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

dev=/dev/etherd/e1.2
disk=$(vm_ramdisk 64)
vm_veth a0 b0
vm_veth a1 b1
vm_vblade 1 2 b0 "$disk"
vm_vblade 1 2 b1 "$disk"
vm_load_aoe aoe_iflist=a0,a1
pp aoe-discover >/dev/null || true
vm_aoe_up e1.2
vm_wait_for "[ \$(aoe-stat --json | jq '[.targets[] | select(.device == \"e1.2\") | .paths[]] | length') = 2 ]" 10 ||
	die "e1.2 does not have 2 paths"

tr=/sys/kernel/tracing
[ -d $tr/events ] || mount -t tracefs tracefs $tr || die "cannot mount tracefs"
for e in aoe_frame_sent aoe_frame_answered aoe_frame_timeout aoe_frame_retransmit \
	aoe_path_state aoe_target_state; do
	[ -e $tr/events/aoe/$e/format ] || die "no tracepoint aoe:$e in $tr/events/aoe"
done
echo 8192 >$tr/buffer_size_kb
# No comm/tgid recording: it hooks sched_switch/sched_wakeup, and patching
# those jump labels while another vCPU runs them oopsed (int3 in
# ttwu_do_activate) under qemu TCG; the aoe events are enabled once and stay
# on until rmmod.
echo 0 >$tr/options/record-cmd
echo 0 >$tr/options/record-tgid
: >$tr/trace
echo 1 >$tr/events/aoe/enable
# trace_now FILE: the events so far, tracing left on.
trace_now() { cat $tr/trace >"$1"; }
if0=$(cat /sys/class/net/a0/ifindex)
if1=$(cat /sys/class/net/a1/ifindex)

log "1. a 1 MiB write at 3 MiB"
pp dd if=/dev/urandom of=/tmp/w bs=1M count=1 status=none
pp dd if=/tmp/w of=$dev bs=1M seek=3 count=1 oflag=direct status=none
trace_now /tmp/t1
grep -c 'aoe_frame_sent:' /tmp/t1 || die "no aoe_frame_sent events"
# "e1.2 if3 aa:..:ff tag 0000002a W lba 6144 sectors 16 tries 0"
awk '/aoe_frame_sent:.* W lba / && / tries 0$/ {
	for (i = 1; i <= NF; i++) { if ($i == "lba") l = $(i + 1); if ($i == "sectors") n = $(i + 1) }
	for (s = l; s < l + n; s++) c[s]++
} END {
	for (s in c) { if (s < 6144 || s > 8191) { print "outside " s; bad = 1 } if (c[s] != 1) { print "twice " s; bad = 1 } }
	k = 0; for (s in c) k++
	if (k != 2048) { print "covered " k " sectors"; bad = 1 }
	exit bad
}' /tmp/t1 || die "the first transmissions of 'W' frames do not cover LBA 6144..8191 once each"
# each frame is answered once (a later answer to another copy is dropped)
first_w=$(grep -c 'aoe_frame_sent:.* W lba .* tries 0$' /tmp/t1)
ans_w=$(grep -c 'aoe_frame_answered:.* W lba ' /tmp/t1)
[ "$ans_w" = "$first_w" ] || die "$first_w 'W' frames, $ans_w answered"
grep -m 3 'aoe_frame_answered:.* W lba ' /tmp/t1
awk -v a="$if0" -v b="$if1" '/aoe_frame_answered:/ {
	for (i = 1; i <= NF; i++) { if ($i == "rtt_us") r = $(i + 1); if ($i == "status") st = $(i + 1); if ($i == "error") er = $(i + 1) }
	if (r < 0 || st != "0x40" || er != 0) { print "bad: " $0; bad = 1 }
	if (!($0 ~ (" if" a " ") || $0 ~ (" if" b " "))) { print "path: " $0; bad = 1 }
} END { exit bad }' /tmp/t1 || die "aoe_frame_answered fields wrong (rtt_us, status, error or path)"
grep -q "aoe_frame_sent: e1.2 if$if0 " /tmp/t1 && grep -q "aoe_frame_sent: e1.2 if$if1 " /tmp/t1 ||
	log "(the write used one path only)"
pp timeout 60 dd if=$dev of=/tmp/r bs=1M skip=3 count=1 iflag=direct status=none
pp cmp /tmp/r /tmp/w

log "2. a1's answers lost during reads: timeouts, retransmits, path down, up"
: >$tr/trace
pp tc qdisc replace dev b1 root netem loss 100%
dd if=$dev of=/dev/null bs=64k count=256 iflag=direct status=none || die "reads failed with one of two paths lossy"
path_state() { aoe-stat --json | jq -r ".targets[] | select(.device == \"e1.2\") | .paths[] | select(.interface == \"$1\") | .state"; }
vm_wait_for "[ \"\$(path_state a1)\" = down ] || { dd if=$dev of=/dev/null bs=64k count=16 iflag=direct status=none; false; }" 20 ||
	die "path a1 did not go down with its answers lost"
trace_now /tmp/t2
grep -m 3 "aoe_frame_timeout: e1.2 if$if1 " /tmp/t2 || die "no aoe_frame_timeout on a1 (if$if1)"
awk '/aoe_frame_timeout:/ {
	for (i = 1; i <= NF; i++) { if ($i == "waited_us") w = $(i + 1); if ($i == "rto_us") r = $(i + 1) }
	if (w + 0 < r + 0) { print "early: " $0; bad = 1 }
} END { exit bad }' /tmp/t2 || die "aoe_frame_timeout before its RTO"
grep -m 3 "aoe_frame_retransmit: e1.2 tag [0-9a-f]* if$if1 .* -> tag [0-9a-f]* if$if0 " /tmp/t2 ||
	die "no aoe_frame_retransmit from a1 to a0"
grep "aoe_path_state: e1.2 a1 (if$if1) .* down" /tmp/t2 || die "no aoe_path_state down for a1"
: >$tr/trace
pp tc qdisc del dev b1 root
vm_wait_for "[ \"\$(path_state a1)\" = up ]" 20 || die "path a1 did not come back up"
trace_now /tmp/t3
grep "aoe_path_state: e1.2 a1 (if$if1) .* up" /tmp/t3 || die "no aoe_path_state up for a1"

log "3. target events: gone, new, up"
: >$tr/trace
pp aoe-flush -a
vm_wait_for "[ ! -e $dev ]" 10 || die "$dev still there after aoe-flush -a"
pp aoe-discover >/dev/null || true
vm_aoe_up e1.2
trace_now /tmp/t4
grep 'aoe_target_state: e1.2 gone' /tmp/t4 || die "no aoe_target_state gone"
grep 'aoe_target_state: e1.2 new' /tmp/t4 || die "no aoe_target_state new"
sectors=$(blockdev --getsz "$disk")
grep "aoe_target_state: e1.2 up state up sectors $sectors " /tmp/t4 ||
	die "no aoe_target_state up with $sectors sectors"
log "tracepoints OK"
vm_unload_aoe
