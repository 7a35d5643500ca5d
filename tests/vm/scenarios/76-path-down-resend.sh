#!/bin/bash
# needs: aoe.ko
# timeout: 150
# kernels: 6.1 (the module's own protocol logic or a tool, no kernel interface the two series differ in: the whole suite runs it on one series, balanced for the 45 min budget; make test-full and a named run: every kernel)
# A path that stops carrying I/O after timeout events hands over all its
# frames at once:
#
#   a0 (aoe.ko) <--veth--> b0 (vblade 1 2 b0 /dev/ram0)   (vm_two_paths)
#   a1 (aoe.ko) <--veth--> b1 (vblade 1 2 b1 /dev/ram0)
#
# fio reads 4 KiB at random at queue depth 16 over both paths; 1.5 s in,
# b1 drops everything (netem loss 100 %). After AOE_PATH_FAIL_EVENTS timeout
# events a1 goes down (aoe_path_state up -> down); the frames still in
# flight on it are sent on a0 then, so no aoe_frame_timeout on a1 follows
# that event (before the fix they each waited for their own RTO, backed
# off four times, and timed out on the dead path one by one). fio ends
# without an error.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

tr=/sys/kernel/tracing
vm_tracefs
vm_two_paths 1500 aoe_deadsecs=60
if1=$(cat /sys/class/net/a1/ifindex)
: >$tr/trace
echo 1 >$tr/events/aoe/aoe_frame_timeout/enable
echo 1 >$tr/events/aoe/aoe_path_state/enable
echo 1 >$tr/events/aoe/aoe_frame_retransmit/enable

secs=$((6 * AOE_SLOW))
timeout "$((secs + 60 * AOE_SLOW))" fio --name=r --filename=/dev/etherd/e1.2 --rw=randread --bs=4k \
	--iodepth=16 --ioengine=libaio --direct=1 --time_based --runtime="$secs" \
	--output-format=json >/tmp/fio.json 2>/tmp/fio.err &
fio_pid=$!
sleep 1.5
kill -0 $fio_pid || { cat /tmp/fio.err; die "fio ended before b1 dropped its frames"; }
pp tc qdisc replace dev b1 root netem loss 100%
rc=0
wait $fio_pid || rc=$?
echo 0 >$tr/events/aoe/enable
[ "$rc" = 0 ] || { cat /tmp/fio.err; die "fio failed with one of two paths dropping frames (status $rc)"; }
jq -e '.jobs[0].error == 0 and .jobs[0].read.total_ios > 0' /tmp/fio.json >/dev/null ||
	die "fio reports an error or no reads"
log "fio: $(jq -r '.jobs[0].read | "\(.total_ios) reads, clat max \(.clat_ns.max / 1000000 | floor) ms"' /tmp/fio.json)"
cat $tr/trace >/tmp/t
pp tc qdisc del dev b1 root

# "<timestamp>: aoe_path_state: e1.2 a1 (ifN) MAC up -> down", then the
# timeouts on a1 before and after it
awk -v ifx="if$if1" '
{
	for (i = 2; i <= NF; i++) if ($i ~ /^aoe_[a-z_]*:$/) break
	ts = $(i - 1); sub(/:$/, "", ts)
}
$i == "aoe_path_state:" && $0 ~ "\\(" ifx "\\) .* up -> down$" && down == "" { down = ts; next }
$i == "aoe_frame_retransmit:" && $(i + 4) == ifx && down != "" && ts - down < 0.05 { handed++ }
$i == "aoe_frame_timeout:" && $(i + 2) == ifx {
	if (down == "") { before++; next }
	after++
	if (ts - down > late) late = ts - down
}
END { printf "%s %d %d %d %d\n", down == "" ? "none" : down, before, after, late * 1000, handed }' /tmp/t >/tmp/counts
read -r down before after late handed </tmp/counts
log "a1 down at ${down} s after $before timeouts on it; $handed frames resent from it within 50 ms; $after timeouts on it after that (the last ${late} ms later)"
[ "$down" != none ] || { tail -n 20 /tmp/t; die "a1 never went down with b1 dropping everything"; }
[ "$before" -gt 0 ] || die "a1 went down without a timeout on it"
[ "$after" = 0 ] ||
	{ grep "aoe_frame_timeout: e1.2 if$if1 " /tmp/t | tail -n 5; die "$after frames timed out on a1 after it went down (up to ${late} ms later): they were left on the dead path"; }
