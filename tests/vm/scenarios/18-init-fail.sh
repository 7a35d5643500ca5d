#!/bin/bash
# needs: aoe.ko
# timeout: 240
# A failed init unwinds exactly like rmmod: with a target answering on a0,
# each init step is made to fail in turn (aoe_fail_init=STEP[:MS], testing
# only, aoe(4)):
#
#   a0 (aoe.ko, aoe_fail_init=STEP) <--veth--> b0 (vblade 1 2 b0 /dev/ram0)
#
# insmod fails with the injected ECANCELED, nothing is left behind (module,
# device nodes, netlink family), the kernel log has no Oops/WARNING/slab
# complaint. The netdev notifier (netif) is the last step, so no target, disk
# or zero-copy frame exists when init fails: the kernel frees a module whose
# init failed whatever its reference count, so an opener of a disk created
# during a failing init would be left pointing into freed memory. With a
# target answering at once, the discover step (two before netif: steer
# comes between) fails after 3 s: the target must not have been seen (no
# Query Config answer taken).
# Then a normal load sees e1.2.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

steps="params ata blkdev netlink ctl target chardev discover steer netif"
disk=$(vm_ramdisk 256)
vm_veth a0 b0
vm_vblade 1 2 b0 "$disk"

bad='BUG|WARNING|Oops|general protection|still has objects|Objects remaining|leak|refcount_t|list_(add|del) corruption'
try() { # aoe_fail_init value
	local v=$1 rc=0 m0 m1
	vm_dmesg_mark
	m0=$(vm_ms)
	pp timeout 60 insmod "$AOE_KO" aoe_iflist=a0 aoe_fail_init="$v" 2>/tmp/insmod.err || rc=$?
	m1=$(vm_ms)
	cat /tmp/insmod.err
	log "aoe_fail_init=$v: insmod status $rc after $((m1 - m0)) ms"
	[ "$rc" != 124 ] || die "insmod aoe_fail_init=$v hung"
	if [ "$rc" = 0 ]; then
		vm_unload_aoe
		die "insmod aoe_fail_init=$v succeeded"
	fi
	grep -qi 'canceled' /tmp/insmod.err || die "insmod aoe_fail_init=$v failed, but not with ECANCELED: $(cat /tmp/insmod.err)"
	vm_dmesg_since | grepq "init step ${v%%:*} fails" || die "no 'init step ${v%%:*} fails' in the kernel log"
	sleep 0.5
	vm_dmesg_since | sed 's/^/  kmsg: /'
	# kmemleak's periodic "N new suspected memory leaks" is judged by
	# /init from the report (which module allocated the object)
	if vm_dmesg_since | grep -E "$bad" | grepq -vE 'kmemleak: [0-9]+ new suspected'; then
		die "aoe_fail_init=$v: the kernel log complains: $(vm_dmesg_since | grep -E "$bad" | grep -vE 'kmemleak: [0-9]+ new suspected' | head -n 1)"
	fi
	[ ! -e /sys/module/aoe ] || die "aoe_fail_init=$v: module aoe still loaded"
	[ -z "$(ls /dev/etherd 2>/dev/null)" ] || die "aoe_fail_init=$v: left behind /dev/etherd/$(ls /dev/etherd | head -n 1)"
	! ls -d /sys/block/etherd* >/dev/null 2>&1 || die "aoe_fail_init=$v: left behind a disk"
	! grep -q ' aoe$' /proc/devices || die "aoe_fail_init=$v: left behind a major: $(grep aoe /proc/devices)"
	if aoe-stat >/dev/null 2>&1; then
		die "aoe_fail_init=$v: the netlink family is still registered"
	fi
}

for s in $steps; do
	try "$s"
done
# The discover step's periodic Query Config went out 3 s before the failure,
# and vblade answered it: nothing may have taken the answer.
# The control files exist from the chardev step on, 3 s before the failure:
# a file opened then would outlive the module's code (a reader asleep in
# /dev/etherd/err, its close). Opening must be refused until init is done;
# a file that opened anyway is closed after the failure. Opened for reading:
# a write redirection would create a regular file once the node is gone.
open_during_init() {
	local i
	for ((i = 0; i < 60; i++)); do
		if { exec 3</dev/etherd/interfaces; } 2>/dev/null; then
			echo "opened /dev/etherd/interfaces after $((i * 100)) ms"
			while [ -e /sys/module/aoe ]; do sleep 0.1; done
			exec 3<&-
			echo "closed it after the failed init"
			return
		fi
		sleep 0.1
	done
	echo "never opened"
}
open_during_init >/tmp/18-open.log 2>&1 &
opener=$!
# The netlink family exists from its step on too, for any user: a dump it
# started then and left pending (its receive buffer full) runs at the next
# read, after the failure, unless the family refused it.
aoe-ctlflood --pending-dump 8000 >/tmp/18-dump.log 2>&1 &
dumper=$!
try discover:3000
wait "$opener"
log "an opener of /dev/etherd/interfaces during the failing init: $(cat /tmp/18-open.log)"
wait "$dumper" || die "aoe-ctlflood --pending-dump failed: $(cat /tmp/18-dump.log)"
log "a GET_TARGET dump asked during the failing init: $(tr '\n' ';' </tmp/18-dump.log)"
sleep 0.5
if vm_dmesg_since | grep -E "$bad" | grepq -vE 'kmemleak: [0-9]+ new suspected'; then
	die "after reading a dump asked during the failing init, the kernel log complains: $(vm_dmesg_since | grep -E "$bad" | grep -vE 'kmemleak: [0-9]+ new suspected' | head -n 1)"
fi
grepq 'dump refused\|no answer' /tmp/18-dump.log ||
	die "a dump asked during a failing init was not refused: $(cat /tmp/18-dump.log)"
if vm_dmesg_since | grepq 'new target'; then
	die "a target was created during a failing init: $(vm_dmesg_since | grep 'new target' | head -n 1)"
fi
grepq -v 'never opened' /tmp/18-open.log &&
	die "a control file could be opened during a failing init: $(cat /tmp/18-open.log)"

vm_load_aoe aoe_iflist=a0
vm_aoe_up e1.2
pp dd if=/dev/etherd/e1.2 of=/dev/null bs=64k count=4 iflag=direct status=none
vm_unload_aoe
log "normal load after the failed ones: e1.2 up"
