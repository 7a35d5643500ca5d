#!/bin/bash
# needs: aoe.ko
# timeout: 360
# kernels: 6.12 (the module's own protocol logic, no kernel interface the two series differ in: the whole suite runs it once, make test's 45 min budget)
# Two devices answer for the same shelf.slot: the disk talks only to its own.
#
#   a0 (aoe.ko) <--veth--> b0  vblade 1 2 b0 /dev/ram0         (the real one)
#   a2 (aoe.ko) <--veth--> b2  vblade 1 2 b2 /dev/ram0         (the real one)
#   a1 (aoe.ko) <--veth--> b1  vblade 1 2 b1 /tmp/impostor     (hostname
#                              "impostor": another serial; b1 has b0's MAC)
#
# vblade's IDENTIFY serial is "shelf.slot:hostname", so the impostor runs
# under `unshare -u` with another host name; its file has the real disk's
# size, so only the serial differs, and b1 carries the MAC of b0 (the same
# MAC on another segment). e1.2 comes up over a0 (the only path then), then
# a2 (the same device: it must become a path) and the impostor on a1 start.
# During a fio verify on e1.2 (and a discovery that makes the impostor
# answer again, and announcements from 200 made-up MACs that never answer
# IDENTIFY: at most 4 candidates at once, most turned away, the candidates
# dropped after their deadline): data verified, the impostor's file unchanged (zero writes),
# a1 never a path, a2 a path, address_conflicts >= 1, the conflict shown by
# aoe-stat (-a and --json, with the impostor's serial), one log line naming
# both MACs and a1, and an address_conflict event (aoe-stat --monitor).
# Then the device behind a2 is swapped while a2's link is down (vblade on b2
# replaced by another impostor, same MAC): when a2 comes back it is checked
# again and refused, during a second fio verify; data verified, the second
# impostor's file unchanged. Last, one MAC over two interfaces (a3, a4,
# a bridge): its device is swapped while only a3 hears it; a3 is refused as
# a candidate and a4 must stop carrying I/O too (the swapped-in file stays
# unchanged, fio verified over a0). Last, a clone (same serial and model,
# another capacity) on a5 while a0 is up: refused, not taken as a resize;
# and 20 forged announcements on a0 take it out for a check at most once;
# 16 made-up MACs on a target without identity do not keep a real path out.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

disk=$(vm_ramdisk 256)
bytes=$(blockdev --getsize64 "$disk" 2>/dev/null || echo $((256 << 20)))
vm_veth a0 b0
vm_veth a1 b1
vm_veth a2 b2
mac0=$(vm_mac b0)
pp ip link set b1 down
pp ip link set b1 address "$mac0"
pp ip link set b1 up

# impostor NAME IFACE FILE: vblade 1 2 under another host name.
impostor() {
	pp truncate -s "$bytes" "$3"
	head -c $((4 << 20)) /dev/urandom | dd of="$3" conv=notrunc status=none
	printf '+ unshare -u vblade 1 2 %s %s (hostname %s)\n' "$2" "$3" "$1" >&2
	unshare -u sh -c "hostname $1 && exec vblade 1 2 $2 $3" >"/tmp/vblade-$1.log" 2>&1 &
	_vm_pids+=($!)
	sleep 0.3
	kill -0 "$!" 2>/dev/null || die "impostor vblade on $2 did not start: $(cat "/tmp/vblade-$1.log")"
	md5sum <"$3" >"$3.md5"
}

vm_vblade 1 2 b0 "$disk"
vm_load_aoe aoe_iflist=a0,a1,a2,a3,a4,a5
pp aoe-discover >/dev/null || true
vm_aoe_up e1.2
serial=$(vm_sysfs e1.2 serial 2>/dev/null || true)
log "e1.2 up over a0, serial '$serial', model '$(vm_sysfs e1.2 model 2>/dev/null || true)'"

# From its promotion on, a0 carries as many frames as the target's buffer
# count allows (its port's count is set when it is verified, not left 0, a
# 1-frame window, until a discovery answers while it is up).
timeout 30 fio --name=depth --filename=/dev/etherd/e1.2 --rw=randread --bs=4k \
	--iodepth=16 --ioengine=libaio --direct=1 --runtime=4 --time_based \
	>/tmp/fio-depth.log 2>&1 &
