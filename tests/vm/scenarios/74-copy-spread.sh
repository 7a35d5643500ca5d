#!/bin/bash
# needs: aoe.ko aoe_ktgt.ko
# timeout: 300
# Read data copied on another CPU (aoe_copy_spread, steer.c): an answer is
# processed where it arrives, its data copied into the request and the
# request ended on another CPU.
#
#   a0 (aoe.ko) <--veth--> b0 (aoe_ktgt ifaces=b0 slots=2), MTU 9000
#
# fio reads e1.2 from a job pinned to CPU 0, so every answer arrives on
# CPU 0 (a veth delivers on the sender's CPU). Counted per CPU: the answers
# processed (aoe_frame_answered) and the requests ended (block_rq_complete
# of e1.2):
# - aoe_copy_spread=1: the answers on CPU 0, at least 75 % of the requests
#   ended elsewhere; fio crc32c verifies pass from either CPU, on a clean
#   link and with 2 % of frames lost each way (retransmissions, late
#   answers); nothing dropped for a full queue
# - aoe_copy_spread=0 (set at run time): at least 90 % ended on CPU 0
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

[ "$(nproc)" -ge 2 ] || die "needs 2 vCPUs, has $(nproc)"
tr=/sys/kernel/tracing
vm_tracefs

vm_veth a0 b0 9000
vm_ktgt b0 64 2
vm_load_aoe aoe_iflist=a0 aoe_copy_spread=1
vm_aoe_up e1.2
dev=/dev/etherd/e1.2
majmin=$(printf '%d,%d' "0x$(stat -c %t $dev)" "0x$(stat -c %T $dev)")
drops0=$(vm_drops no_memory)

# reads FILE: 1 MiB sequential reads at qd 8 on e1.2 from CPU 0 for 3 s
# (times AOE_SLOW: a debug kernel reads 10 MB/s);
# "EVENT CPU COUNT" lines into FILE (answered, ended)
reads() {
	local d c a e
	: >$tr/trace
	echo 1 >$tr/events/aoe/aoe_frame_answered/enable
	echo 1 >$tr/events/block/block_rq_complete/enable
	timeout -k 5 $((60 * AOE_SLOW)) fio --ioengine=libaio --direct=1 --rw=read --bs=1M \
		--iodepth=8 --time_based --runtime=$((3 * AOE_SLOW)) --size=64M --cpus_allowed=0 --eta=never \
		--name=r2 --filename=$dev --output=/tmp/fio-reads.out ||
		die "fio reads failed: $(tail -n 5 /tmp/fio-reads.out)"
	echo 0 >$tr/events/block/block_rq_complete/enable
	echo 0 >$tr/events/aoe/aoe_frame_answered/enable
	grep -E 'READ:' /tmp/fio-reads.out >&2 || true
	: >"$1"
	for d in "$tr"/per_cpu/cpu[0-9]*; do
		c=${d##*cpu}
		a=$(grep -c "aoe_frame_answered: e1.2 " "$d/trace" || true)
		e=$(grep -c "block_rq_complete: $majmin " "$d/trace" || true)
		echo "answered $c $a" >>"$1"
		echo "ended $c $e" >>"$1"
	done
	log "$1: answered per CPU: $(awk '$1 == "answered" { printf "%s:%s ", $2, $3 }' "$1")"
	log "$1: ended per CPU: $(awk '$1 == "ended" { printf "%s:%s ", $2, $3 }' "$1")"
}
# count FILE EVENT [CPU]: EVENT's count on CPU (all CPUs without)
count() { awk -v e="$2" -v c="${3:-}" '$1 == e && (c == "" || $2 == c) { s += $3 } END { print s + 0 }' "$1"; }

reads /tmp/spread
all=$(count /tmp/spread ended)
on0=$(count /tmp/spread ended 0)
[ "$all" -ge 30 ] || die "too few requests traced ($all)"
[ "$(count /tmp/spread answered 0)" -ge $(($(count /tmp/spread answered) * 9 / 10)) ] ||
	die "the answers were not processed where they arrived (CPU 0)"
# (a copy that waited 100 ms on CPU 1 is made by the next answer on CPU 0:
# with the other kernel's VM beside this one a vCPU is descheduled that
# long now and then)
[ $((all - on0)) -ge $((all * 3 / 4)) ] ||
	die "aoe_copy_spread=1: $on0 of $all requests ended on the answers' CPU 0"

# the data, copied on the other CPU: fio on either CPU, then with frames lost
FIO_TIMEOUT=200 vm_fio_verify $dev 4 --cpus_allowed=0
FIO_TIMEOUT=200 vm_fio_verify $dev 4 --cpus_allowed=1
pp tc qdisc add dev a0 root netem loss 2%
pp tc qdisc add dev b0 root netem loss 2%
r0=$(vm_counter e1.2 retransmits)
FIO_TIMEOUT=300 vm_fio_verify $dev 4 --cpus_allowed=0
r1=$(vm_counter e1.2 retransmits)
log "retransmits under 2 % loss: $r0 -> $r1"
[ "$r1" -gt "$r0" ] || die "no frame was sent again under 2 % loss: the loss path was not exercised"
pp tc qdisc del dev a0 root
pp tc qdisc del dev b0 root
drops1=$(vm_drops no_memory)
[ "$drops1" = "$drops0" ] || die "$((drops1 - drops0)) answers dropped for want of memory"

pp sh -c 'echo 0 >/sys/module/aoe/parameters/aoe_copy_spread'
reads /tmp/here
all=$(count /tmp/here ended)
on0=$(count /tmp/here ended 0)
[ "$on0" -ge $((all * 9 / 10)) ] ||
	die "aoe_copy_spread=0: only $on0 of $all requests ended on the answers' CPU 0"
[ "$(vm_ktgt_counter 2 errors)" = 0 ] || die "e1.2: aoe_ktgt answered ATA errors"
vm_unload_aoe
vm_ktgt_stop
