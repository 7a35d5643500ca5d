#!/bin/bash
# needs: aoe.ko
# Module parameters and load/unload: defaults, every parameter set to a valid
# value, invalid values rejected at load (insmod fails, reason in dmesg) and
# at run time (write fails, value kept), /sys/module/aoe/parameters readable,
# rmmod works, repeated load/unload cycles.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

P=/sys/module/aoe/parameters
param() { cat "$P/$1"; }
expect() {
	local name=$1 want=$2 got
	got=$(param "$name")
	[ "$got" = "$want" ] || die "$name is '$got', expected '$want'"
	log "$name = $got"
}

# Defaults.
vm_load_aoe
for p in aoe_iflist aoe_deadsecs aoe_maxout aoe_dyndevs aoe_maxsectors aoe_zerocopy aoe_zerocopy_forward aoe_flush aoe_fast_fail aoe_netns; do
	[ -r "$P/$p" ] || die "$P/$p missing or unreadable"
done
expect aoe_iflist ""
expect aoe_deadsecs 180
expect aoe_maxout 64
expect aoe_dyndevs 1
expect aoe_maxsectors 0
expect aoe_zerocopy Y
expect aoe_zerocopy_forward N
expect aoe_flush auto
expect aoe_fast_fail 0
expect aoe_netns N
expect aoe_rx_spread N
expect aoe_tx_spread N
expect aoe_copy_spread N
expect aoe_hw_queues 1
pp modinfo -F parm /aoe/aoe.ko
# the in-tree driver's five, and aoekit's aoe_zerocopy, aoe_zerocopy_forward,
# aoe_flush, aoe_fast_fail, aoe_netns, aoe_rx_spread, aoe_tx_spread,
# aoe_copy_spread and aoe_hw_queues
[ "$(modinfo -F parm /aoe/aoe.ko | grep -c '^aoe_')" = 14 ] || die "modinfo does not list 14 aoe_ parameters"
vm_unload_aoe

# Every parameter set to a valid, non-default value.
vm_load_aoe aoe_iflist=eth0,eth1 aoe_deadsecs=30 aoe_maxout=16 aoe_dyndevs=0 aoe_maxsectors=64
expect aoe_iflist "eth0 eth1"
expect aoe_deadsecs 30
expect aoe_maxout 16
expect aoe_dyndevs 0
expect aoe_maxsectors 64

# Run-time writes: valid ones take effect, invalid ones fail and change nothing.
pp sh -c "echo 90 > $P/aoe_deadsecs"
expect aoe_deadsecs 90
for bad in aoe_deadsecs=0 aoe_deadsecs=-1 aoe_maxout=0 aoe_maxsectors=3 aoe_maxsectors=x; do
	name=${bad%%=*} before=$(param "${bad%%=*}")
	if (echo "${bad#*=}" >"$P/$name") 2>/dev/null; then
		die "run-time write $bad accepted"
	fi
	expect "$name" "$before"
done
vm_unload_aoe

# Invalid values at load: insmod fails, the kernel log names the parameter.
for bad in aoe_deadsecs=0 aoe_maxout=0 aoe_dyndevs=2 aoe_maxsectors=3 aoe_deadsecs=abc \
	aoe_hw_queues=0 aoe_iflist=abcdefghijklmnopqrstuvwxyz; do
	vm_dmesg_mark
	if pp insmod /aoe/aoe.ko "$bad"; then
		die "insmod with $bad succeeded"
	fi
	[ ! -e /sys/module/aoe ] || die "module loaded despite $bad"
	vm_dmesg_since | grepq "${bad%%=*}" || die "no kernel message naming ${bad%%=*} after insmod $bad"
	log "rejected $bad: $(vm_dmesg_since | grep "${bad%%=*}" | head -n 1)"
done

# Load/unload cycles.
for _ in 1 2 3 4 5; do
	insmod /aoe/aoe.ko
	rmmod aoe
done
[ ! -e /sys/module/aoe ] || die "module still loaded after cycles"
log "load/unload ok"