fio_pid=$!
most=0
while kill -0 $fio_pid 2>/dev/null; do
	n=$(aoe-stat --json | jq '[.targets[] | select(.device == "e1.2") | .paths[] | select(.interface == "a0") | .outstanding][0] // 0')
	[ "$n" -gt "$most" ] && most=$n
	sleep 0.1
done
wait $fio_pid || { cat /tmp/fio-depth.log; die "fio randread (iodepth 16) on e1.2 failed"; }
log "a0 after its promotion: at most $most frames in flight"
[ "$most" -gt 1 ] || die "a0 never had more than $most frame in flight under iodepth 16 (the port's buffer count was not set at promotion)"

aoe-stat --monitor >/tmp/events.txt 2>&1 &
_vm_pids+=($!)
sleep 0.3
vm_dmesg_mark
vm_vblade 1 2 b2 "$disk"
b2_pid=${_vm_pids[-1]}
impostor impostor b1 /tmp/impostor
b1_pid=${_vm_pids[-1]}
pp aoe-discover >/dev/null || true

paths() { aoe-stat --json | jq -c '[.targets[] | select(.device == "e1.2") | .paths[] | select(.state == "up") | .interface] | sort'; }
vm_wait_for "[ \"\$(paths)\" = '[\"a0\",\"a2\"]' ]" 15 ||
	{ aoe-stat -a || true; die "e1.2 should have paths a0 and a2 up, has $(paths)"; }

FIO_TIMEOUT=150
vm_fio_verify /dev/etherd/e1.2 4 >/tmp/fio.log 2>&1 &
fio_pid=$!
sleep 1
pp aoe-discover >/dev/null || true	# the impostor answers again
# A spoofer announces e1.2 from 200 made-up MACs (none answers IDENTIFY):
# at most AOE_CAND_MAX (4) candidates at a time, the rest turned away.
pp aoe-inject -i b1 -n 200 -w 10000 config-macs &
inj=$!
most=0
while kill -0 $inj 2>/dev/null; do
	n=$(aoe-stat --json | jq '[.targets[] | select(.device == "e1.2") | .paths[] | select(.state == "candidate")] | length')
	[ "$n" -gt "$most" ] && most=$n
	sleep 0.2
done
wait $inj || die "aoe-inject config-macs failed"
log "made-up MACs: at most $most candidates at once"
[ "$most" -le 4 ] || die "$most candidate paths at once, expected at most 4"
rc=0
wait $fio_pid || rc=$?
cat /tmp/fio.log
[ "$rc" = 0 ] || die "fio verify failed with an impostor on a1 (status $rc)"
tm=$(aoe-stat --json | jq '[.targets[] | select(.device == "e1.2") | .counters.drops.too_many // 0][0]')
[ "$tm" -gt 100 ] || die "only $tm of 200 made-up MACs were turned away (drops too_many)"
vm_wait_for "[ \$(aoe-stat --json | jq '[.targets[] | select(.device == \"e1.2\") | .paths[] | select(.state == \"candidate\")] | length') = 0 ]" 10 ||
	{ aoe-stat -a || true; die "candidates that never answer IDENTIFY were not dropped"; }
log "made-up MACs: $tm turned away, the candidates dropped"
pp aoe-stat -a
md5sum -c --status /tmp/impostor.md5 </tmp/impostor ||
	die "the impostor's file was written to (md5 changed)"
log "impostor's file unchanged"
[ "$(paths)" = '["a0","a2"]' ] || die "paths of e1.2 are $(paths), expected a0 and a2"
aoe-stat --json | jq -e '[.targets[] | select(.device == "e1.2") | .paths[] | select(.interface == "a1")] | length == 0' >/dev/null ||
	die "a1 (the impostor) is a path of e1.2"
n=$(vm_counter e1.2 address_conflicts)
[ "$n" -ge 1 ] || die "address_conflicts is $n, expected >= 1"
vm_target_json e1.2 | jq -e --arg m "$mac0" '.conflicts | any(.interface == "a1" and .mac == $m and (.serial | test("impostor")))' >/dev/null ||
	{ vm_target_json e1.2; die "aoe-stat --json does not show the conflict with the impostor on a1"; }
aoe-stat -a | grepq "conflict.*a1.*impostor" || { aoe-stat -a; die "aoe-stat -a does not show the conflict"; }
vm_dmesg_since | grep -i "address conflict" | grep "a1" | grepq -i "$mac0" ||
	{ vm_dmesg_since; die "no log line naming the conflict on a1 and the MAC $mac0"; }
