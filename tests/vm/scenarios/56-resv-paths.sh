#!/bin/bash
# needs: aoe.ko
# timeout: 420
# kernels: 6.12 (the module's own protocol logic, no kernel interface the two series differ in: the whole suite runs it once, make test's 45 min budget)
# Reservations and path health, control requests sent again:
#
#   a0 <--veth--> a0p [br0] b0p <--veth--> b0 (vblade 1 2 b0 /dev/ram0): port 1
#   a1 <--veth--> a1p [br0]
#   a2 <--veth--> b2 (vblade 1 2 b2 /dev/ram0, started for step 4): port 2
#   a3 <--veth--> b3, a4 <--veth--> b4 (aoe-fastd e1.3 on b3 and b4,
#   --reserved-for a3's MAC: it refuses IDENTIFY too, which vblade answers)
#
# 1. A change sent again: every answer delayed 1.2 s (netem on a0 and a1),
#    so the module sends the Reserve/Release set three times (500 ms apart)
#    and the first copy's answer comes after the third went out; the second
#    copy is refused (error 6: the first one reserved the target for a MAC
#    that is not the sender's). aoe-reserve reports success and the list.
# 2. Port 1 reserved for a0's MAC (a1's frames are refused with error 6), a
#    4 MiB write runs, and a0 loses every frame for 6 s: a0 must not be set
#    down (a1 only refuses, it is no working path), frames must not fail for
#    the refusals they got over the burst (the refusal budget is per try on
#    the other paths, not per life), and the write completes with its data.
# 3. IDENTIFY refused on a4 (error 6): a4 is never verified (a refused
#    IDENTIFY fails that path's check, it is not resent on a3); IDENTIFY
#    (aoe-revalidate e1.3, 4 times) goes over a3, refusals count as
#    reserve conflicts, not as ATA errors, and e1.3 stays up.
# 4. Port 2 (a2, not reserved) added; port 1 reserved for R (a0 or a1,
#    whichever the round robin puts before the other, F). A 512-byte write
#    goes out first on R, which holds it (netem delay 500 ms, queue of one
#    frame), times out, goes again on F (refused) and then on a2 (answered).
#    The late answer to R's copy is a copy the engine knew was out (its
#    ghost takes it): R must not be suspected of duplicating frames, so 8
#    plain writes after it leave no fence ghost.
# 5. A requester that goes away: 64 Query Config reads (10 s timeout) to a
#    silent target from one socket (aoe-ctlflood), closed at once; their
#    requests must go with the socket (NETLINK_URELEASE), so one more right
#    after is not refused as "too many control requests pending" (EBUSY).
# 6. Step 1 again over raw sockets (aoe-reserve --raw -i a0): the tool's own
#    copies follow the same rule.
# Every step runs (the module is loaded again between steps); the failures
# are listed at the end.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

disk=$(vm_ramdisk 64)
vm_bridged a0 b0
vm_veth a1 a1p
pp ip link set a1p master br0
vm_veth a2 b2
vm_veth a3 b3
vm_veth a4 b4
vm_vblade 1 2 b0 "$disk"
fails=()
bad() { log "FAILED: $*"; fails+=("$*"); }
# up NPATHS: the module loaded afresh, e1.2 up with NPATHS paths, released.
up() {
	[ ! -e /sys/module/aoe ] || vm_unload_aoe
	vm_load_aoe aoe_iflist=a0,a1,a2,a3,a4 aoe_deadsecs=20
	pp aoe-discover >/dev/null || true
	vm_aoe_up e1.2
	vm_wait_for "[ \$(vm_target_json e1.2 | jq '.paths | length') = $1 ]" 10 || die "e1.2 does not have $1 paths"
	pp aoe-reserve e1.2 --release --force >/dev/null || die "the forced release failed"
}
up 2
a0mac=$(vm_mac a0)
pathj() { vm_target_json e1.2 | jq -r --arg i "$1" --arg k "$2" '.paths[] | select(.interface == $i) | .[$k]'; }
pathc() { vm_target_json e1.2 | jq -r --arg i "$1" --arg c "$2" '.paths[] | select(.interface == $i) | .counters[$c] // 0'; }

