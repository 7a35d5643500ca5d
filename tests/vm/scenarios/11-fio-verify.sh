#!/bin/bash
# needs: aoe.ko
# timeout: 200
# fio --verify=crc32c through our module:
#
#   a0 (aoe.ko) <--veth--> b0 (vblade 1 2 b0 /dev/ram0)
#
# Four concurrent jobs of random writes of mixed sizes (4k-256k, iodepth 16)
# on separate 4 MiB regions (offset_increment), each verified afterwards,
# at MTU 1500 and at MTU 9000 with zero-copy writes (the default), and at
# MTU 9000 with aoe_zerocopy=0 (write data copied into the frames).
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

disk=$(vm_ramdisk 256)
for run in "1500 Y" "9000 Y" "9000 N"; do
	read -r mtu zc <<<"$run"
	vm_veth a0 b0 "$mtu"
	vm_vblade 1 2 b0 "$disk"
	vm_load_aoe aoe_iflist=a0 aoe_zerocopy="$zc"
	[ "$(cat /sys/module/aoe/parameters/aoe_zerocopy)" = "$zc" ] || die "aoe_zerocopy is not $zc"
	vm_aoe_up e1.2
	t0=$(vm_ms)
	vm_fio_verify /dev/etherd/e1.2 4
	log "MTU $mtu, aoe_zerocopy=$zc: fio verify 4 x 4 MiB in $(($(vm_ms) - t0)) ms"
	vm_vblade_link_del
done
