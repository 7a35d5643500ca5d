#!/bin/bash
# needs: aoe.ko
# timeout: 180
# kernels: 6.12 (the module's own deadline logic, no kernel interface the two series differ in: the whole suite runs it on one series; make test-full and a named run: every kernel)
# A slow but live link, with more queued than it carries in aoe_deadsecs + 5 s:
#
#   a0 (aoe.ko, aoe_deadsecs=3) <--veth--> b0 (aoe-fastd; netem on a0: 400 kbit/s)
#
# 1 MiB of writes, 16 requests of 64 KiB in flight, takes about 20 s over
# 50 KB/s: the last requests wait ~20 s in the module's queue, behind frames
# the target answers all the time. No frame waits long for its answer (a
# window of 1 KiB frames at 50 KB/s: about a second), so no deadline is
# due: the target answers, and every request moves or waits behind others
# that move. The blk-mq backstop (aoe_deadsecs + 5 s) counted from a
# request's start, and failed the requests that had only queued that long
# (seen on a loaded debug kernel): it must count from the request's last
# progress (a frame carved or answered; for one not started, the target's
# last answer). Then the data is read back and checked. That the backstop
# still fails a request that makes no progress is 43-late-ticks' step 2.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

vm_veth a0 b0
vm_fastd -i b0 -s 64M
vm_load_aoe aoe_iflist=a0 aoe_deadsecs=3
vm_aoe_up e1.2

pp tc qdisc add dev a0 root netem rate 400kbit
vm_dmesg_mark
m0=$(vm_ms)
rc=0
pp timeout 120 fio --name=slow --filename=/dev/etherd/e1.2 --ioengine=libaio --direct=1 \
	--rw=write --bs=64k --iodepth=16 --size=1M --verify=crc32c --do_verify=0 \
	--output=/tmp/67-fio.out || rc=$?
m1=$(vm_ms)
pp tc qdisc del dev a0 root
sed 's/^/  fio: /' /tmp/67-fio.out
log "1 MiB of writes at qd 16 over 400 kbit/s: status $rc after $((m1 - m0)) ms"
aoe-stat --json | jq -c '.targets[] | select(.device == "e1.2") | {state, counters: (.counters | {frames_sent, retransmits, timeouts, lost})}'
dmesg_fail=$(vm_dmesg_since | grep 'timed out' | head -n 1 || true)
[ -z "$dmesg_fail" ] || die "the blk-mq backstop failed a request of a live target: $dmesg_fail"
[ "$rc" = 0 ] || die "the writes over a slow but live link failed (status $rc): $(grep -m1 -i error /tmp/67-fio.out)"
(((m1 - m0) > 8000)) || die "the writes took $((m1 - m0)) ms: not longer than aoe_deadsecs + 5 s, the scenario did not make the case"
pp timeout 60 fio --name=slow --filename=/dev/etherd/e1.2 --ioengine=libaio --direct=1 \
	--rw=write --bs=64k --iodepth=16 --size=1M --verify=crc32c --verify_only \
	--output=/tmp/67-verify.out ||
	die "the data written over the slow link reads back wrong: $(grep -m1 -i -E 'error|bad' /tmp/67-verify.out)"
log "1 MiB written over the slow link reads back right"
vm_unload_aoe
