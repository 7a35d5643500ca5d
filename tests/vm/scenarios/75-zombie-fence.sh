#!/bin/bash
# needs: aoe.ko aoe_ktgt.ko
# timeout: 180
# A failed write whose copies this host still holds must not land over a
# later write that succeeded (the stale-write fence, fence.c, for frames
# that outlive their request: zombies, io.c):
#
#   a0 (aoe.ko, aoe_deadsecs=2, netem delay 12 s) <--veth--> b0 (aoe_ktgt)
#
# Write A (4 KiB O_DIRECT) to sector 64: a0's netem holds its frames 12 s,
# so it fails with EIO after about aoe_deadsecs (the target is failed) while
# a0 still holds its copies (zombies). netem's delay is then set to 0:
# frames sent from now on leave at once, ahead of A's held copies (netem
# sends in time order), which leave 12 s after they were sent. e1.2 is
# brought back with a discover, and write B to the same sector is retried
# (as an application would after EIO) until it succeeds. Checked:
# - the block read back once A's copies have left and landed is B, the
#   last write that succeeded (without the fence for zombies, B succeeded
#   at once and A's late copy then overwrote it)
# - B succeeded only after A's copies left a0 (the fence held it meanwhile)
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

vm_veth a0 b0
vm_ktgt b0 16 2
vm_load_aoe aoe_iflist=a0 aoe_deadsecs=2
vm_aoe_up e1.2
dev=/dev/etherd/e1.2
[ "$(cat /sys/module/aoe/parameters/aoe_zerocopy)" = Y ] || die "aoe_zerocopy is not on"
pp dd if=/dev/urandom of=/tmp/a bs=4k count=1 status=none
pp dd if=/dev/urandom of=/tmp/b bs=4k count=1 status=none
# sectors_written of e1.2 at the target: A's copies landing show there
landed() { vm_ktgt_counter 2 sectors_written; }

hold=12
pp tc qdisc add dev a0 root netem delay ${hold}s
m0=$(vm_ms)
rc=0
timeout 30 dd if=/tmp/a of=$dev bs=4k seek=8 count=1 oflag=direct status=none 2>/tmp/dd.err || rc=$?
log "write A ended after $(($(vm_ms) - m0)) ms, status $rc: $(cat /tmp/dd.err)"
[ "$rc" != 0 ] || die "write A succeeded although a0 holds every frame ${hold} s"
[ "$rc" != 124 ] || die "write A hung (aoe_deadsecs=2)"
pp tc qdisc change dev a0 root netem delay 0ms
pp sh -c 'echo > /dev/etherd/discover'
vm_aoe_up e1.2 10
w0=$(landed)

# B, retried after each failure (a held write fails at its deadline)
tries=0
ok=""
while [ $(($(vm_ms) - m0)) -lt $(((hold + 30) * 1000)) ]; do
	tries=$((tries + 1))
	if timeout 30 dd if=/tmp/b of=$dev bs=4k seek=8 count=1 oflag=direct status=none 2>/dev/null; then
		ok=$(vm_ms)
		break
	fi
	sleep 0.2
done
[ -n "$ok" ] || die "write B never succeeded in $((hold + 30)) s ($tries tries)"
log "write B succeeded $((ok - m0)) ms after A was sent, try $tries"
# A's copies leave a0 about $hold s after they were sent, and land at once
vm_wait_for "[ \$(landed) -gt $((w0 + 8)) ]" $((hold + 10)) ||
	log "no sectors landed after B (sectors_written $w0 -> $(landed))"
sleep 2
log "sectors written at the target: $w0 -> $(landed) (B: 8)"
pp tc -s qdisc show dev a0
dd if=$dev of=/tmp/back bs=4k skip=8 count=1 iflag=direct status=none || die "read back failed"
if cmp -s /tmp/back /tmp/a; then
	die "sector 64 holds A, the write that failed, over B, which succeeded $((ok - m0)) ms after A was sent"
fi
cmp -s /tmp/back /tmp/b || die "sector 64 holds neither A nor B"
[ $((ok - m0)) -ge $((hold * 1000)) ] ||
	die "write B succeeded $((ok - m0)) ms after A, before A's held copies left a0 (${hold} s)"
log "sector 64 holds B; B was held until A's copies had left"
vm_ktgt_stop
vm_wait_for "timeout 10 rmmod aoe" 20 || die "rmmod aoe refused after every frame left a0"
