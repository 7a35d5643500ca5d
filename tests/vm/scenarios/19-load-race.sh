#!/bin/bash
# needs: aoe.ko
# timeout: 180
# A target that answers at once is seen at load, every time:
#
#   a0 (aoe.ko, every interface) <--veth--> b0 (vblade 1 2 b0 /dev/ram0)
#   + 300 more veth pairs, up
#
# Loading sends Query Config before the receive hook can take an answer: the
# discover step's first broadcast and the NETDEV_UP events replayed when the
# netdev notifier is registered (each sending on its interface). The extra
# interfaces make that replay take long enough for vblade to answer a0's
# Query Config before the hook is in. The module must broadcast again once
# it can receive: before the fix, 17 of 20 loads did not see e1.2 within 4 s
# (the next broadcast was the periodic one, 60 s later; CI once failed 18's
# final load on this).
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

loads=10
disk=$(vm_ramdisk 64)
vm_veth a0 b0
for i in $(seq 1 300); do
	echo "link add d$i type veth peer name e$i"
	echo "link set d$i up"
	echo "link set e$i up"
done >/tmp/ipb
pp ip -batch /tmp/ipb
vm_vblade 1 2 b0 "$disk"
# vblade's own start-up announcement must not be what is seen
sleep 2
miss=0
for i in $(seq 1 $loads); do
	m0=$(vm_ms)
	pp insmod "$AOE_KO"
	if vm_wait_for "test -b /dev/etherd/e1.2" "$((4 * AOE_SLOW))"; then
		log "load $i: e1.2 after $(($(vm_ms) - m0)) ms"
	else
		log "load $i: e1.2 not seen"
		miss=$((miss + 1))
	fi
	vm_unload_aoe
done
# deleting one end of a pair deletes both; /init would do it one by one
for i in $(seq 1 300); do echo "link del d$i"; done >/tmp/ipb
pp ip -batch /tmp/ipb
[ "$miss" = 0 ] || die "e1.2 not seen within 4 s at $miss of $loads loads"
log "e1.2 seen at each of $loads loads"
