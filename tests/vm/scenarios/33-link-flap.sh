#!/bin/bash
# needs: aoe.ko
# timeout: 180
# The initiator's link flaps every 2 s during I/O:
#
#   a0 (aoe.ko) <--veth--> a0p [br0] b0p <--veth--> b0 (vblade 1 2 b0 /dev/ram0)
#
# vblade exits when its own interface loses carrier, so a bridge keeps b0's
# carrier while a0 goes down (0.5 s) and up every 2 s, much shorter than
# aoe_deadsecs (default 180): fio verify completes without error.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

disk=$(vm_ramdisk 256)
vm_bridged a0 b0
vm_vblade 1 2 b0 "$disk"
vm_load_aoe aoe_iflist=a0
pp "$AOETOOLS/aoe-discover"
vm_aoe_up e1.2
FIO_TIMEOUT=150
(
	set +e
	for _ in $(seq 40); do
		sleep 1.5
		ip link set a0 down
		sleep 0.5
		ip link set a0 up
	done
) &
flapper=$!
_vm_pids+=("$flapper")
m0=$(vm_ms)
# KNOWN MODULE BUG (found by this scenario, 6.1, aoekit 0.1.0 of 2026-11-30):
# after a0 goes down and up during I/O the module never sends again: the
# path shows "up", out 0, sent 14, retrans 0, timeouts 0, fio makes no
# progress until its timeout, and afterwards rmmod says "in use". This check
# is expected to fail until that is fixed.
vm_fio_verify /dev/etherd/e1.2 4
kill "$flapper" 2>/dev/null || true
wait "$flapper" 2>/dev/null || true
pp ip link set a0 up
log "fio verify with a0 flapping every 2 s: $(($(vm_ms) - m0)) ms"
kill -0 "${_vm_pids[0]}" || die "vblade died (its link lost carrier?)"
vm_aoe_up e1.2 10
pp aoe-stat -a
vm_unload_aoe
