#!/bin/bash
# needs: aoe.ko
# timeout: 120
# kernels: 6.1 (the module's own protocol logic, no kernel interface the two series differ in: the whole suite runs it once, make test's 45 min budget)
# A clone is not taken for a resize while the real path is being checked
# (third identity review, H1):
#
#   a0 (aoe.ko) <--veth--> b0  vblade 1 2 b0 /tmp/real (16 MiB)
#   a1 (aoe.ko) <--veth--> b1  vblade 1 2 b1 /tmp/clone (32 MiB, the same
#                              hostname: the same IDENTIFY serial and model;
#                              its answers 1 s late, netem)
#
# The clone answers a discovery: a1 becomes a candidate and its IDENTIFY is
# in flight. Meanwhile a forged announcement with b0's MAC takes a0 out for
# a check of its own. When the clone's answer came while no verified path
# was up, it was taken for the disk resized: a1 promoted, the disk grew to
# 32 MiB and writes went to the clone. Now a capacity change while a verified
# path is being checked waits for the target's IDENTIFY, over that path:
# e1.2 stays 16 MiB, a1 is refused (address conflict), a0 is up again and a
# 1 MiB write lands in /tmp/real, not in /tmp/clone.
# 2. The real path is down (a0's link) and a second clone answers on a2
#    (b2, no delay): it used to be promoted at once (no verified path up:
#    "resized", e1.2 32 MiB). Now a path never verified is no proof of a
#    resize while the target is up: e1.2 stays 16 MiB, a2 never comes up,
#    and when a0's link is back the write lands in /tmp/real.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

pp truncate -s 16M /tmp/real
pp truncate -s 32M /tmp/clone
vm_veth a0 b0
vm_veth a1 b1
vm_veth a2 b2
vm_vblade 1 2 b0 /tmp/real
vm_load_aoe aoe_iflist=a0,a1,a2
pp aoe-discover >/dev/null || true
vm_aoe_up e1.2
[ "$(vm_sysfs e1.2 size)" = 32768 ] || die "size $(vm_sysfs e1.2 size), expected 32768 sectors"
state() { aoe-stat --json | jq -r ".targets[] | select(.device == \"e1.2\") | .paths[] | select(.interface == \"$1\") | .state"; }
aoe-stat --monitor >/tmp/events.txt 2>&1 &
_vm_pids+=($!)

pp tc qdisc add dev b1 root netem delay 1000ms
vm_vblade 1 2 b1 /tmp/clone
pp aoe-discover >/dev/null || true
vm_wait_for "[ \"\$(state a1)\" = candidate ]" 10 || die "the clone on a1 did not become a candidate: $(state a1)"
pp aoe-inject -i b0 -d "$(vm_mac a0)" -s "$(vm_mac b0)" --shelf 1 --slot 2 config
vm_wait_for "[ \$(vm_counter e1.2 address_conflicts) -ge 1 ]" 15 || true
log "size $(vm_sysfs e1.2 size), address_conflicts $(vm_counter e1.2 address_conflicts), a0 $(state a0), a1 $(state a1)"
cat /tmp/events.txt >&2
[ "$(vm_sysfs e1.2 size)" = 32768 ] || die "e1.2 grew to $(vm_sysfs e1.2 size) sectors: the clone was taken for the disk resized"
! grep -q '^e1.2 path_up a1' /tmp/events.txt || die "the clone's path a1 came up"
[ "$(vm_counter e1.2 address_conflicts)" -ge 1 ] || die "the clone on a1 was not refused (address_conflicts 0)"
vm_wait_for "[ \"\$(state a0)\" = up ]" 10 || die "a0 is $(state a0) after its check, not up"
head -c $((1 << 20)) /dev/urandom >/tmp/w
pp dd if=/tmp/w of=/dev/etherd/e1.2 bs=1M oflag=direct,sync status=none
cmp -n $((1 << 20)) /tmp/w /tmp/real || die "the write did not land in /tmp/real"
! cmp -s -n $((1 << 20)) /tmp/w /tmp/clone || die "the write landed in the clone"

# 2. the real path down, a second clone on a2
pp truncate -s 32M /tmp/clone2
pp ip link set a0 down
vm_wait_for "[ \"\$(state a0)\" = down ]" 10 || die "a0 is $(state a0) after its link went down"
vm_vblade 1 2 b2 /tmp/clone2
pp aoe-discover >/dev/null || true
# heard: its answers reach a2 (the module may drop the path again at once)
vm_wait_for "[ \$(cat /sys/class/net/a2/statistics/rx_packets) -ge 2 ]" 10 || die "the clone on b2 did not answer on a2"
sleep $((8 * AOE_SLOW))
log "real path down: size $(vm_sysfs e1.2 size), a0 $(state a0), a2 '$(state a2)'"
[ "$(vm_sysfs e1.2 size)" = 32768 ] || die "with a0 down e1.2 grew to $(vm_sysfs e1.2 size) sectors: the clone on a2 was taken for the disk resized"
! grep -q '^e1.2 path_up a2' /tmp/events.txt || die "the clone's path a2 came up while a0 was down"
pp ip link set a0 up
pp aoe-discover >/dev/null || true
vm_wait_for "[ \"\$(state a0)\" = up ]" 20 || die "a0 is $(state a0) after its link came back, not up"
head -c $((1 << 20)) /dev/urandom >/tmp/w
pp dd if=/tmp/w of=/dev/etherd/e1.2 bs=1M oflag=direct,sync status=none
cmp -n $((1 << 20)) /tmp/w /tmp/real || die "after a0 came back the write did not land in /tmp/real"
! cmp -s -n $((1 << 20)) /tmp/w /tmp/clone2 || die "the write landed in the second clone"
vm_unload_aoe
