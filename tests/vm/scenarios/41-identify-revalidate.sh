#!/bin/bash
# needs: aoe.ko
# timeout: 180
# A revalidate never changes how an open disk is addressed:
#
#   a0 (aoe.ko) <--veth--> b0 (aoe-target28 --lba48 -s 2^28+2048, sparse,
#                               IDENTIFY answer switched by /tmp/ident)
#
# The disk is held open. A 2 KiB O_DIRECT write at LBA 2^28+5 reaches the
# target as WRITE EXT (0x34) at 2^28+5. Then, for each bogus IDENTIFY
# answer (all zeros, garbage, a 28-bit-only device), revalidate: the answer
# is rejected (target drop counter bad_identify rises), the size stays, and
# the next write at 2^28+5 is again 0x34 at 2^28+5 and reads back; the
# target never sees WRITE SECTORS (0x30). A smaller size is taken: sysfs size
# shrinks, aoe-top shows the capacity_changed event, a read beyond the new
# end fails; the normal answer grows the disk back. Then a0's link goes down
# and the target comes back smaller: a0 is checked again and the resize is
# taken (a0 up, the new size, no address conflict).
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

sectors=$(((1 << 28) + 2048))
lba=$(((1 << 28) + 5))
small_by=1024
vm_veth a0 b0
echo normal >/tmp/ident
log "aoe-target28 --lba48 -i b0 -s $sectors"
aoe-target28 -i b0 -s $sectors --lba48 --ident-ctl /tmp/ident --small-by $small_by \
	--log /tmp/t48.log >/tmp/t48.out 2>/tmp/t48.err &
t48=$!
_vm_pids+=("$t48")
sleep 0.3
kill -0 $t48 || die "aoe-target28 did not start: $(cat /tmp/t48.err)"
vm_load_aoe aoe_iflist=a0
pp aoe-discover >/dev/null || true
vm_aoe_up e1.2
[ "$(vm_sysfs e1.2 size)" = $sectors ] || die "size $(vm_sysfs e1.2 size), expected $sectors"
vm_target_json e1.2 | jq -e '.lba48 == true' >/dev/null || die "e1.2 is not LBA48"
exec 3</dev/etherd/e1.2	# the disk is in use from here on
# guest-lib's EXIT trap still runs, with the scenario's status, after the
# disk is closed (rmmod) and aoe-top's tmux is gone
trap 'rc=$?; trap - ERR; set +e; exec 3<&-; tmux kill-server 2>/dev/null; (exit $rc); _vm_cleanup' EXIT

bad_identify() {
	aoe-stat --json | jq -r '[.targets[]? | select(.device == "e1.2") |
		.counters.drops.bad_identify // 0][0] // 0'
}

# write_check WHAT: 4 sectors of a fresh pattern at $lba, read back, and the
# target's log since the last call shows 0x34 at $lba and no 0x30.
logpos=0
write_check() {
	local what=$1 new
	head -c 2048 /dev/urandom >/tmp/pat
	pp dd if=/tmp/pat of=/dev/etherd/e1.2 bs=512 seek=$lba count=4 oflag=direct status=none ||
		die "$what: write at LBA $lba failed"
	timeout 30 dd if=/dev/etherd/e1.2 of=/tmp/back bs=512 skip=$lba count=4 iflag=direct status=none ||
		die "$what: read at LBA $lba failed"
	new=$(tail -n +$((logpos + 1)) /tmp/t48.log)
	logpos=$(wc -l </tmp/t48.log)
	if grep -q '^ata cmd 0x30 ' <<<"$new"; then
		grep '^ata cmd 0x3' <<<"$new" | head -n 4
		die "$what: the target got WRITE SECTORS (0x30): $(grep -m1 '^ata cmd 0x30 ' <<<"$new")"
	fi
	grep -q "^ata cmd 0x34 lba $lba " <<<"$new" ||
		die "$what: no WRITE EXT (0x34) at LBA $lba; the target saw: $(grep '^ata cmd 0x3' <<<"$new" | head -n 3 | tr '\n' ';')"
	cmp /tmp/pat /tmp/back || die "$what: data read back at LBA $lba differs"
	log "$what: WRITE EXT at LBA $lba, read back identical"
}

# revalidate MODE: switch the target's IDENTIFY answer, revalidate, wait
# until the target answered it.
revalidate() {
	local n
	echo "$1" >/tmp/ident
	n=$(grep -c '^identify ' /tmp/t48.log || true)
	vm_dmesg_mark
	pp sh -c 'echo e1.2 >/dev/etherd/revalidate'
	vm_wait_for "[ \$(grep -c '^identify ' /tmp/t48.log) -gt $n ]" 15 ||
		die "$1: the target got no IDENTIFY after revalidate"
}