log "log: $(vm_dmesg_since | grep -i -m1 'address conflict')"
grep "^e1.2 address_conflict a1 -> $mac0 answers as serial \"1.2:impostor\"" /tmp/events.txt ||
	{ cat /tmp/events.txt; die "no address_conflict event for the impostor on a1 (aoe-stat --monitor)"; }

# The device behind a2 changes while its link is down.
pp ip link set a2 down
kill "$b2_pid"
wait "$b2_pid" 2>/dev/null || true
impostor swapped b2 /tmp/swapped
vm_fio_verify /dev/etherd/e1.2 4 >/tmp/fio2.log 2>&1 &
fio_pid=$!
sleep 1
pp ip link set a2 up
rc=0
wait $fio_pid || rc=$?
cat /tmp/fio2.log
[ "$rc" = 0 ] || die "fio verify failed after the device behind a2 was swapped (status $rc)"
pp aoe-stat -a
md5sum -c --status /tmp/swapped.md5 </tmp/swapped ||
	die "the swapped-in device behind a2 was written to (md5 changed)"
vm_wait_for "[ \$(vm_counter e1.2 address_conflicts) -ge 2 ]" 10 ||
	die "address_conflicts is $(vm_counter e1.2 address_conflicts) after the swap, expected >= 2"
[ "$(paths)" = '["a0"]' ] || die "paths of e1.2 are $(paths), expected a0 only"
n=$(vm_counter e1.2 address_conflicts)
log "swapped device behind a2 refused, file unchanged; address_conflicts $n"

# A MAC proven foreign stops every path to it, also when the path that
# proved it was a candidate: the real disk served on vx, one MAC reached over
# a3 and a4 (a bridge). Its device is swapped while a4 does not hear it
# (b4 off the bridge; the new device's announcement, made by aoe-inject, on
# a3 only): a3 is
# checked and refused; a4, up to the same MAC, must stop too.
pp modprobe bridge
vm_veth a3 b3
vm_veth a4 b4
vm_veth vx bx
pp ip link add br3 type bridge forward_delay 0
_vm_links+=(br3)
pp ip link set b3 master br3
pp ip link set b4 master br3
pp ip link set bx master br3
pp ip link set br3 up
vm_vblade 1 2 vx "$disk"
vx_pid=${_vm_pids[-1]}
pp aoe-discover >/dev/null || true
vm_wait_for "[ \"\$(paths)\" = '[\"a0\",\"a3\",\"a4\"]' ]" 20 ||
	{ aoe-stat -a || true; die "e1.2 should have paths a0, a3 and a4 up, has $(paths)"; }
before=$(vm_counter e1.2 address_conflicts)
pp ip link set b4 nomaster
kill "$vx_pid"
wait "$vx_pid" 2>/dev/null || true
impostor sibling vx /tmp/sibling
# its announcement (vblade sends none when it starts), heard on a3 only
pp aoe-inject -i b3 -d "$(vm_mac a3)" -s "$(vm_mac vx)" --shelf 1 --slot 2 config
vm_wait_for "[ \$(vm_counter e1.2 address_conflicts) -gt $before ]" 15 ||
	{ aoe-stat -a || true; die "a3 was not refused after the device behind vx changed"; }
pp ip link set b4 master br3
log "a3 refused (address_conflicts $before -> $(vm_counter e1.2 address_conflicts)); paths now $(paths)"
pp dd if=/dev/urandom of=/dev/etherd/e1.2 bs=64k count=64 oflag=direct status=none
vm_fio_verify /dev/etherd/e1.2 4 >/tmp/fio3.log 2>&1 || { cat /tmp/fio3.log; die "fio verify failed after the device behind vx (a3, a4) was swapped"; }
pp aoe-stat -a
md5sum -c --status /tmp/sibling.md5 </tmp/sibling ||
	die "the device swapped in behind vx was written to over a4 (md5 changed): a sibling of a refused MAC kept carrying I/O"
[ "$(paths)" = '["a0"]' ] || die "paths of e1.2 are $(paths), expected a0 only (a4 reaches the refused MAC)"
log "a4 (same MAC as the refused a3) stopped too; the swapped-in file unchanged"

