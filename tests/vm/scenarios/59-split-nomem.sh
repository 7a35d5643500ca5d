#!/bin/bash
# needs: aoe.ko
# timeout: 150
# kernels: 6.1 (the module's own protocol logic or a tool, no kernel interface the two series differ in: the whole suite runs it on one series, balanced for the 45 min budget; make test-full and a named run: every kernel)
# A frame split for a smaller path finds no memory for a piece (review of
# per-path payload, MEDIUM-1):
#
#   a0 (aoe.ko, mtu 9000) <--veth--> b0 (vblade 1 2 b0 /dev/ram0)
#   a1 (aoe.ko, mtu 1500) <--veth--> b1 (vblade 1 2 b1 /dev/ram0)
#
# aoe_test_faults=8 fails every other allocation of a split frame's piece.
# a0 (paced at 100 Mbit/s) goes down under a 32 MiB write: its jumbo frames
# move to a1 and must be split to a1's 1 KiB payload. A frame whose split
# found no memory waits for the next try; it is never sent whole on a1,
# where the veth drops it as too big for b1 (mtu 1500) and the frame times
# out (a1's tx_dropped stays; before the fix: 135 drops, 43 timeouts on
# 6.1). The write completes and its data read back equal, on the RAM disk
# too.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

vm_two_paths 9000 aoe_test_faults=8
path() { aoe-stat --json | jq -r ".targets[] | select(.device == \"e1.2\") | .paths[] | select(.interface == \"$1\") | $2"; }
[ "$(path a0 .payload)" -ge 8192 ] || die "a0 (mtu 9000) has payload $(path a0 .payload), not 8 KiB or more"

t1=$(path a1 .counters.timeouts)
r1=$(path a1 .counters.retransmits)
d1=$(cat /sys/class/net/a1/statistics/tx_dropped)
pp dd if=/dev/urandom of=/tmp/data bs=1M count=32 status=none
# a0 paced (100 Mbit/s: the 32 MiB take seconds) so that it still carries
# frames when it goes down, however fast the guest copies: without ERMS a
# 6.1 guest wrote all 32 MiB before the wait below saw 4 MiB on a0
pp tc qdisc add dev a0 root netem rate 100mbit
dd if=/tmp/data of=/dev/etherd/e1.2 bs=1M oflag=direct status=none &
dd_pid=$!
# a0 down once it carries writes: its frames in flight go to a1
w0=$(path a0 .counters.bytes_written)
vm_wait_for "[ \$(path a0 .counters.bytes_written) -gt $((w0 + (4 << 20))) ]" 30 ||
	die "a0 carried no write"
pp ip link set a0 down
vm_wait_for "! kill -0 $dd_pid 2>/dev/null" 90 || die "the write did not end within 90 s of a0 going down"
rc=0
wait $dd_pid || rc=$?
[ "$rc" = 0 ] || die "the write across a0 going down failed (status $rc)"
r1=$(( $(path a1 .counters.retransmits) - r1 ))
t1=$(( $(path a1 .counters.timeouts) - t1 ))
d1=$(( $(cat /sys/class/net/a1/statistics/tx_dropped) - d1 ))
log "a1: $r1 retransmits (a0's frames moved), $t1 timeouts, $d1 frames dropped by the veth (too big for b1)"
[ "$r1" -gt 0 ] || die "no frame of a0 was resent on a1 (a0 went down after the write?)"
[ "$d1" = 0 ] || die "a1's veth dropped $d1 frames too big for b1 ($t1 timeouts on a1): frames whose split found no memory went out whole"
pp dd if=/dev/etherd/e1.2 of=/tmp/back bs=1M count=32 iflag=direct status=none
cmp /tmp/data /tmp/back || die "32 MiB read back through e1.2 differ from what was written"
pp dd if="$disk" of=/tmp/raw bs=1M count=32 iflag=direct status=none
cmp /tmp/data /tmp/raw || die "the RAM disk does not hold the 32 MiB written through e1.2"
pp aoe-stat -a
vm_unload_aoe