# 1. A reservation whose first copy is answered late.
pp tc qdisc add dev a0 root netem delay 1200ms
pp tc qdisc add dev a1 root netem delay 1200ms
rc=0
aoe-reserve --json e1.2 --reserve 02:00:00:00:99:97 >/tmp/r1.json 2>/tmp/r1.err || rc=$?
cat /tmp/r1.json /tmp/r1.err
pp tc qdisc del dev a0 root
pp tc qdisc del dev a1 root
if [ "$rc" != 0 ]; then
	bad "1: a reservation sent again was reported as failed (exit $rc) although its first copy took"
elif ! jq -e '(.paths | length) >= 1 and all(.paths[]; .ok and .reserved == ["02:00:00:00:99:97"] and .tries >= 3)' /tmp/r1.json >/dev/null; then
	bad "1: the reservation sent again does not report success with the list after 3 or more copies"
fi
aoe-reserve --json e1.2 | jq -e 'all(.paths[]; .reserved == ["02:00:00:00:99:97"])' >/dev/null ||
	bad "1: the target is not reserved as asked"
up 2

# 2. Loss burst on the reserved path.
pp aoe-reserve e1.2 --reserve "$a0mac" || die "aoe-reserve --reserve a0 failed"
pp dd if=/dev/urandom of=/tmp/data bs=64k count=64 status=none
vm_dmesg_mark
rc=0
t0=$(pathc a0 timeouts)
# the burst starts with the write, so that it cannot end before
pp tc qdisc add dev a0 root netem loss 100%
timeout $((60 * AOE_SLOW)) dd if=/tmp/data of=/dev/etherd/e1.2 bs=64k oflag=direct status=none 2>/tmp/dd.err &
ddpid=$!
sleep 6
pp tc qdisc del dev a0 root
wait "$ddpid" || rc=$?
cat /tmp/dd.err
vm_dmesg_since | grep -E "e1.2|aoe" || true
log "a0: state $(pathj a0 state), timeouts $(pathc a0 timeouts); a1: reserve_conflicts $(pathc a1 reserve_conflicts)"
! vm_dmesg_since | grepq "path a0 .* stops carrying I/O" ||
	bad "2: a0, the only path the reservation permits, was set down although a1 only refused"
[ "$(pathj a0 state)" = up ] || bad "2: a0 is not up after the loss burst"
[ "$(pathc a0 timeouts)" -gt "$t0" ] || bad "2: no frame timed out on a0: the burst missed the write, the step proves nothing"
if [ "$rc" != 0 ]; then
	bad "2: the write failed after a loss burst on the reserved path (exit $rc)"
else
	pp timeout $((30 * AOE_SLOW)) dd if=/dev/etherd/e1.2 of=/tmp/back bs=64k count=64 iflag=direct status=none
	cmp /tmp/data /tmp/back || bad "2: e1.2 reads back other data"
fi

# 3. IDENTIFY refused on a4.
vm_fastd -i b3 -i b4 --shelf 1 --slot 3 --reserved-for "$(vm_mac a3)"
pp aoe-discover >/dev/null || true
vm_aoe_up e1.3
# a4's IDENTIFY is refused: a4 is never verified (its check is not resent on
# a3, whose answer would say nothing about the device behind a4)
e0=$(vm_counter e1.3 ata_errors)
r0=$(vm_counter e1.3 reserve_conflicts)
a4up() { vm_target_json e1.3 | jq -e '[.paths[] | select(.interface == "a4" and .state == "up")] | length > 0' >/dev/null; }
for _ in 1 2 3 4 5 6; do
	pp aoe-discover >/dev/null || true
	sleep 1
	! a4up || break
done
if a4up; then
	bad "3: a4, whose IDENTIFY the target refuses, is up: verified by an answer over another path"
fi
for _ in 1 2 3 4; do
	pp aoe-revalidate e1.3 || die "aoe-revalidate failed"
	sleep 0.5