# A clone: another disk with e1.2's serial and model (vblade under this
# host name) but another capacity, on a5, while a0 is up. A capacity change
# is a resize only if no other verified path is up or an up path confirms
# it: a0 still answers with the old size, so a5 is an address conflict
# (reason capacity), never a path (it took writes as a "resize" before).
vm_veth a5 b5
pp truncate -s $((bytes - (1 << 20))) /tmp/clone
head -c $((4 << 20)) /dev/urandom | dd of=/tmp/clone conv=notrunc status=none
md5sum </tmp/clone >/tmp/clone.md5
vm_vblade 1 2 b5 /tmp/clone
before=$(vm_counter e1.2 address_conflicts)
pp aoe-discover >/dev/null || true
vm_wait_for "[ \$(vm_counter e1.2 address_conflicts) -gt $before ]" 15 ||
	{ aoe-stat -a || true; die "the clone on a5 (same serial and model, another capacity, a0 up) was not refused: paths $(paths)"; }
pp dd if=/dev/urandom of=/dev/etherd/e1.2 bs=64k count=64 oflag=direct status=none
vm_fio_verify /dev/etherd/e1.2 4 >/tmp/fio4.log 2>&1 || { cat /tmp/fio4.log; die "fio verify failed with a clone on a5"; }
md5sum -c --status /tmp/clone.md5 </tmp/clone ||
	die "the clone behind a5 (another capacity) was written to: promoted as a resize while a0 was up"
[ "$(paths)" = '["a0"]' ] || die "paths of e1.2 are $(paths), expected a0 only (a5 is a clone)"
[ "$(vm_sysfs e1.2 size)" = $((bytes / 512)) ] || die "e1.2 was resized to the clone's $(vm_sysfs e1.2 size) sectors"
vm_target_json e1.2 | jq -e '.conflicts | any(.interface == "a5" and .reason == "capacity")' >/dev/null ||
	{ vm_target_json e1.2; die "aoe-stat --json does not show a5's conflict with reason capacity"; }
log "clone on a5 refused (capacity), its file unchanged, e1.2 not resized"

# Forged announcements: 20 tag-0 Query Config answers from a0's target MAC
# to a0, 0.2 s apart. Each one took a0 out for a new check (I/O stalled,
# a path-down event every time); now an announcement re-checks an up path
# at most once per 30 s.
# The impostor on a1 carries b0's MAC: whenever it answers again, its
# refusal takes a0 out for a check too (every path to a refused MAC stops):
# not what this step counts (CI once saw 2 path_down events that way).
kill "$b1_pid"
pp ip link set a1 down
aoe-stat --monitor >/tmp/events2.txt 2>&1 &
_vm_pids+=($!)
sleep 0.3
pp aoe-inject -i b0 -d "$(vm_mac a0)" -s "$mac0" --shelf 1 --slot 2 -n 20 -w 200000 config
sleep 2
n=$(grep -c "^e1.2 path_down a0" /tmp/events2.txt || true)
log "20 forged announcements on a0: $n path_down events"
[ "$n" -le 1 ] || { cat /tmp/events2.txt; die "20 forged announcements took a0 out $n times (at most once per 30 s)"; }
vm_wait_for "[ \"\$(paths)\" = '[\"a0\"]' ]" 10 || die "a0 is not up after the forged announcements: $(paths)"

# Before a target has an identity, 16 made-up MACs (none answers IDENTIFY)
# take all its path slots: the candidates that failed their IDENTIFY give
# their slot to a new path, so the real e1.9 that comes later is added,
# tried next and comes up (it was turned away for ever before).
pp aoe-inject -i b0 --shelf 1 --slot 9 -n 16 config-macs
sleep $((16 * AOE_SLOW))
pp truncate -s 16M /tmp/e19
vm_vblade 1 9 b0 /tmp/e19
state19() { aoe-stat --json | jq -r '[.targets[] | select(.device == "e1.9") | .state][0] // "none"'; }
for _ in 1 2 3 4 5 6 7 8 9 10; do
	pp aoe-discover >/dev/null || true
	[ "$(state19)" = up ] && break
	sleep 2
done
[ "$(state19)" = up ] || { aoe-stat -a || true; die "e1.9 is not up: 16 made-up MACs that never answer IDENTIFY keep its path slots"; }
log "e1.9 up after 16 made-up MACs took its path slots"
vm_unload_aoe
