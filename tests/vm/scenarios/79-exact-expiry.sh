#!/bin/bash
# needs: aoe.ko
# timeout: 180
# kernels: 6.12 (the module's own timer logic, hrtimers alike on both series: the whole suite runs it on one series, balanced for the 45 min budget; make test-full and a named run: every kernel)
# A loss is acted on when its timer expires, not at the next timer tick
# (issue 14, doc/lock-split.md S10):
#
#   a0 (aoe.ko) <--veth, netem on b0--> b0 (aoe_ktgt, e1.2)
#
# 8 KiB O_DIRECT reads at queue depth 1 over MTU 1500, 4 s a phase: each
# read is 8 frames. From the trace (aoe_frame_sent with its tag,
# aoe_frame_retransmit from that tag, aoe_frame_timeout's waited_us and
# rto_us):
# 1. every answer 2 ms late from the start (the smallest round trip the
#    module knows is then 2 ms) and 3 % lost: the RACK window (the last
#    answer's round trip plus a quarter of the smallest) outlasts the 8
#    sends, so a lost answer among the first 5 is still inside it at the
#    read's last answer, and nothing more is in flight: the tail case.
#    Frames resent sooner than the smallest RTO (40 ms) were found by RACK:
#    the median from their send to their resend is at most 5 ms (the
#    answers' 2 ms, then the window: 3.2 ms measured; a 10 ms tick made it
#    9.6 ms);
# 2. 3 % of answers lost, no delay: a lost answer among the last 3 of a read
#    is found by its RTO: the median of waited_us - rto_us is at most 2 ms
#    and none fires early (a 10 ms tick made the median 5.2-5.9 ms);
# 3. the reads' data is the target's: a pattern written before the loss
#    reads back (md5).
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

dev=/dev/etherd/e1.2
vm_veth a0 b0
tr=/sys/kernel/tracing
vm_tracefs
echo mono >$tr/trace_clock   # sends and resends on either vCPU: one clock
vm_ktgt b0 64 2
pp tc qdisc replace dev b0 root netem delay 2ms
vm_load_aoe aoe_iflist=a0
vm_aoe_up e1.2
pp dd if=/dev/urandom of=/tmp/pat bs=1M count=4 status=none
pp dd if=/tmp/pat of=$dev bs=1M count=4 oflag=direct status=none
want=$(md5sum </tmp/pat)

for e in aoe_frame_sent aoe_frame_retransmit aoe_frame_timeout; do
	echo 1 >$tr/events/aoe/$e/enable
done
median() { awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print -1 }'; }

# phase NAME NETEM...: 8 KiB reads at qd 1 for 4 s under NETEM on b0; the
# delays found in the trace go to /tmp/NAME.rack (send to resend, us, under
# 40 ms) and /tmp/NAME.rto (waited_us - rto_us), sorted.
phase() {
	local name=$1 end n=0 reader
	shift
	: >$tr/trace
	cat $tr/trace_pipe >/tmp/trace &
	reader=$!
	pp tc qdisc replace dev b0 root netem "$@"
	end=$(($(vm_ms) + 4000 * AOE_SLOW))
	while [ "$(vm_ms)" -lt "$end" ]; do
		dd if=$dev of=/dev/null bs=8k count=64 skip=$(((n * 64) % 512)) iflag=direct status=none ||
			die "$name: a read failed under netem $*"
		n=$((n + 1))
	done
	pp tc qdisc del dev b0 root
	sleep 0.5
	kill $reader
	wait $reader 2>/dev/null || true
	log "$name: $((n * 64)) reads of 8 KiB, $(wc -l </tmp/trace) trace lines"
	# "<ts>: aoe_frame_sent: e1.2 if3 <mac> tag 0000002a R lba 6144 sectors 2 tries 0"
	# "<ts>: aoe_frame_retransmit: e1.2 tag <old> if3 <mac> -> tag <new> ..."
	# "<ts>: aoe_frame_timeout: e1.2 ... waited_us W rto_us R"
	awk '
	function ts(   i) { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) return substr($i, 1, length($i) - 1) + 0; return -1 }
	function after(k,   i) { for (i = 1; i < NF; i++) if ($i == k) return $(i + 1); return "" }
	/aoe_frame_sent:/ { sent[after("tag")] = ts() }
	/aoe_frame_retransmit:/ {
		old = after("tag")
		if (old in sent) { d = (ts() - sent[old]) * 1e6; if (d < 40000) print "rack", int(d) }
	}
	/aoe_frame_timeout:/ { print "rto", after("waited_us") - after("rto_us") }
	' /tmp/trace >/tmp/delays
	awk '$1 == "rack" { print $2 }' /tmp/delays | sort -n >"/tmp/$name.rack"
	awk '$1 == "rto" { print $2 }' /tmp/delays | sort -n >"/tmp/$name.rto"
	echo "AOE-EXPIRY $name: RACK resends $(wc -l <"/tmp/$name.rack"), send to resend median $(median <"/tmp/$name.rack") us (all: $(tr '\n' ' ' <"/tmp/$name.rack" | head -c 300))"
	echo "AOE-EXPIRY $name: RTO expiries $(wc -l <"/tmp/$name.rto"), waited - rto median $(median <"/tmp/$name.rto") us (all: $(tr '\n' ' ' <"/tmp/$name.rto" | head -c 300))"
}

log "1. answers 2 ms late, 3 % lost: RACK's tail case"
phase delay delay 2ms loss 3%
n=$(wc -l </tmp/delay.rack)
m=$(median </tmp/delay.rack)
[ "$n" -ge 5 ] || die "only $n frames found lost by RACK: the scenario did not make the case"
[ "$m" -le $((5000 * AOE_SLOW)) ] ||
	die "RACK losses resent a median $m us after their send (at most 5000): they waited for a tick"

log "2. 3 % of answers lost: RTO expiries"
phase loss loss 3%
n=$(wc -l </tmp/loss.rto)
m=$(median </tmp/loss.rto)
[ "$n" -ge 3 ] || die "only $n RTO expiries: the scenario did not make the case"
[ "$m" -le $((2000 * AOE_SLOW)) ] ||
	die "RTO expiries acted on a median $m us late (at most 2000): they waited for a tick"
[ "$(head -n 1 /tmp/loss.rto)" -ge 0 ] || die "an RTO fired $(head -n 1 /tmp/loss.rto) us early"

log "3. the data"
got=$(dd if=$dev bs=1M count=4 iflag=direct status=none | md5sum)
[ "$got" = "$want" ] || die "the data read back differs from the pattern written"
echo 0 >$tr/events/aoe/enable
log "PASS"
