#!/bin/bash
# needs: aoe.ko
# timeout: 180
# kernels: 6.1 (the module's own protocol logic or a tool, no kernel interface the two series differ in: the whole suite runs it on one series, balanced for the 45 min budget; make test-full and a named run: every kernel)
# Per-path payload (issue 15): one target over a jumbo and a standard path,
#
#   a0 (aoe.ko, mtu 9000) <--veth--> b0 (vblade 1 2 b0 /dev/ram0)
#   a1 (aoe.ko, mtu 1500) <--veth--> b1 (vblade 1 2 b1 /dev/ram0)
#
# each path carries frames sized to its own MTU: a0's payload is 8 KiB or more
# and a1's 1 KiB (aoe-stat --json), the bytes per written frame on each path
# agree, a0 carries most of the bytes, and 32 MiB written through e1.2 read
# back equal (through e1.2 and on the RAM disk itself). Then a0's MTU drops to
# 1500 under a write: the write completes and its data is intact.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

vm_two_paths 9000
path() { aoe-stat --json | jq -r ".targets[] | select(.device == \"e1.2\") | .paths[] | select(.interface == \"$1\") | $2"; }
p0=$(path a0 .payload)
p1=$(path a1 .payload)
log "payload a0 $p0, a1 $p1, target $(cat /sys/block/etherd!e1.2/payload)"
[ "$p0" -ge 8192 ] || die "a0 (mtu 9000) has payload $p0, not 8 KiB or more"
[ "$p1" = 1024 ] || die "a1 (mtu 1500) has payload $p1, not 1024"

w0=$(path a0 .counters.bytes_written); f0=$(path a0 .counters.frames_sent)
w1=$(path a1 .counters.bytes_written); f1=$(path a1 .counters.frames_sent)
pp dd if=/dev/urandom of=/tmp/data bs=1M count=32 status=none
pp dd if=/tmp/data of=/dev/etherd/e1.2 bs=1M oflag=direct status=none
pp sync
w0=$(( $(path a0 .counters.bytes_written) - w0 )); f0=$(( $(path a0 .counters.frames_sent) - f0 ))
w1=$(( $(path a1 .counters.bytes_written) - w1 )); f1=$(( $(path a1 .counters.frames_sent) - f1 ))
log "written: a0 $w0 bytes in $f0 frames, a1 $w1 bytes in $f1 frames"
[ "$f0" -gt 0 ] && [ "$f1" -gt 0 ] || die "both paths should carry writes (a0 $f0 frames, a1 $f1)"
[ $((w0 + w1)) -ge $((32 << 20)) ] || die "paths wrote $((w0 + w1)) bytes for 32 MiB"
# a frame carries at most its path's payload; the jumbo path's are near it
[ $((w1 / f1)) -le 1024 ] || die "a1 wrote $((w1 / f1)) bytes per frame, more than its payload 1024"
[ $((w0 / f0)) -gt 4096 ] || die "a0 wrote $((w0 / f0)) bytes per frame: not jumbo frames (payload $p0)"
[ "$w0" -gt "$w1" ] || die "the jumbo path carried $w0 bytes, not most of them (a1 $w1)"
pp dd if=/dev/etherd/e1.2 of=/tmp/back bs=1M count=32 iflag=direct status=none
cmp /tmp/data /tmp/back || die "32 MiB read back through e1.2 differ from what was written"
pp dd if="$disk" of=/tmp/raw bs=1M count=32 iflag=direct status=none
cmp /tmp/data /tmp/raw || die "the RAM disk does not hold the 32 MiB written through e1.2"

# a0's MTU drops while a write is in flight: its frames are resent in pieces
pp dd if=/dev/urandom of=/tmp/data2 bs=1M count=32 status=none
dd if=/tmp/data2 of=/dev/etherd/e1.2 bs=1M oflag=direct seek=64 status=none &
dd_pid=$!
sleep 0.5
kill -0 $dd_pid 2>/dev/null || log "the write ended before the MTU change (still checked)"
pp ip link set a0 mtu 1500
pp ip link set b0 mtu 1500
vm_wait_for "! kill -0 $dd_pid 2>/dev/null" 60 || die "the write did not end within 60 s of a0's MTU drop"
rc=0
wait $dd_pid || rc=$?
[ "$rc" = 0 ] || die "the write across a0's MTU drop failed (status $rc)"
vm_wait_for "[ \"\$(path a0 .payload)\" = 1024 ]" 15 || die "a0's payload is $(path a0 .payload) after its MTU dropped to 1500"
pp dd if=/dev/etherd/e1.2 of=/tmp/back2 bs=1M skip=64 count=32 iflag=direct status=none
cmp /tmp/data2 /tmp/back2 || die "the 32 MiB written across the MTU drop read back different"
pp aoe-stat -a
vm_unload_aoe
