#!/bin/bash
# needs: aoe.ko aoe_ktgt.ko
# timeout: 300
# aoe_ktgt, the in-kernel test target of tests/ktgt (make bench --targets
# ktgt), against our module and the in-tree one:
#
#   a0 (aoe.ko) <--veth--> b0 (aoe_ktgt ifaces=b0 slots=2,3)
#
# - MTU 1500 and 9000 (aoe_ktgt zc_reads=1): both targets announced and
#   up, size and payload as the target's Query Config and IDENTIFY say,
#   fio crc32c verify on e1.2 and e1.3 at once, no ATA error answered,
#   every write counted
# - MTU 9000: 4 MiB of zero-copy writes are copied by the veth by default
#   (skb_copy_ubufs, a kprobe: the pages do not reach another namespace);
#   with aoe_zerocopy_forward=Y (SKBFL_DONT_ORPHAN) they reach the target's
#   rx_handler without a copy; read back identical both times
# - MTU 9000: a 16 KiB read whose answers netem holds 500 ms on b0 (the
#   round trip learnt first: no retransmission) while the target is
#   unloaded: the answers (frags of the target's RAM disk pages, which
#   outlive its vfree()) arrive after and read back what was written;
#   the same against copied answers in pages recycled through rings of 2
#   (pool_pages=2: reused, replaced while held, held at unload); then the
#   initiator unloads: no oops
# - aoe_ktgt rx_handler=0 (a packet handler only), aoe_zerocopy_forward=Y:
#   the same writes are copied by the core's delivery and read back identical
# - the in-tree driver: discovery, 4 MiB written and read back
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

# verify DEVICE: fio crc32c verify of 4 x 2 MiB, output in /tmp/fio-DEVICE.out.
verify() { vm_fio_verify_run "/tmp/fio-$1.out" "/dev/etherd/$1" 2; }

# copies CMD...: run CMD; ncopies is how often the core copied a zero-copy
# frame's pages meanwhile (skb_copy_ubufs, kprobe; every CPU's trace).
# A kernel without kprobe events (the debug kernel): ncopies is "-", the
# copy counts are logged as not checked.
copies() {
	local tr=/sys/kernel/tracing
	if [ ! -e $tr/kprobe_events ]; then
		ncopies=-
		"$@"
		return
	fi
	echo 'p:aoe71_ubufs skb_copy_ubufs' >>$tr/kprobe_events || die "cannot put a kprobe on skb_copy_ubufs"
	echo >$tr/trace
	echo 1 >$tr/events/kprobes/aoe71_ubufs/enable
	"$@"
	echo 0 >$tr/events/kprobes/aoe71_ubufs/enable
	ncopies=$(grep -c 'aoe71_ubufs:' $tr/trace || true)
	echo '-:aoe71_ubufs' >>$tr/kprobe_events
}

# zc_writes WHAT: 4 MiB written to e1.2 at 20 MiB (1 MiB O_DIRECT, zero-copy
# frames) and read back; ncopies as copies() sets it; nframes is how many
# frames carry them (4 x 1 MiB in frames of e1.2's payload), each copied
# once where the core copies.
zc_writes() {
	local p
	p=$(vm_sysfs e1.2 payload)
	nframes=$((4 * ((1048576 + p - 1) / p)))
	copies pp dd if=/tmp/blob of=/dev/etherd/e1.2 bs=1M seek=20 oflag=direct status=none
	dd if=/dev/etherd/e1.2 bs=1M skip=20 count=4 iflag=direct status=none | cmp - /tmp/blob ||
		die "$1: 4 MiB read back differ"
	if [ "$ncopies" = - ]; then
		log "$1: 4 MiB written zero-copy and read back identical (no kprobe events in this kernel: copies not counted)"
	else
		log "$1: 4 MiB written zero-copy ($nframes frames) and read back identical, skb_copy_ubufs ran $ncopies times"
	fi
}

# held_unload WHAT: answers held on the way while the target goes (netem
# delays b0's frames 500 ms): a 16 KiB read of e1.2 at 20 MiB, the target
# unloaded 0.2 s after it started; the answers come after and read back
# what was written. The target is loaded; it is not after.
held_unload() {
	local i pd t0
	pp dd if=/tmp/blob of=/dev/etherd/e1.2 bs=16k count=1 seek=1280 oflag=direct status=none
	pp tc qdisc replace dev b0 root netem delay 500ms
	# first the initiator learns the 500 ms round trip (its RTO past
	# it): the answers held below are then answers to first
	# transmissions, not to a tag two retransmissions old (dropped)
	for i in 1 2 3 4 5 6; do
		dd if=/dev/etherd/e1.2 of=/dev/null bs=4k count=1 skip=$i iflag=direct status=none ||
			die "$1: a 4 KiB read over a 500 ms round trip failed"
	done
	# 16 KiB: 2 frames, sent at once (the window is 5 after this)
	dd if=/dev/etherd/e1.2 of=/tmp/held bs=16k count=1 skip=1280 iflag=direct status=none &
	pd=$!
	pp sleep 0.2
	vm_ktgt_stop
	t0=$(vm_ms)
	for _ in $(seq 300); do kill -0 "$pd" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$pd" 2>/dev/null; then
		aoe-stat --json >&2
		die "$1: a read answered before the target's unload did not end in 30 s"
	fi
	wait "$pd" || die "$1: a read answered before the target's unload failed"
	head -c 16384 /tmp/blob | cmp - /tmp/held || die "$1: answers held past the target's unload read back differ"
	log "$1: 16 KiB read answered before aoe_ktgt unloaded, held 500 ms: ended $(($(vm_ms) - t0)) ms after the unload, identical"
	pp tc qdisc del dev b0 root
}

