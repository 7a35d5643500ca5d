#!/bin/bash
# needs: aoe.ko
# timeout: 90
# The initiator's interface in a network namespace other than the initial one:
#
#   [netns s: a0 (aoe.ko)] <--veth--> a0p [br0] b0p <--veth--> b0 (vblade 1 2 b0)
#
# (the bridge keeps b0's carrier while a0 moves: vblade exits without it).
# Without aoe_netns=1 the module uses the initial namespace only (in-tree):
# e1.2 is not seen over s's a0. With it, the load-time broadcast goes out in
# every namespace owned by the initial user namespace; aoe-discover (in
# init_net: the netlink family is not visible in s) finds e1.2 over s; data
# verified through the path in s, which aoe-stat shows with the namespace's
# id (a0@ns7 in the text). Interface lists per namespace: aoe_iflist=a0 is
# init_net's, and s follows it until s gets its own, set with
# aoe-interfaces -n s (netlink AOE_A_NETNS_FD) or by writing
# /dev/etherd/interfaces inside s, which leaves init_net's alone; s's list
# without a0 drops e1.2's answers over s's a0 (a read waits), clearing it
# lets the read finish, --inherit makes s follow aoe_iflist again. Without
# aoe_netns=1, aoe-interfaces -n s is refused and a write of
# /dev/etherd/interfaces inside s sets aoe_iflist (as in-tree). A namespace an unprivileged user made (unshare -Urn as nobody), with an
# interface named a0 and a vblade answering as e1.3, is never used: it could
# otherwise answer as any host's target and receive its writes. a0 moved
# to init_net during a write: the path goes (NETDEV_UNREGISTER in s) and
# comes back in init_net, the data intact; moved back, then `ip netns del s`
# with the module loaded takes a0 and its path; rmmod clean, no kernel
# complaint (/init checks the log).
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

disk=$(vm_ramdisk 64)
vm_bridged a0 b0
vm_vblade 1 2 b0 "$disk"
vm_netns s
pp ip netns set s 7
pp ip link set a0 netns s
pp ip -n s link set a0 up
vm_load_aoe aoe_iflist=a0
sleep "$((3 * AOE_SLOW))"
! vm_has_target e1.2 || die "without aoe_netns=1, e1.2 was seen over s's a0"
rc=0
aoe-interfaces -n s >/tmp/62.ifs 2>&1 || rc=$?
[ "$rc" = 1 ] && grepq "does not use that network namespace" /tmp/62.ifs ||
	die "aoe-interfaces -n s without aoe_netns=1: exit $rc, $(cat /tmp/62.ifs)"
ip netns exec s bash -c 'echo "a0 a9" >/dev/etherd/interfaces' || die "writing /dev/etherd/interfaces inside s failed"
[ "$(cat /sys/module/aoe/parameters/aoe_iflist)" = "a0 a9" ] ||
	die "without aoe_netns=1, a write inside s did not set aoe_iflist: '$(cat /sys/module/aoe/parameters/aoe_iflist)'"
vm_unload_aoe
vm_load_aoe aoe_iflist=a0 aoe_netns=1
vm_aoe_up e1.2
# the path is over s's a0: init_net's reader sees s's id
j=/tmp/62.json
vm_stat_json "$j"
vm_json_check "$j" '[.targets[] | select(.device == "e1.2") | .paths[] |
	select(.interface == "a0" and .netnsid == 7)] | length == 1' \
	"one path over a0 in namespace s (netnsid 7)"
if ip netns exec s aoe-stat --json >"$j" 2>&1; then
	die "aoe-stat in s read the host's targets: $(head -c 200 "$j")"
fi
pp aoe-discover >/tmp/62.disc 2>&1 || die "aoe-discover: $(cat /tmp/62.disc)"
grep -q e1.2 /tmp/62.disc || die "aoe-discover did not list e1.2: $(cat /tmp/62.disc)"
aoe-stat -a >/tmp/62.stat
grepq "a0@ns7" /tmp/62.stat || die "aoe-stat -a does not name s's a0 as a0@ns7: $(cat /tmp/62.stat)"

# each namespace's own interface list
ifs=/tmp/62.ifs.json
pp aoe-interfaces -n s --json >"$ifs"
vm_json_check "$ifs" '.netns == "s" and .iflist == "a0" and .inherited and
	([.interfaces[] | select(.name == "a0" and .up)] | length == 1)' \
	"s follows aoe_iflist (a0), a0 up"
pp aoe-interfaces -n s x9 >/dev/null
pp aoe-interfaces --json >"$ifs"
vm_json_check "$ifs" '.iflist == "a0"' "init_net's list is still a0 after s's was set"
[ "$(cat /sys/module/aoe/parameters/aoe_iflist)" = a0 ] || die "aoe_iflist changed with s's list"
pp aoe-interfaces -n s --json >"$ifs"
vm_json_check "$ifs" '.iflist == "x9" and (.inherited | not) and (.interfaces | length == 0)' \
	"s's own list is x9, nothing in use"
# (iface drops count b0's frames in init_net too: the read's wait is the proof)
dd if=/dev/etherd/e1.2 of=/dev/null bs=4k count=1 skip=99 iflag=direct status=none 2>/tmp/62.rd &
rdpid=$!
sleep "$((2 * AOE_SLOW))"
kill -0 "$rdpid" 2>/dev/null || die "a read finished over an interface s's list leaves out"
ip netns exec s bash -c 'echo "" >/dev/etherd/interfaces' || die "writing /dev/etherd/interfaces inside s failed"
pp aoe-interfaces -n s --json >"$ifs"
vm_json_check "$ifs" '.iflist == "" and (.inherited | not)' \
	"s's list not cleared (all, its own) by a write of /dev/etherd/interfaces inside s"
