#!/bin/bash
# needs: aoe.ko
# timeout: 240
# kernels: 6.12 (the module's own protocol logic, no kernel interface the two series differ in: the whole suite runs it on one series, balanced for the 45 min budget; make test-full and a named run: every kernel)
# A late answer to a frame the initiator itself sent twice (timed out,
# sent again, both copies answered) is no sign that the network duplicates
# frames (the stale-write fence's suspicion, kmod/fence.c): it must not put
# the path under suspicion, which fences every answered write for a second
# (and, the ghost set full, merges the ghosts until most writes wait).
# Found by make bench: qd1 4 KiB random writes after qd1 reads that had
# timed out fell from ~2000 to 26 IOPS (p99 1 s).
#
#   a0 (aoe.ko) <--veth--> b0 (vblade 1 2 b0 /dev/ram0)
#
# 1. qd1 4 KiB random writes for 3 s: the base rate.
# 2. netem holds every answer (b0's egress) 150 ms for 3 s of qd1 reads:
#    each read times out (RTO floor 40 ms) and is sent again, and the answer
#    to one of its transmissions comes after the frame ended: "late" drops,
#    which must be there (the hazard was made).
# 3. The delay gone, qd1 random writes for 3 s (within the 60 s a
#    suspicion lasts): at least a quarter of the base rate (a fenced path
#    gave ~1 %), and no write fenced.
# 4. The same with writes held 150 ms in step 2 (their own copies' ghosts
#    gone after 5 s, past the 4 s cap of a fence time).
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

disk=$(vm_ramdisk 64)
vm_veth a0 b0
vm_vblade 1 2 b0 "$disk"
vm_load_aoe aoe_iflist=a0
vm_aoe_up e1.2 20

# iops RW: fio's IOPS for 3 s of qd1 4 KiB O_DIRECT random RW on e1.2
iops() {
	local dir=${1#rand}
	timeout -k 5 60 fio --name=l --filename=/dev/etherd/e1.2 --ioengine=libaio --direct=1 \
		--rw="$1" --bs=4k --iodepth=1 --time_based --runtime=3 --size=64M --eta=never \
		--output-format=json 2>/dev/null | jq -r --arg d "$dir" '.jobs[0][$d].iops | floor'
}

base=$(iops randwrite)
log "base: $base write IOPS"
[ "${base:-0}" -gt 20 ] || die "qd1 writes ran at ${base:-no} IOPS before anything was done"
# held TEST: step 2 with TEST (randread, randwrite), then step 3
held() {
	local late0 late ghosts0 ghosts got after
	late0=$(vm_drops late)
	pp tc qdisc replace dev b0 root netem delay 150ms
	got=$(iops "$1")
	pp tc qdisc del dev b0 root
	late=$(($(vm_drops late) - late0))
	log "answers held: $got $1 IOPS, $late late answers"
	[ "$late" -gt 0 ] || die "$1: no late answers: nothing was sent twice (RTO not below 150 ms?)"
	# the held writes' own ghosts (copies out when they ended) time out
	[ "$1" = randread ] || sleep 5
	ghosts0=$(vm_counter e1.2 fence_ghosts)
	after=$(iops randwrite)
	ghosts=$(($(vm_counter e1.2 fence_ghosts) - ghosts0))
	log "after: $after write IOPS ($((100 * after / base)) % of the base), $ghosts writes fenced"
	[ $((4 * after)) -ge "$base" ] ||
		die "qd1 writes after late answers to $1: $after IOPS, $((100 * after / base)) % of the $base before (the path taken for one that duplicates?)"
	[ "$ghosts" = 0 ] || die "$ghosts writes fenced after late answers to $1 the initiator sent twice"
	echo "$1: $after write IOPS after $late late answers ($base before)"
}
held randread
held randwrite
echo "PASS: late answers to the initiator's own copies of reads and writes left writes unfenced"