vm_tracefs
pp dd if=/dev/urandom of=/tmp/blob bs=1M count=4 status=none

reset() {
	vm_unload_aoe
	vm_ktgt_stop
	pp ip link del a0
	_vm_links=()
}

for mtu in 1500 9000; do
	vm_veth a0 b0 "$mtu"
	# reads answered from the RAM disk's pages (zc_reads, aoe_ktgt.c)
	VM_KTGT_PARAMS=zc_reads=1 vm_ktgt b0 32 2 3
	vm_load_aoe aoe_iflist=a0
	vm_aoe_up e1.2
	vm_aoe_up e1.3
	want=$(((mtu - 36) / 512 * 512))
	for t in e1.2 e1.3; do
		[ "$(vm_sysfs $t payload)" = "$want" ] || die "MTU $mtu: $t payload $(vm_sysfs $t payload), expected $want"
		[ "$(vm_sysfs $t size)" = $((32 * 2048)) ] || die "$t: size $(vm_sysfs $t size), expected $((32 * 2048))"
	done
	t0=$(vm_ms)
	verify e1.2 &
	p2=$!
	verify e1.3 &
	p3=$!
	rc2=0 rc3=0
	wait "$p2" || rc2=$?
	wait "$p3" || rc3=$?
	for d in e1.2 e1.3; do
		grep -E 'WRITE:|READ:' "/tmp/fio-$d.out" >&2 || true
	done
	[ "$rc2" = 0 ] || { tail -n 30 /tmp/fio-e1.2.out >&2; die "MTU $mtu: fio verify on e1.2 failed (status $rc2)"; }
	[ "$rc3" = 0 ] || { tail -n 30 /tmp/fio-e1.3.out >&2; die "MTU $mtu: fio verify on e1.3 failed (status $rc3)"; }
	log "MTU $mtu: fio verify 4 x 2 MiB on e1.2 and e1.3 at once in $(($(vm_ms) - t0)) ms"
	cat /sys/module/aoe_ktgt/parameters/stats >&2
	for s in 2 3; do
		[ "$(vm_ktgt_counter $s errors)" = 0 ] || die "e1.$s: aoe_ktgt answered $(vm_ktgt_counter $s errors) ATA errors"
		[ "$(vm_ktgt_counter $s sectors_written)" -ge $((4 * 2 * 2048)) ] ||
			die "e1.$s: $(vm_ktgt_counter $s sectors_written) sectors written, fewer than fio's $((4 * 2 * 2048))"
		[ "$(vm_ktgt_counter $s identify)" -ge 1 ] || die "e1.$s: never identified"
	done
	if [ "$mtu" = 9000 ]; then
		zc_writes "aoe_zerocopy_forward=N"
		[ "$ncopies" = - ] || [ "$ncopies" -ge "$nframes" ] ||
			die "aoe_zerocopy_forward=N: $ncopies copies of $nframes zero-copy write frames: the veth passed pages on without a copy"
		echo Y >/sys/module/aoe/parameters/aoe_zerocopy_forward
		zc_writes "aoe_zerocopy_forward=Y"
		[ "$ncopies" = - ] || [ "$ncopies" = 0 ] || die "aoe_zerocopy_forward=Y: the core copied zero-copy write pages $ncopies times on the way to aoe_ktgt's rx_handler (expected none)"
		held_unload "zc_reads=1: answers made of the RAM disk's pages"
		# the same with copied answers, in pages recycled through rings
		# of 2 (kt_page()): the warm-up reads reuse pages, the held
		# answers' pages are replaced, the rings still point at them
		# when they are emptied at unload
		VM_KTGT_PARAMS=pool_pages=2 vm_ktgt b0 32 2 3
		held_unload "copied answers (recycled pages)"
		vm_unload_aoe
		pp ip link del a0
		_vm_links=()
	else
		reset
	fi
done

# aoe_ktgt as a packet handler: the core copies the pages before delivery,
# which the kprobe sees (so its 0 above is not an artefact).
vm_veth a0 b0 9000
VM_KTGT_PARAMS=rx_handler=0 vm_ktgt b0 32 2
vm_load_aoe aoe_iflist=a0 aoe_zerocopy_forward=Y
vm_aoe_up e1.2
zc_writes "packet handler"
[ "$ncopies" = - ] || [ "$ncopies" -ge "$nframes" ] ||
	die "aoe_ktgt rx_handler=0: $ncopies copies of $nframes zero-copy write frames delivered to a packet handler"
[ "$(vm_ktgt_counter 2 errors)" = 0 ] || die "rx_handler=0: aoe_ktgt answered ATA errors"
reset

# The in-tree driver.
vm_veth a0 b0 9000
vm_ktgt b0 32 2
vm_load_intree_aoe aoe_iflist=a0
pp "$AOETOOLS/aoe-discover"
vm_aoe_up e1.2 20
pp dd if=/tmp/blob of=/dev/etherd/e1.2 bs=1M seek=5 oflag=direct status=none
dd if=/dev/etherd/e1.2 bs=1M skip=5 count=4 iflag=direct status=none | cmp - /tmp/blob ||
	die "in-tree aoe: 4 MiB read back differ"
log "in-tree aoe: payload $(vm_sysfs e1.2 payload), 4 MiB read back identical"
[ "$(vm_ktgt_counter 2 errors)" = 0 ] || die "in-tree aoe: aoe_ktgt answered ATA errors"
reset