done
sleep 1
e1=$(vm_counter e1.3 ata_errors)
r1=$(vm_counter e1.3 reserve_conflicts)
vm_fastd_ctl status
log "IDENTIFY x4: ata_errors $e0 -> $e1, reserve_conflicts $r0 -> $r1, aoe-fastd refused $(vm_fastd_counter refused)"
[ "$e1" = "$e0" ] || bad "3: IDENTIFY refusals (error 6) were counted as ATA errors ($e0 -> $e1)"
[ "$r1" -gt "$r0" ] || bad "3: no IDENTIFY refusal counted as a reserve conflict ($r0 -> $r1)"
[ "$(vm_target_json e1.3 | jq -r .state)" = up ] || bad "3: e1.3 is not up after IDENTIFY refusals"
vm_fastd_stop >/dev/null
up 2

# 4. A refused retransmission must not make the earlier copy's answer "late".
vm_vblade 1 2 b2 "$disk"
up 3
# R holds port 1's reservation, F is refused: F follows R in the round
# robin (the order of e1.2's paths), a2 follows F
order=$(vm_target_json e1.2 | jq -r '[.paths[].interface] | join(" ")')
case " $order $order " in
*" a0 a1 "*) R=a0 F=a1 ;;
*) R=a1 F=a0 ;;
esac
log "paths: $order; reserved for $R, $F refused"
pp aoe-reserve --raw -i "$R" e1.2 --reserve "$(vm_mac "$R")" || die "the raw reservation of port 1 for $R failed"
seq=0
wr() { seq=$((seq + 1)); dd if=/tmp/data of=/dev/etherd/e1.2 bs=512 count=1 seek=$((1000 + seq)) oflag=direct status=none; }
# from one aoe-stat --json snapshot FILE: path counter, target counter, drops
spc() { jq -r --arg i "$2" --arg c "$3" '.targets[] | select(.device == "e1.2") | .paths[] | select(.interface == $i) | .counters[$c] // 0' "$1"; }
stc() { jq -r --arg c "$2" '.targets[] | select(.device == "e1.2") | .counters[$c] // 0' "$1"; }
sdr() { jq -r --arg r "$2" '.module.drops[$r] // 0' "$1"; }
done4=
for attempt in 1 2 3; do
	# control: 8 writes before, no ghost (else a path is suspected already)
	aoe-stat --json >/tmp/c0.json
	for _ in 1 2 3 4 5 6 7 8; do wr; done
	aoe-stat --json >/tmp/c1.json
	gc=$(($(stc /tmp/c1.json fence_ghosts) - $(stc /tmp/c0.json fence_ghosts)))
	# leave the round robin on a2 (a write first refused on F goes on
	# there); F is not avoided 2 s after its refusal, so the next write
	# starts on R
	for _ in 1 2 3; do
		aoe-stat --json >/tmp/p0.json
		wr
		aoe-stat --json >/tmp/p1.json
		[ "$(spc /tmp/p1.json a2 frames_sent)" = "$(spc /tmp/p0.json a2 frames_sent)" ] || break
	done
	sleep 2.3
	aoe-stat --json >/tmp/s0.json
	pp tc qdisc add dev "$R" root netem delay 500ms limit 1
	wr
	sleep 1
	pp tc qdisc del dev "$R" root
	aoe-stat --json >/tmp/s1.json
	for _ in 1 2 3 4 5 6 7 8; do wr; done
	aoe-stat --json >/tmp/s2.json
	g0=$(stc /tmp/s1.json fence_ghosts)
	g1=$(stc /tmp/s2.json fence_ghosts)
	ref=$(($(spc /tmp/s1.json "$F" reserve_conflicts) - $(spc /tmp/s0.json "$F" reserve_conflicts)))
	late=$(($(sdr /tmp/s1.json late) - $(sdr /tmp/s0.json late)))
	rre=$(($(spc /tmp/s1.json "$R" retransmits) - $(spc /tmp/s0.json "$R" retransmits)))
	fre=$(($(spc /tmp/s1.json "$F" retransmits) - $(spc /tmp/s0.json "$F" retransmits)))
	a2re=$(($(spc /tmp/s1.json a2 retransmits) - $(spc /tmp/s0.json a2 retransmits)))
	# retransmissions among the 8 writes other than after a refusal (a
	# spurious timeout under load): they leave ghosts of their own
	re8=0
	for i in a0 a1 a2; do
		re8=$((re8 + $(spc /tmp/s2.json $i retransmits) - $(spc /tmp/s1.json $i retransmits)))
	done
	re8=$((re8 - ($(spc /tmp/s2.json "$F" reserve_conflicts) - $(spc /tmp/s1.json "$F" reserve_conflicts))))
	log "attempt $attempt: 8 writes before: ghosts +$gc; $F refusals +$ref, late answers +$late, retransmits $R/$F/a2 +$rre/+$fre/+$a2re; 8 writes after: ghosts $g0 -> $g1, retransmits not after a refusal $re8"
	if [ "$gc" = 0 ] && [ "$ref" = 1 ] && [ "$late" -ge 1 ] && [ "$fre" = 1 ] && [ "$a2re" = 1 ] && [ "$re8" = 0 ]; then
		done4=1
		break
	fi
	sleep 2.3
