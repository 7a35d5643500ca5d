#!/bin/bash
# needs: aoe.ko
# timeout: 240
# kernels: 6.12 (the module's own protocol logic, no kernel interface the two series differ in: the whole suite runs it once, make test's 45 min budget)
# Spoofing from the segment: blind tag guesses and a flood of announcements.
#
#   a0 (aoe.ko, netem delay 10 ms) <--veth--> b0 (vblade 1 2 b0 /dev/ram0,
#                                   later vblade 1 3, aoe-inject x 3)
#
# While a fio crc32c verify (4 x 1 MiB, ~8200 frames) runs on e1.2,
# aoe-inject announces 2000 made-up targets (shelf 100.. from made-up MACs:
# more than the 1024 the table holds) and forges ATA READ answers for e1.2
# from vblade's MAC, each carrying 1 KiB of 0x5a: tags 0..8191 over and over
# (tags counted up from 0 per target are hit within seconds) and
# random tags, at a bounded rate for a bounded time. Then: the
# verify has no error, e1.2 is up and reads, a second target started after
# the flood (vblade 1 3) gets in, is identified and keeps data, the forged
# answers are counted as drops (no_tag/late/wrong_path) and the evictions
# that made room as .module.evictions. After 500 more announcements, e1.2
# (held open) goes down in an outage (aoe_deadsecs 3) and must be up again
# within 20 s of its end: its IDENTIFY does not queue behind the made-up
# targets still waiting for theirs. Every check runs; the scenario fails
# at the end with the list of those that did not hold.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

disk=$(vm_ramdisk 256)
vm_veth a0 b0
vm_vblade 1 2 b0 "$disk"
vm_load_aoe aoe_iflist=a0
vm_aoe_up e1.2
# A target that takes 10 ms to answer (a disk seek): a frame stays in flight
# long enough for a guessed tag to land while it is.
pp tc qdisc replace dev a0 root netem delay 10ms limit 10000
amac=$(vm_mac a0)
bmac=$(vm_mac b0)
pp truncate -s 16M /tmp/e13.img
fails=()
fail() { printf 'CHECK FAILED: %s\n' "$*" >&2; fails+=("$*"); }
guessed() { aoe-stat --json | jq '[.module.drops // {} | (.no_tag // 0), (.late // 0), (.wrong_path // 0)] | add'; }
g0=$(guessed)

FIO_TIMEOUT=150
m0=$(vm_ms)
vm_fio_verify /dev/etherd/e1.2 1 >/tmp/fio.log 2>&1 &
fio_pid=$!
# Bounded: at most 400000 frames each in at most 12 s, at most 32 frames
# per ms (sequential: tags 0..8191 again and again, the range a counter from
# 0 covers in this fio run) and 4 per ms (random).
aoe-inject -i b0 -d "$amac" -s "$bmac" --shelf 1 --slot 2 --tags seq --tag-span 8192 \
	-n 400000 -b 32 -w 1000 --duration-ms 12000 ata-guess >/tmp/guess-seq.log 2>&1 &
seq_pid=$!
aoe-inject -i b0 -d "$amac" -s "$bmac" --shelf 1 --slot 2 --tags random --seed 39 \
	-n 400000 -b 4 -w 1000 --duration-ms 12000 ata-guess >/tmp/guess-rnd.log 2>&1 &
rnd_pid=$!
_vm_pids+=("$seq_pid" "$rnd_pid")
pp aoe-inject -i b0 -d "$amac" --shelf 100 -n 2000 config-flood
log "2000 announcements in $(($(vm_ms) - m0)) ms"
rc=0
wait "$fio_pid" || rc=$?
cat /tmp/fio.log
[ "$rc" = 0 ] || fail "fio verify on e1.2 during the spoofing failed (status $rc)"
wait "$seq_pid" || fail "aoe-inject ata-guess seq failed: $(cat /tmp/guess-seq.log)"
wait "$rnd_pid" || fail "aoe-inject ata-guess random failed: $(cat /tmp/guess-rnd.log)"
cat /tmp/guess-seq.log /tmp/guess-rnd.log
log "spoofing over after $(($(vm_ms) - m0)) ms"
sent=$(($(awk '{ print $3 }' /tmp/guess-seq.log) + $(awk '{ print $3 }' /tmp/guess-rnd.log)))

