#!/bin/bash
# needs: aoe.ko
# timeout: 120
# kernels: 6.1 (the module's own protocol logic or a tool, no kernel interface the two series differ in: the whole suite runs it on one series, balanced for the 45 min budget; make test-full and a named run: every kernel)
# Failure policy per target (aoe-set, aoe(4) FAILURE POLICY):
#
#   a0 <--veth--> b0 (vblade 1 2 b0 /dev/ram0)   e1.2
#   a1 <--veth--> b1 (vblade 1 3 b1 /tmp/d3)     e1.3
#   aoe.ko aoe_deadsecs=30
#
# 1. Bad values are refused in words (exit 2) and by the module parameter
#    (aoe_fast_fail=100000: EINVAL); a change without CAP_NET_ADMIN
#    (setpriv drops it) is refused (exit 1, "permission denied ...
#    CAP_NET_ADMIN") and changes nothing; reading needs no privilege.
# 2. deadsecs 4 on e1.2 only: aoe-stat --json and sysfs show 4 (target) for
#    e1.2 and 30 (module) for e1.3. vblade SIGSTOPped under a reader: the
#    read fails within 4 + 2 s (the global 30 s would not), e1.2 down;
#    SIGCONT + discover: up again, the setting kept.
# 3. fast-fail 2 on both (deadsecs default again: 30): b0 taken down under
#    readers of both: e1.2's read fails within 2 + 2 s, a new read fails at
#    once ("failing": refused, fast_fails stays 1), one log line; e1.3 (its path up) reads
#    on unaffected (fast_fails 0, data checked). b0 up again: e1.2 works.
# 4. aoe_fast_fail as the module default shows as "module"; rmmod with the
#    settings in place.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

disk=$(vm_ramdisk 64)
pp dd if=/dev/urandom of=/tmp/d3 bs=1M count=4 status=none
vm_veth a0 b0
vm_veth a1 b1
# vm_vblade keeps vblade's PID last in _vm_pids: $vb is stopped and resumed
start_vb2() {
	vm_vblade 1 2 b0 "$disk"
	vb=${_vm_pids[-1]}
}
start_vb2
vm_vblade 1 3 b1 /tmp/d3
vm_load_aoe aoe_iflist=a0,a1 aoe_deadsecs=30
vm_aoe_up e1.2
vm_aoe_up e1.3
slack=$((2000 * AOE_SLOW))
pol() { aoe-stat --json | jq -c --arg d "$1" '.targets[] | select(.device == $d) | .policy'; }

# --- 1. bad values, no privilege ---
for bad in "deadsecs 0" "deadsecs 86401" "fast-fail soon" "nice 3"; do
	rc=0
	# shellcheck disable=SC2086
	aoe-set e1.2 $bad >/tmp/o 2>&1 || rc=$?
	log "aoe-set e1.2 $bad: exit $rc: $(head -n 1 /tmp/o)"
	[ "$rc" = 2 ] || die "aoe-set e1.2 $bad exited $rc, expected 2 (usage)"
done
aoe-set e1.2 deadsecs 0 >/tmp/o 2>&1 || true
grep -q 'deadsecs must be 1..86400 seconds, or default' /tmp/o ||
	die "aoe-set deadsecs 0 does not say the range: $(cat /tmp/o)"
rc=0
echo 100000 >/sys/module/aoe/parameters/aoe_fast_fail 2>/dev/null || rc=$?
[ "$rc" != 0 ] || die "aoe_fast_fail=100000 accepted"
dmesg | grepq "aoe_fast_fail: '100000' rejected" || die "no log line for the rejected aoe_fast_fail"
[ "$(cat /sys/module/aoe/parameters/aoe_fast_fail)" = 0 ] || die "aoe_fast_fail changed by a bad value"
rc=0
setpriv --inh-caps=-net_admin --bounding-set=-net_admin -- aoe-set e1.2 deadsecs 5 >/tmp/o 2>&1 || rc=$?
cat /tmp/o
[ "$rc" = 1 ] && grep -q 'permission denied: .*CAP_NET_ADMIN' /tmp/o ||
	die "aoe-set without CAP_NET_ADMIN: exit $rc, no 'permission denied ... CAP_NET_ADMIN'"
setpriv --inh-caps=-net_admin --bounding-set=-net_admin -- aoe-set e1.2 >/tmp/o 2>&1 ||
	die "reading the policy without CAP_NET_ADMIN failed: $(cat /tmp/o)"
cat /tmp/o
grep -q '^e1.2 deadsecs 30 (module) fast-fail off (module)' /tmp/o || die "unexpected policy: $(cat /tmp/o)"

