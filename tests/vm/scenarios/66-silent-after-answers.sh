#!/bin/bash
# needs: aoe.ko
# timeout: 120
# kernels: 6.12 (the module's own protocol logic, no kernel interface the two series differ in: the whole suite runs it on one series, balanced for the 45 min budget; make test-full and a named run: every kernel)
# A target that goes silent after answering part of a request (aoe_deadsecs=5):
#
#   a0 (aoe.ko, aoe_deadsecs=5) <--veth--> b0 (aoe-fastd; netem on b0: answers 2 s late, half lost)
#
# One 16 KiB read: its 16 frames go out at once, aoe-fastd answers them
# all, half of the answers (and of the resends') are lost, and 0.05 s later
# the target goes silent ("off"), long before the first answer comes back:
# on a slow VM (a debug kernel's, beside another) "off" took over 0.3 s,
# the answers of a 300 ms delay reopened the window, and the resends they
# let out were answered too: the read succeeded. Every frame left was sent before the
# target's last answer, so each one fails at its own deadline as "the
# target answers, but never this frame", and with them the read. The target
# must then be declared down a deadline after its last answer, although no
# frame is left in flight to find that (CI, 35-target-kill: a dead target
# stayed "up" when its reader's only request failed this way). Step 2: the
# target back and idle right after the read failed is not taken for dead.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

# silent_read WHAT DELAY SKIP: a fresh module, e1.2 up and answered; then
# answers DELAY late and half lost, one 16 KiB read at block SKIP and, 0.05 s
# later, the target silent ("off"). Sets m0 (the read began), m1 (it
# ended) and rc (its status).
silent_read() {
	local what=$1 delay=$2 skip=$3 reader
	vm_load_aoe aoe_iflist=a0 aoe_deadsecs=5
	vm_aoe_up e1.2
	pp dd if=/dev/etherd/e1.2 of=/dev/null bs=16k count=64 iflag=direct status=none
	pp tc qdisc add dev b0 root netem delay "$delay" loss 50%
	m0=$(vm_ms)
	(dd if=/dev/etherd/e1.2 of=/dev/null bs=16k count=1 skip="$skip" iflag=direct status=none 2>/tmp/dd.err && echo 0 >/tmp/dd.rc || echo $? >/tmp/dd.rc) &
	reader=$!
	# before the second resend (RTO 40 ms, then 80 ms backed off, from
	# the exact-expiry timer: 41 and 122 ms), which a loaded VM's longer
	# 0.1 s reached: its answers made the read succeed
	sleep 0.05
	vm_fastd_ctl off
	vm_wait_for "! kill -0 $reader" 15 || die "${what}the read still blocked 15 s after the target went silent (aoe_deadsecs=5)"
	m1=$(vm_ms)
	wait $reader || true
	rc=$(cat /tmp/dd.rc)
}

vm_veth a0 b0
vm_fastd -i b0 -s 64M

silent_read "" 2000ms 100
log "the read ended $((m1 - m0)) ms after it began, status $rc: $(cat /tmp/dd.err)"
aoe-stat --json | jq -c '.targets[] | select(.device == "e1.2") | {state, counters: (.counters | {retransmits, timeouts, lost})}'
if [ "$rc" = 0 ]; then
	# every frame got an answer before the silence: nothing to test
	die "the read succeeded: no frame was left unanswered (the scenario did not make the case)"
fi
[ "$(vm_counter e1.2 lost)" -gt 0 ] || die "no frame counted lost: the read did not fail as 'the target answers, but never this frame'"
vm_wait_for "grep -q '^down' '/sys/block/etherd!e1.2/state'" 4 ||
	die "state '$(vm_sysfs e1.2 state)' $(($(vm_ms) - m1)) ms after its read failed, expected down (the silent target was never declared dead)"
log "state: $(vm_sysfs e1.2 state) $(($(vm_ms) - m1)) ms after the read failed"
pp tc qdisc del dev b0 root
vm_fastd_ctl on
vm_unload_aoe

# Step 2: the same, but answers held 3 s, and the target back (and idle)
# as soon as the read failed: it is alive, and must not be taken for dead
# a deadline after its last answer (the path, down after its timeouts, is
# probed every second: the answer shows the target alive).
silent_read "step 2: " 3000ms 200
pp tc qdisc del dev b0 root
vm_fastd_ctl on
log "step 2: the read ended $((m1 - m0)) ms after it began, status $rc; the target answers again"
[ "$rc" != 0 ] || die "step 2: the read succeeded: no frame was left unanswered (the step did not make the case)"
# its last answer came about 3 s after the read began: a deadline after
# that (5 s) and 2 s more, it must still be up (a slow VM may be past it)
wait_s=$(((3000 + 5000 + 2000 - ($(vm_ms) - m0)) / 1000 + 1))
[ "$wait_s" -le 0 ] || sleep "$wait_s"
st=$(vm_sysfs e1.2 state)
log "step 2: state $st $(($(vm_ms) - m0)) ms after the read began"
case $st in
up*) ;;
*) die "step 2: state '$st': the target, alive and answering again, was taken for dead" ;;
esac
vm_unload_aoe