# e1.2 still answers.
vm_wait_for "grep -q '^up' '/sys/block/etherd!e1.2/state'" 10 || fail "e1.2 is not up after the spoofing"
dd if=/dev/etherd/e1.2 of=/dev/null bs=1M count=4 iflag=direct status=none ||
	fail "e1.2 does not read after the spoofing"

# A real target that comes after the flood gets in.
vm_vblade 1 3 b0 /tmp/e13.img
t0=$(vm_ms)
vm_wait_for "aoe-discover -w 1 >/dev/null 2>&1; grep -q '^up' '/sys/block/etherd!e1.3/state'" 30 ||
	fail "e1.3 did not come up after the flood ($(aoe-stat --json | jq '.module.targets') targets known)"
if [ -b /dev/etherd/e1.3 ]; then
	log "e1.3 up $(($(vm_ms) - t0)) ms after its vblade started"
	pp dd if=/dev/urandom of=/tmp/e13.data bs=1M count=2 status=none
	if dd if=/tmp/e13.data of=/dev/etherd/e1.3 bs=1M count=2 oflag=direct status=none &&
		dd if=/dev/etherd/e1.3 of=/tmp/e13.back bs=1M count=2 iflag=direct status=none &&
		cmp -s /tmp/e13.data /tmp/e13.back; then
		log "e1.3: 2 MiB written and read back identical"
	else
		fail "e1.3: data written did not read back"
	fi
fi

# An outage after the flood: e1.2, open, goes down and comes back. Its
# IDENTIFY must not wait behind the made-up targets still queued for one
# (about 1000, 16 at a time, 5 s each: minutes).
pp aoe-inject -i b0 -d "$amac" --shelf 200 -n 500 config-flood
exec 3</dev/etherd/e1.2
pp sh -c 'echo 3 > /sys/module/aoe/parameters/aoe_deadsecs'
pp tc qdisc replace dev b0 root netem loss 100%
dd if=/dev/etherd/e1.2 of=/dev/null bs=4k count=1 skip=77 iflag=direct status=none 2>/dev/null || true
vm_wait_for "! grep -q '^up' '/sys/block/etherd!e1.2/state'" 15 ||
	fail "e1.2 did not go down in the outage"
pp tc qdisc del dev b0 root
t0=$(vm_ms)
if vm_wait_for "aoe-discover -w 1 >/dev/null 2>&1; grep -q '^up' '/sys/block/etherd!e1.2/state'" 20; then
	log "e1.2 up again $(($(vm_ms) - t0)) ms after the outage ended"
	dd if=/dev/etherd/e1.2 of=/dev/null bs=64k count=4 iflag=direct status=none ||
		fail "e1.2 up again, but a read failed"
else
	fail "e1.2 (open) not up 20 s after an outage that followed the flood (state $(cat '/sys/block/etherd!e1.2/state'))"
fi
exec 3<&-
pp sh -c 'echo 180 > /sys/module/aoe/parameters/aoe_deadsecs'

sleep 1
aoe-stat --json | jq -cM '.module | {targets, evictions, drops}'
g1=$(guessed)
echo "AOE-SPOOF forged $sent, dropped as no_tag/late/wrong_path $((g1 - g0))"
[ "$sent" -gt 0 ] || fail "no forged answer was sent"
# Most forged frames must be counted (some may be lost in the receive backlog).
[ $((g1 - g0)) -ge $((sent / 2)) ] || fail "only $((g1 - g0)) of $sent forged answers counted as drops"
ev=$(aoe-stat --json | jq '.module.evictions // -1')
echo "AOE-SPOOF evictions $ev"
[ "$ev" -ge 1 ] || fail "no eviction counted (.module.evictions = $ev) after 2000 announcements"
kill "${_vm_pids[@]}" 2>/dev/null || true
if [ ${#fails[@]} -gt 0 ]; then
	die "$(IFS=';'; echo "${fails[*]}")"
fi
vm_unload_aoe