wait "$rdpid" || die "the read did not finish once s allowed a0 again: $(cat /tmp/62.rd)"
ip netns exec s bash -c 'echo x8 >/dev/etherd/interfaces' || die "writing /dev/etherd/interfaces inside s failed"
pp aoe-interfaces -n s --json >"$ifs"
vm_json_check "$ifs" '.iflist == "x8"' "s's list is not x8 after a write inside s"
[ "$(cat /sys/module/aoe/parameters/aoe_iflist)" = a0 ] || die "aoe_iflist changed by a write inside s"
pp aoe-interfaces -n s --inherit >/dev/null
pp aoe-interfaces -n s --json >"$ifs"
vm_json_check "$ifs" '.iflist == "a0" and .inherited' "s does not follow aoe_iflist after --inherit"
log "per-namespace lists: s followed aoe_iflist, got its own over netlink and /dev/etherd/interfaces, followed it again; init_net's a0 kept"

# an unprivileged user's namespace: a0 <-> x1 there, vblade 1 3 on x1 (a
# kernel without user namespaces, as the debug kernel, has no such user)
if [ ! -e /proc/self/ns/user ]; then
	log "no user namespaces in this kernel (CONFIG_USER_NS): no unprivileged namespace to refuse, step skipped"
else
	# Debian's kernels allow them by default; say so explicitly
	if [ -w /proc/sys/kernel/unprivileged_userns_clone ]; then
		echo 1 >/proc/sys/kernel/unprivileged_userns_clone
	fi
	pp dd if=/dev/zero of=/tmp/62.u bs=1M count=4 status=none
	chmod 666 /tmp/62.u
	# (its life: 20 s, times --slow)
	VB_SECS=$((20 * AOE_SLOW)) setpriv --reuid=65534 --regid=65534 --clear-groups \
		unshare -Urn bash -c 'ip link add a0 type veth peer name x1 &&
			ip link set a0 up && ip link set x1 up &&
			exec timeout "$VB_SECS" vblade 1 3 x1 /tmp/62.u' >/tmp/62.u.log 2>&1 &
	upid=$!
	sleep "$((2 * AOE_SLOW))"
	kill -0 "$upid" 2>/dev/null || die "inconclusive: the unprivileged vblade did not run: $(cat /tmp/62.u.log)"
	pp aoe-discover >/dev/null 2>&1 || true
	sleep "$((2 * AOE_SLOW))"
	! vm_has_target e1.3 || die "e1.3 from an unprivileged user's namespace became a target"
	kill "$upid" 2>/dev/null || true	# gone at its timeout on a slow kernel
	wait "$upid" 2>/dev/null || true
	log "the unprivileged namespace's e1.3 was not taken"
fi

pp dd if=/dev/urandom of=/tmp/62.data bs=1M count=16 status=none
pp dd if=/tmp/62.data of=/dev/etherd/e1.2 bs=1M oflag=direct status=none
[ "$(md5sum </tmp/62.data)" = "$(dd if="$disk" bs=1M count=16 status=none | md5sum)" ] ||
	die "data written through s's a0 differs on the target"

# move a0 to init_net while a write is in flight
dd if=/tmp/62.data of=/dev/etherd/e1.2 bs=64k seek=256 oflag=direct \
	status=none 2>/tmp/62.dd &
ddpid=$!
sleep 0.2
pp ip -n s link set a0 netns 1
pp ip link set a0 up
m0=$(vm_ms)
wait "$ddpid" || die "write during the move failed: $(cat /tmp/62.dd)"
log "write across the move done $(($(vm_ms) - m0)) ms after a0 came up in init_net"
[ "$(md5sum </tmp/62.data)" = "$(dd if="$disk" bs=1M skip=16 count=16 status=none | md5sum)" ] ||
	die "data written across the move differs on the target"
vm_aoe_up e1.2 10
vm_stat_json "$j"
vm_json_check "$j" '[.targets[] | select(.device == "e1.2") | .paths[]] as $p |
	($p | length) == 1 and $p[0].interface == "a0" and $p[0].netnsid == null and
	$p[0].state == "up"' \
	"one path, up, over a0 in init_net (the one in s gone)"
[ "$(dd if=/dev/etherd/e1.2 bs=1M count=32 iflag=direct status=none | md5sum)" = \
  "$(dd if="$disk" bs=1M count=32 status=none | md5sum)" ] || die "read back through init_net's a0 differs"

# back into s, then s deleted with the module loaded: a0 goes with it
pp ip link set a0 netns s
pp ip -n s link set a0 up
vm_wait_for "aoe-stat --json | jq -e '[.targets[] | .paths[] | select(.netnsid == 7 and .state == \"up\")] | length == 1' >/dev/null" 10 ||
	die "no path up over a0 after moving it back into s"
pp ip netns del s
_vm_netns=()
vm_wait_for "aoe-stat --json | jq -e '[.targets[] | .paths[]] | length == 0' >/dev/null" 5 ||
	die "the path over s's a0 outlived the namespace"
pp aoe-stat -a
vm_unload_aoe
