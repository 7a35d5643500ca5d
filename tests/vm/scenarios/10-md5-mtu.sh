#!/bin/bash
# needs: aoe.ko
# timeout: 200
# Whole-device data integrity at MTU 1500 and 9000:
#
#   a0 (aoe.ko) <--veth, MTU 1500 / 9000--> b0 (vblade 1 2 b0 /dev/ram0, 32 MiB)
#
# 32 MiB of random data written with dd oflag=direct over the whole of
# /dev/etherd/e1.2; the md5 of e1.2 (read with O_DIRECT), of /dev/ram0 and of
# the data are equal; sysfs payload is 1024 resp. 8704 and size is 32 MiB.
# brd is reloaded at 32 MiB for this and unloaded afterwards (the next
# scenario loads it again at its own size).
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

mb=32
[ ! -e /sys/module/brd ] || pp rmmod brd
disk=$(vm_ramdisk $mb)
pp dd if=/dev/urandom of=/tmp/rand bs=1M count=$mb status=none
want=$(md5sum </tmp/rand | cut -d' ' -f1)
for mtu in 1500 9000; do
	case $mtu in 1500) payload=1024 ;; 9000) payload=8704 ;; esac
	log "MTU $mtu"
	vm_veth a0 b0 "$mtu"
	vm_vblade 1 2 b0 "$disk"
	vm_load_aoe aoe_iflist=a0
	vm_aoe_up e1.2
	[ "$(vm_sysfs e1.2 payload)" = "$payload" ] || die "MTU $mtu: payload $(vm_sysfs e1.2 payload), expected $payload"
	[ "$(vm_sysfs e1.2 size)" = $((mb * 2048)) ] || die "MTU $mtu: size $(vm_sysfs e1.2 size) sectors, expected $((mb * 2048))"
	t0=$(vm_ms)
	pp timeout 120 dd if=/tmp/rand of=/dev/etherd/e1.2 bs=1M oflag=direct conv=fsync status=none
	t1=$(vm_ms)
	got=$(timeout 120 dd if=/dev/etherd/e1.2 bs=1M iflag=direct status=none | md5sum | cut -d' ' -f1)
	t2=$(vm_ms)
	ram=$(md5sum <"$disk" | cut -d' ' -f1)
	log "MTU $mtu: write $((t1 - t0)) ms, read $((t2 - t1)) ms; md5 data $want, e1.2 $got, ram0 $ram"
	[ "$ram" = "$want" ] || die "MTU $mtu: md5 of /dev/ram0 ($ram) differs from the data written ($want)"
	[ "$got" = "$want" ] || die "MTU $mtu: md5 of /dev/etherd/e1.2 ($got) differs from the data written ($want)"
	vm_unload_aoe
	kill "${_vm_pids[@]}" 2>/dev/null || true
	wait "${_vm_pids[@]}" 2>/dev/null || true
	_vm_pids=()
	pp ip link del a0
	_vm_links=()
	# Different data for the second round.
	if [ $mtu = 1500 ]; then
		pp dd if=/dev/urandom of=/tmp/rand bs=1M count=$mb status=none
		want=$(md5sum </tmp/rand | cut -d' ' -f1)
	fi
done
pp rmmod brd
