#!/bin/bash
# needs: aoe.ko
# timeout: 150
# kernels: 6.12 (the module's own protocol logic, no kernel interface the two series differ in: the whole suite runs it once, make test's 45 min budget)
# The device behind an up path is swapped within 30 s of a check:
#
#   a0 (aoe.ko) <--veth--> b0  vblade 1 2 b0 /tmp/real, then
#                              vblade 1 2 b0 /tmp/impostor (hostname
#                              impostor: another IDENTIFY serial, same size)
#
# A tag-0 announcement on a0 takes it out for a check (passes; the next
# announcement-triggered check waits 30 s). Right after, vblade is killed
# and the impostor starts on b0 (same MAC) and announces (aoe-inject): that
# announcement is inside the 30 s window. It used to be dropped: a0 stayed
# up and writes went to the impostor. Now its check runs when the window
# ends: by then + a few seconds a0 is refused (address_conflicts >= 1) and
# a 1 MiB O_DIRECT write does not reach the impostor's file.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

pp truncate -s 16M /tmp/real
pp truncate -s 16M /tmp/impostor
head -c $((4 << 20)) /dev/urandom | dd of=/tmp/impostor conv=notrunc status=none
md5sum </tmp/impostor >/tmp/impostor.md5
vm_veth a0 b0
mac0=$(vm_mac b0)
vm_vblade 1 2 b0 /tmp/real
real_pid=${_vm_pids[-1]}
vm_load_aoe aoe_iflist=a0 aoe_deadsecs=5
pp aoe-discover >/dev/null || true
vm_aoe_up e1.2
paths() { aoe-stat --json | jq -c '[.targets[] | select(.device == "e1.2") | .paths[] | select(.state == "up") | .interface] | sort'; }

# An announcement: a0 is checked (it passes) and the 30 s window starts.
aoe-stat --monitor >/tmp/events.txt 2>&1 &
_vm_pids+=($!)
sleep 0.3
pp aoe-inject -i b0 -d "$(vm_mac a0)" -s "$mac0" --shelf 1 --slot 2 config
t0=$(date +%s)
vm_wait_for "grep -q '^e1.2 path_up a0' /tmp/events.txt" 5 ||
	{ cat /tmp/events.txt; die "a0 was not checked again after the announcement"; }
[ "$(paths)" = '["a0"]' ] || die "a0 is not up after its check: $(paths)"

# The swap, inside the window.
kill "$real_pid"
wait "$real_pid" 2>/dev/null || true
printf '+ unshare -u vblade 1 2 b0 /tmp/impostor (hostname impostor)\n' >&2
unshare -u sh -c "hostname impostor && exec vblade 1 2 b0 /tmp/impostor" >/tmp/vblade-impostor.log 2>&1 &
_vm_pids+=($!)
sleep 0.3
kill -0 "$!" 2>/dev/null || die "impostor vblade did not start: $(cat /tmp/vblade-impostor.log)"
pp aoe-inject -i b0 -d "$(vm_mac a0)" -s "$mac0" --shelf 1 --slot 2 config
log "impostor on b0 $(($(date +%s) - t0)) s after a0's check"

# By the end of the window + a few seconds a0 is refused.
left=$(((t0 + 30 + 4 * AOE_SLOW - $(date +%s) + AOE_SLOW - 1) / AOE_SLOW))
vm_wait_for "[ \$(vm_counter e1.2 address_conflicts) -ge 1 ]" "$left" || true
n=$(vm_counter e1.2 address_conflicts)
log "$(($(date +%s) - t0)) s after the check: address_conflicts $n, paths $(paths)"
head -c $((1 << 20)) /dev/urandom >/tmp/w
rc=0
timeout $((20 * AOE_SLOW)) dd if=/tmp/w of=/dev/etherd/e1.2 bs=1M count=1 oflag=direct status=none 2>/tmp/dd.err || rc=$?
log "1 MiB O_DIRECT write: status $rc $(cat /tmp/dd.err)"
md5sum -c --status /tmp/impostor.md5 </tmp/impostor ||
	die "the write reached the impostor (its file changed): a0 was never checked after the swap (address_conflicts $n, paths $(paths))"
[ "$n" -ge 1 ] || [ "$rc" != 0 ] ||
	die "no address conflict and the write succeeded, but not on the impostor?"
[ "$n" -ge 1 ] || die "address_conflicts is $n: the swapped device behind a0 was never refused"
log "swapped device behind a0 refused within the window; its file unchanged"
vm_unload_aoe
