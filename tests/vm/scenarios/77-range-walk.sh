#!/bin/bash
# needs: aoe.ko
# timeout: 400
# Each frame walks only its own part of its request's data (io.c
# aoe_io_range(): from the bio position kept as the request is carved into
# frames, not from the request's first segment). Data must come back
# identical where that position is easy to get wrong:
#
#   a0 (aoe.ko) <--veth--> b0 (vblade 1 2 b0 /dev/ram0)
#
# at MTU 1500 (1 KiB frames) and 9000 (8 KiB) with zero-copy writes (frags
# of the request's pages), and at 1500 with aoe_zerocopy=0 (copied in):
# - requests of several bios: fio sequential 4 KiB O_DIRECT writes, then
#   reads, at qd 64 submitted 64 at a time, which the block layer merges
#   into bigger requests (the disk's write and read merge counters must
#   rise); crc32c verified
# - segments that start inside a page: the same, and random writes of
#   4-256 KiB, from buffers 512 bytes past a page boundary
#   (iomem_align=512: every page segment is cut, and frames end inside
#   pages)
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

disk=$(vm_ramdisk 256)
dev=/dev/etherd/e1.2

# merges: "READ_MERGES WRITE_MERGES" of e1.2 (/sys/block/.../stat)
merges() { awk '{ print $2, $6 }' "/sys/block/etherd!e1.2/stat"; }

# seqrun NAME OFFSET_MB [fio args]: 8 MiB of sequential 4 KiB writes at
# OFFSET_MB, read back and crc32c verified, submitted 64 at a time
seqrun() {
	local name=$1 off=$2 rc=0
	shift 2
	timeout -k 5 "$((100 * AOE_SLOW))" fio --name="$name" --filename="$dev" \
		--ioengine=libaio --direct=1 --rw=write --bs=4k --iodepth=64 \
		--iodepth_batch_submit=64 --iodepth_batch_complete_min=1 \
		--size=8M --offset="${off}M" --verify=crc32c --verify_fatal=1 \
		--do_verify=1 --eta=never --output=/tmp/fio-seq.out "$@" || rc=$?
	if [ "$rc" != 0 ]; then
		tail -n 30 /tmp/fio-seq.out >&2
		die "$name: fio sequential verify failed (status $rc)"
	fi
}

for run in "1500 Y" "9000 Y" "1500 N"; do
	read -r mtu zc <<<"$run"
	vm_veth a0 b0 "$mtu"
	vm_vblade 1 2 b0 "$disk"
	vm_load_aoe aoe_iflist=a0 aoe_zerocopy="$zc"
	vm_aoe_up e1.2
	read -r rm0 wm0 <<<"$(merges)"
	seqrun "seq-$mtu-$zc" 0
	seqrun "seq-odd-$mtu-$zc" 16 --iomem_align=512
	read -r rm1 wm1 <<<"$(merges)"
	log "MTU $mtu aoe_zerocopy=$zc: 2 x 8 MiB of merged 4 KiB I/O verified (write merges $((wm1 - wm0)), read merges $((rm1 - rm0)))"
	[ $((wm1 - wm0)) -gt 0 ] || die "MTU $mtu: no write was merged: no request of several bios"
	[ $((rm1 - rm0)) -gt 0 ] || die "MTU $mtu: no read was merged: no request of several bios"
	vm_fio_verify "$dev" 4 --offset=32M --iomem_align=512
	vm_vblade_link_del
done