done
if [ -z "$done4" ]; then
	bad "4: never got its sequence ($R timed out, $F refused, $R's copy answered late, then 8 writes without a retransmission)"
elif [ "$g1" != "$g0" ]; then
	bad "4: 8 plain writes left $((g1 - g0)) fence ghosts: $R is suspected of duplicating after a refusal"
fi
pp aoe-reserve e1.2 --release --force || die "the release failed"

# 5. Requesters that went away: 64 requests (10 s timeout) to a silent
# target from one socket, closed at once; then one more.
pp tc qdisc add dev a0 root netem loss 100%
pp tc qdisc add dev a1 root netem loss 100%
pp tc qdisc add dev a2 root netem loss 100%
aoe-ctlflood 64 1 2 10000 | tee /tmp/f1 || true
grep -q "^accepted 64 " /tmp/f1 || die "64 requests were not all accepted: $(cat /tmp/f1)"
sleep 0.5
aoe-ctlflood 1 1 2 1000 | tee /tmp/f2 || true
pp tc qdisc del dev a0 root
pp tc qdisc del dev a1 root
pp tc qdisc del dev a2 root
grep -q "^accepted 1 " /tmp/f2 ||
	bad "5: a request after 64 of a closed socket was not accepted ($(cat /tmp/f2)): their slots are still held"

# 6. Step 1 over raw sockets (aoe-reserve's own copies, the same rule).
pp aoe-reserve e1.2 --release --force >/dev/null
# only Reserve/Release frames (AoE command 3, byte 5 after the Ethernet
# header) are delayed: the tool's Query Config lookup waits only 700 ms
pp tc qdisc add dev a0 root handle 1: prio
pp tc qdisc add dev a0 parent 1:3 handle 30: netem delay 1200ms
pp tc filter add dev a0 parent 1: protocol all u32 match u8 0x03 0xff at 5 flowid 1:3
rc=0
aoe-reserve --raw -i a0 --json e1.2 --reserve 02:00:00:00:99:96 >/tmp/r6.json 2>/tmp/r6.err || rc=$?
cat /tmp/r6.json /tmp/r6.err
pp tc qdisc del dev a0 root
if [ "$rc" != 0 ]; then
	bad "6: a raw reservation sent again was reported as failed (exit $rc) although its first copy took"
elif ! jq -e '.via == "raw" and all(.paths[]; .ok and .reserved == ["02:00:00:00:99:96"] and .tries >= 3)' /tmp/r6.json >/dev/null; then
	bad "6: the raw reservation sent again does not report success with the list after 3 or more copies"
fi
pp aoe-reserve e1.2 --release --force >/dev/null

[ "${#fails[@]}" = 0 ] || die "$(printf '%s; ' "${fails[@]}")"
log "refusals are no path health, no retry budget, no lost copy; a change sent again reports its success"
