#!/bin/bash
# needs: aoe.ko
# timeout: 120
# kernels: 6.12 (the module's own protocol logic or a tool, no kernel interface the two series differ in: the whole suite runs it on one series, balanced for the 45 min budget; make test-full and a named run: every kernel)
# Deadlines hold whatever the timer's lateness (issue 12, item 4):
#
#   a0 (aoe.ko) <--veth--> b0 (vblade 1 2 b0 /dev/ram0)
#
# 1. aoe_test_faults=1 (every timer tick counts as late: no timeouts, no
#    retransmissions) and aoe_deadsecs=3: vblade is killed under a reader;
#    the read fails within aoe_deadsecs + 2 s and the target goes down (on
#    a slow kernel, after one more read: see below).
# 2. aoe_test_faults=3 (late ticks and the engine's own deadlines off):
#    loaded with aoe_deadsecs=30; vblade killed under a writer and
#    aoe_deadsecs lowered to 3 right after: the blk-mq timeout handler (the
#    backstop) fails the write in flight within aoe_deadsecs + its 5 s
#    margin + 2 s (+ slack) and says so in the kernel log.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

disk=$(vm_ramdisk 256)
vm_veth a0 b0
start_vblade() {
	log "vblade 1 2 b0 $disk"
	vblade 1 2 b0 "$disk" >>/tmp/vblade.log 2>&1 &
	vb=$!
	_vm_pids+=("$vb")
	sleep 0.3
	kill -0 $vb || die "vblade did not start: $(cat /tmp/vblade.log)"
}
slack=$((2000 * AOE_SLOW))
after_kill=""

# run_and_kill WHAT LIMIT_MS CMD...: start CMD (bounded by 60 s), kill vblade
# after 1 s; CMD must fail within LIMIT_MS of the kill.
run_and_kill() {
	local what=$1 limit=$2 rc m0 m1
	shift 2
	rm -f /tmp/io.rc
	(timeout 60 "$@" 2>/tmp/io.err && echo 0 >/tmp/io.rc || echo $? >/tmp/io.rc) &
	io=$!
	sleep 1
	kill -0 $io || die "$what ended before the target was killed: $(cat /tmp/io.err)"
	m0=$(vm_ms)
	pp kill $vb
	wait $vb 2>/dev/null || true
	[ -z "$after_kill" ] || pp sh -c "$after_kill"
	if ! vm_wait_for "! kill -0 $io" $(((limit + 999) / 1000 + 2)); then
		aoe-stat -a || true
		die "$what still blocked $(($(vm_ms) - m0)) ms after the target died (limit $limit ms)"
	fi
	m1=$(vm_ms)
	wait $io || true
	rc=$(cat /tmp/io.rc)
	echo "AOE-LATE $what ended $((m1 - m0)) ms after vblade was killed, status $rc: $(head -c 200 /tmp/io.err)"
	[ "$rc" != 0 ] || die "$what succeeded although the target died"
	[ "$rc" != 124 ] || die "$what timed out instead of failing"
	[ $((m1 - m0)) -le "$limit" ] || die "$what failed after $((m1 - m0)) ms, limit $limit ms"
}

# 1. late ticks: the engine's deadline still holds
start_vblade
vm_load_aoe aoe_iflist=a0 aoe_deadsecs=3 aoe_test_faults=1
vm_aoe_up e1.2
run_and_kill "read (late ticks)" $((3000 + slack)) \
	dd if=/dev/etherd/e1.2 of=/dev/null bs=64k iflag=direct count=100000
# The target goes down when a frame reaches its deadline after aoe_deadsecs
# of silence. On a slow (debug) kernel the frame that failed may have been
# sent before the target's last answer: then one more read fails within the
# deadline, and that one takes the target down.
if ! vm_wait_for "grep -q '^down' '/sys/block/etherd!e1.2/state'" 3; then
	log "still $(vm_sysfs e1.2 state) after the failed read: one more read"
	m0=$(vm_ms)
	if timeout 60 dd if=/dev/etherd/e1.2 of=/dev/null bs=4k count=1 skip=999 iflag=direct status=none; then
		die "a read succeeded although the target is dead"
	fi
	[ $(($(vm_ms) - m0)) -le $((3000 + slack)) ] ||
		die "the second read failed after $(($(vm_ms) - m0)) ms, limit $((3000 + slack)) ms"
	vm_wait_for "grep -q '^down' '/sys/block/etherd!e1.2/state'" 3 ||
		die "state '$(vm_sysfs e1.2 state)' after two failed reads, expected down"
fi
vm_unload_aoe

# 2. no engine deadline either: the blk-mq timeout is the backstop
start_vblade
vm_load_aoe aoe_iflist=a0 aoe_deadsecs=30 aoe_test_faults=3
vm_aoe_up e1.2
vm_dmesg_mark
# lowered while the write is in flight: it applies to that write too
after_kill='echo 3 > /sys/module/aoe/parameters/aoe_deadsecs'
run_and_kill "write (no engine deadline)" $((3000 + 5000 + 2000 + slack)) \
	dd if=/dev/zero of=/dev/etherd/e1.2 bs=64k oflag=direct count=100000
vm_dmesg_since | grep -E 'e1\.2: .*(timed out|backstop)' ||
	die "no log line from the blk-mq timeout handler"
vm_unload_aoe