# --- 2. per-target deadsecs ---
pp aoe-set e1.2 deadsecs 4
p2=$(pol e1.2) p3=$(pol e1.3)
log "e1.2 $p2; e1.3 $p3"
[ "$(jq -r '"\(.deadsecs) \(.deadsecs_source) \(.fast_fail)"' <<<"$p2")" = "4 target 0" ] || die "e1.2 policy $p2"
[ "$(jq -r '"\(.deadsecs) \(.deadsecs_source)"' <<<"$p3")" = "30 module" ] || die "e1.3 policy $p3"
[ "$(vm_sysfs e1.2 deadsecs)" = 4 ] && [ "$(vm_sysfs e1.3 deadsecs)" = 30 ] ||
	die "sysfs deadsecs $(vm_sysfs e1.2 deadsecs) / $(vm_sysfs e1.3 deadsecs)"
aoe-stat -a | grep -A0 'policy deadsecs 4 (target)' || die "aoe-stat -a shows no policy line"
(timeout 40 dd if=/dev/etherd/e1.2 of=/dev/null bs=64k iflag=direct count=100000 2>/tmp/dd.err && echo 0 >/tmp/dd.rc || echo $? >/tmp/dd.rc) &
reader=$!
sleep 1
kill -0 $reader || die "reader ended before the target stopped: $(cat /tmp/dd.err)"
m0=$(vm_ms)
pp kill -STOP $vb
vm_wait_for "! kill -0 $reader" 15 || die "reader still blocked 15 s after vblade stopped (deadsecs 4)"
m1=$(vm_ms)
wait $reader || true
rc=$(cat /tmp/dd.rc)
echo "AOE-POLICY deadsecs 4: read failed $((m1 - m0)) ms after vblade stopped (dd status $rc; aoe_deadsecs 30)"
[ "$rc" != 0 ] && [ "$rc" != 124 ] || die "read status $rc: expected an I/O error"
[ $((m1 - m0)) -le $((4000 + slack)) ] || die "I/O failed after $((m1 - m0)) ms, more than deadsecs 4 + $((slack / 1000)) s"
[ $((m1 - m0)) -ge 3500 ] || die "I/O failed after $((m1 - m0)) ms, before deadsecs 4"
vm_wait_for "grep -q '^down' '/sys/block/etherd!e1.2/state'" 3 || die "e1.2 state '$(vm_sysfs e1.2 state)', expected down"
dmesg | grepq 'e1.2: target down: no answer for 4 s' || die "no 'target down: no answer for 4 s' line"
vm_has_target e1.3 && [ "$(vm_sysfs e1.3 state)" = up ] || die "e1.3 not up"
pp kill -CONT $vb
pp sh -c 'echo > /dev/etherd/discover'
vm_aoe_up e1.2 10
[ "$(vm_sysfs e1.2 deadsecs)" = 4 ] || die "deadsecs not kept across down/up: $(vm_sysfs e1.2 deadsecs)"
pp dd if=/dev/etherd/e1.2 of=/dev/null bs=64k count=16 iflag=direct status=none

# --- 3. fast-fail ---
pp aoe-set e1.2 deadsecs default fast-fail 2
pp aoe-set e1.3 fast-fail=2
[ "$(pol e1.2 | jq -r '"\(.deadsecs) \(.deadsecs_source) \(.fast_fail) \(.fast_fail_source)"')" = "30 module 2 target" ] ||
	die "e1.2 policy $(pol e1.2)"
