#!/bin/bash
# needs: aoe.ko
# kernels: 6.12 (the module's own protocol logic or a tool, no kernel interface the two series differ in: the whole suite runs it on one series, balanced for the 45 min budget; make test-full and a named run: every kernel)
# The admin tools over netlink:
#
#   a0 (initiator, aoe.ko) <--veth--> b0 (vblade 1 2 b0 /dev/ram0)
#
# aoe-interfaces sets, shows and clears aoe_iflist (the sysfs parameter
# follows); as nobody it fails with "permission denied ... CAP_NET_ADMIN",
# exit 1, and nothing changes; aoe-version reports the running module;
# aoe-revalidate e1.2 succeeds and aoe-revalidate e9.9 exits 1; aoe-flush
# e1.2 forgets the (up, closed) target; aoe-stat --prometheus has aoe_up 1
# and e1.2's series.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

vm_veth a0 b0
disk=$(vm_ramdisk 64)
vm_vblade 1 2 b0 "$disk"
vm_load_aoe
pp aoe-discover >/dev/null || true
vm_wait_for "vm_has_target e1.2" 10 || die "e1.2 never appeared"

pp aoe-interfaces a0 || die "aoe-interfaces a0 failed"
[ "$(cat /sys/module/aoe/parameters/aoe_iflist)" = a0 ] || die "aoe_iflist is not a0 after aoe-interfaces a0"
pp aoe-interfaces --json >/tmp/if.json || die "aoe-interfaces --json failed"
vm_json_check /tmp/if.json '.iflist == "a0" and .all == false' "aoe-interfaces --json does not show a0"

# Without CAP_NET_ADMIN: refused, nothing changed.
unpriv=""
if command -v setuidgid >/dev/null; then unpriv="setuidgid nobody"
elif su -s /bin/sh nobody -c true 2>/dev/null; then unpriv="su -s /bin/sh nobody -c"; fi
if [ -n "$unpriv" ]; then
	rc=0
	$unpriv "aoe-interfaces -c" >/tmp/perm.out 2>/tmp/perm.err || rc=$?
	cat /tmp/perm.err
	[ "$rc" = 1 ] || die "aoe-interfaces -c as nobody exited $rc, expected 1"
	grep -q 'permission denied: .* needs CAP_NET_ADMIN (run as root)' /tmp/perm.err ||
		die "aoe-interfaces as nobody does not say permission denied ... CAP_NET_ADMIN"
	[ "$(cat /sys/module/aoe/parameters/aoe_iflist)" = a0 ] || die "aoe_iflist changed by an unprivileged aoe-interfaces"
	rc=0
	$unpriv "aoe-flush -a" 2>/tmp/perm.err || rc=$?
	[ "$rc" = 1 ] || die "aoe-flush -a as nobody exited $rc, expected 1"
	vm_has_target e1.2 || die "e1.2 gone after an unprivileged aoe-flush"
else
	log "no way to drop privileges in this image; permission checks skipped"
fi

pp aoe-interfaces -c || die "aoe-interfaces -c failed"
[ -z "$(cat /sys/module/aoe/parameters/aoe_iflist)" ] || die "aoe_iflist not cleared by aoe-interfaces -c"

pp aoe-version --json >/tmp/ver.json || die "aoe-version failed"
vm_json_check /tmp/ver.json '.running_module == .tools and .running_module_source == "netlink"' \
	"aoe-version does not report the running module over netlink"

pp aoe-revalidate e1.2 || die "aoe-revalidate e1.2 failed"
rc=0
aoe-revalidate e9.9 2>/tmp/reval.err || rc=$?
cat /tmp/reval.err
[ "$rc" = 1 ] || die "aoe-revalidate of an unknown target exited $rc, expected 1"

pp aoe-stat --prometheus >/tmp/aoe.prom || die "aoe-stat --prometheus failed"
grep -qx 'aoe_up 1' /tmp/aoe.prom || die "no aoe_up 1 in aoe-stat --prometheus"
grep -q '^aoe_target_state{target="e1.2",state="up"} 1$' /tmp/aoe.prom || die "e1.2 not up in the metrics"
grep -q '^aoe_path_rtt_seconds{target="e1.2",interface="a0",mac="' /tmp/aoe.prom ||
	die "no RTT series for e1.2 on a0"
pp aoe-stat -x | tee /tmp/x.txt
grep -q 'RTT(ms)' /tmp/x.txt || die "aoe-stat -x has no header"

vm_wait_for "vm_target_json e1.2 | jq -e '.state == \"up\"' >/dev/null" 10 || die "e1.2 never up"
pp aoe-flush e1.2 | tee /tmp/flush.txt
grep -qx 'e1.2: flushed' /tmp/flush.txt || die "aoe-flush e1.2 did not flush it"
vm_has_target e1.2 && die "e1.2 still known after aoe-flush e1.2"
vm_unload_aoe