write_check "before any revalidate"
for mode in zeros garbage lba28; do
	before=$(bad_identify)
	revalidate $mode
	# the module takes the answer in process context: give it a moment
	vm_wait_for "[ \$(bad_identify) -gt $before ]" 10 || true
	write_check "after a '$mode' IDENTIFY"
	after=$(bad_identify)
	[ "$after" -gt "$before" ] || die "$mode: bad_identify did not rise ($before -> $after)"
	[ "$(vm_sysfs e1.2 size)" = $sectors ] || die "$mode: size changed to $(vm_sysfs e1.2 size)"
	vm_target_json e1.2 | jq -e '.lba48 == true and .state == "up"' >/dev/null ||
		die "$mode: e1.2 no longer up with LBA48: $(vm_target_json e1.2)"
	vm_dmesg_since >/tmp/dmesg.new
	log "$mode: rejected (bad_identify $before -> $after), size $sectors; $(grep -m1 'e1\.2' /tmp/dmesg.new || echo 'no new log line')"
done
# what the module says about e1.2 now
vm_target_json e1.2 | jq -c '{sectors, lba48, model, drops: .counters.drops}'

# A smaller size is taken, with an event.
pp tmux new-session -d -s top -x 160 -y 40 'aoe-top -d 1'
# a row for e1.2: aoe-top has sampled, and listens to events from then on
vm_wait_for "tmux capture-pane -p -t top | grepq '^e1\.2 '" 20 || {
	tmux capture-pane -p -t top | head -n 8
	die "aoe-top shows no row for e1.2"
}
small=$((sectors - small_by))
revalidate small
vm_wait_for "[ \$(vm_sysfs e1.2 size) = $small ]" 10 ||
	die "size $(vm_sysfs e1.2 size) after 'small', expected $small"
log "small: size $(vm_sysfs e1.2 size)"
vm_wait_for "tmux capture-pane -p -t top | grepq 'event: e1.2 capacity_changed'" 15 || {
	tmux capture-pane -p -t top | head -n 5
	die "aoe-top showed no capacity_changed event"
}
log "aoe-top: $(tmux capture-pane -p -t top | grep -o 'event: e1.2 capacity_changed')"
tmux kill-server 2>/dev/null || true
[ "$(vm_target_json e1.2 | jq -r .sectors)" = $small ] || die "aoe-stat sectors is not $small"
write_check "after a smaller size"
if timeout 30 dd if=/dev/etherd/e1.2 of=/dev/null bs=512 skip=$small count=1 iflag=direct status=none 2>/dev/null; then
	n=$(timeout 30 dd if=/dev/etherd/e1.2 bs=512 skip=$small count=1 iflag=direct status=none 2>/dev/null | wc -c)
	[ "$n" = 0 ] || die "read of sector $small, past the new end, returned $n bytes"
fi
revalidate normal
vm_wait_for "[ \$(vm_sysfs e1.2 size) = $sectors ]" 10 || die "size did not grow back to $sectors"
write_check "grown back"

# The target comes back with another size while its only path was down (as a
# vblade restarted on a bigger file): the path is checked again; the same
# serial and model with another size is a resize, taken as a revalidate
# takes it, not an address conflict that refuses the path.
conflicts=$(vm_counter e1.2 address_conflicts)
pp ip link set a0 down
echo small >/tmp/ident
sleep 1
pp ip link set a0 up
pp aoe-discover >/dev/null || true
a0_up() { aoe-stat --json | jq -e '[.targets[] | select(.device == "e1.2") | .paths[] | select(.interface == "a0" and .state == "up")] | length == 1'; }
vm_wait_for "a0_up && [ \$(vm_sysfs e1.2 size) = $small ]" 20 || {
	aoe-stat -a || true
	die "after a0 came back with $small sectors: size $(vm_sysfs e1.2 size), address_conflicts $(vm_counter e1.2 address_conflicts), a0 not up or not resized"
}
[ "$(vm_counter e1.2 address_conflicts)" = "$conflicts" ] ||
	die "a resize was counted as an address conflict ($conflicts -> $(vm_counter e1.2 address_conflicts))"
log "back with $small sectors: a0 up, resized, address_conflicts $conflicts"
write_check "back with another size"
revalidate normal
vm_wait_for "[ \$(vm_sysfs e1.2 size) = $sectors ]" 10 || die "size did not grow back to $sectors"

exec 3<&-
vm_unload_aoe
kill $t48
wait $t48 || true
cat /tmp/t48.out
grep -c '^ata cmd 0x34 ' /tmp/t48.log | sed 's/^/WRITE EXT commands: /'
! grep -q '^ata cmd 0x30 ' /tmp/t48.log || die "the target got WRITE SECTORS (0x30)"