[ "$(vm_sysfs e1.2 fast_fail)" = 2 ] || die "sysfs fast_fail $(vm_sysfs e1.2 fast_fail)"
(timeout 40 dd if=/dev/etherd/e1.2 of=/dev/null bs=64k iflag=direct count=100000 2>/tmp/dd.err && echo 0 >/tmp/dd.rc || echo $? >/tmp/dd.rc) &
reader=$!
# e1.3: reads its first 2 MiB over and over (checked) across the outage
head -c 2097152 /tmp/d3 >/tmp/d3.head
rm -f /tmp/stop3 /tmp/r3.n
(n=0; while [ ! -e /tmp/stop3 ]; do dd if=/dev/etherd/e1.3 of=/tmp/r3 bs=64k count=32 iflag=direct status=none && cmp -s /tmp/r3 /tmp/d3.head || exit 1; n=$((n + 1)); echo $n >/tmp/r3.n; done) &
reader3=$!
sleep 1
kill -0 $reader || die "reader ended before the link went down: $(cat /tmp/dd.err)"
m0=$(vm_ms)
pp ip link set b0 down
vm_wait_for "! kill -0 $reader" 15 || die "reader still blocked 15 s after b0 went down (fast-fail 2)"
m1=$(vm_ms)
wait $reader || true
rc=$(cat /tmp/dd.rc)
echo "AOE-POLICY fast-fail 2: read failed $((m1 - m0)) ms after b0 went down (dd status $rc; deadsecs 30)"
[ "$rc" != 0 ] && [ "$rc" != 124 ] || die "read status $rc: expected an I/O error"
[ $((m1 - m0)) -le $((2000 + slack)) ] || die "I/O failed after $((m1 - m0)) ms, more than fast-fail 2 + $((slack / 1000)) s"
[ $((m1 - m0)) -ge 1500 ] || die "I/O failed after $((m1 - m0)) ms, before fast-fail 2"
m0=$(vm_ms)
rc=0
timeout 10 dd if=/dev/etherd/e1.2 of=/dev/null bs=4k count=1 iflag=direct status=none 2>/dev/null || rc=$?
m1=$(vm_ms)
log "new read while failing: status $rc after $((m1 - m0)) ms"
[ "$rc" != 0 ] && [ "$rc" != 124 ] || die "a new read while failing: status $rc (expected an error)"
# refused at submission, not queued and failed by a second fast-fail (that
# would count fast_fails 2; dd's own start-up under TCG makes timing vague)
p2=$(pol e1.2)
log "e1.2 $p2"
[ "$(jq -r '"\(.failing) \(.fast_fails)"' <<<"$p2")" = "true 1" ] || die "e1.2 policy $p2, expected failing, fast_fails 1"
[ "$(vm_sysfs e1.2 state)" = up ] || die "e1.2 state $(vm_sysfs e1.2 state): fast-fail must leave it up"
[ "$(dmesg | grep -c 'e1.2: no usable path for 2 s: I/O failed (fast-fail)')" = 1 ] || die "not one fast-fail log line"
aoe-stat -a | grep 'policy.*failing' || die "aoe-stat -a does not show failing"
n3=$(cat /tmp/r3.n 2>/dev/null || echo 0)
vm_wait_for "[ \$(cat /tmp/r3.n) -ge $((n3 + 1)) ] || ! kill -0 $reader3" 10 || true
touch /tmp/stop3
wait $reader3 || die "e1.3's reads failed or differ while e1.2 had no path"
[ "$(cat /tmp/r3.n)" -gt "$n3" ] || die "e1.3 did not read on after e1.2's fast-fail ($n3 -> $(cat /tmp/r3.n) reads)"
[ "$(pol e1.3 | jq -r '"\(.failing) \(.fast_fails)"')" = "false 0" ] || die "e1.3 policy $(pol e1.3)"
log "e1.3 unaffected: $(cat /tmp/r3.n) reads of 2 MiB checked, $n3 of them before e1.2 failed"
pp ip link set b0 up
kill -0 $vb 2>/dev/null || start_vb2
vm_wait_for "dd if=/dev/etherd/e1.2 of=/dev/null bs=4k count=1 iflag=direct status=none" 10 ||
	die "e1.2 does not read again after b0 came back"
[ "$(pol e1.2 | jq -r .failing)" = false ] || die "still failing after the path came back: $(pol e1.2)"
pp dd if=/dev/urandom of=/tmp/blob bs=1M count=2 status=none
pp dd if=/tmp/blob of=/dev/etherd/e1.2 bs=1M oflag=direct status=none
dd if=/dev/etherd/e1.2 of=/tmp/back bs=1M count=2 iflag=direct status=none
cmp /tmp/blob /tmp/back || die "data read back after the outage differs"
log "e1.2 works again after b0 came back"

# --- 4. the module default, rmmod ---
pp aoe-set e1.3 fast-fail default
pp sh -c 'echo 7 > /sys/module/aoe/parameters/aoe_fast_fail'
[ "$(pol e1.3 | jq -r '"\(.fast_fail) \(.fast_fail_source)"')" = "7 module" ] || die "e1.3 policy $(pol e1.3)"
[ "$(aoe-stat --json | jq -r .module.fast_fail)" = 7 ] || die "module fast_fail not 7 in aoe-stat --json"
aoe-set --json e1.2 | jq -e '.policy.fast_fail == 2 and .policy.fast_fail_source == "target"' >/dev/null ||
	die "aoe-set --json: $(aoe-set --json e1.2)"
vm_unload_aoe
log "unloaded with per-target settings in place"
