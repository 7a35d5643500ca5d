#!/bin/bash
# needs: aoe.ko
# timeout: 300
# kernels: 6.1 (the module's own locking, no kernel interface the two series differ in: the whole suite runs it on one series, balanced for the 45 min budget; make test-full and a named run: every kernel)
# I/O to two targets at once while the table churns around them: the data
# path takes only its own target's lock and finds the target under RCU; the
# table walks, announcements, flushes and frees take the table lock
# (ARCHITECTURE.md "Locking", doc/lock-split.md):
#
#   a0 (aoe.ko) <--veth--> b0 (aoe-fastd e1.2, aoe-fastd e1.3, aoe-inject)
#
# While fio verifies (crc32c) 4 x 4 MiB on e1.2 and on e1.3 at the same time:
# - aoe-inject announces made-up targets (shelf 300.., 100 a round) and
#   aoe-flush forgets the ones that are not up, round after round: targets
#   created, unlinked and freed (after an RCU grace period) while every answer
#   to e1.2 and e1.3 looks its target up in the same table;
# - aoe-stat --json dumps the table (a walk under the table lock, each
#   target's lock in turn) and the disks' sysfs attributes are read;
# - e1.3 is revalidated once (IDENTIFY while its I/O is in flight).
# Both verifies pass, no ATA error was answered, both targets are still up
# and answer, and a last flush leaves only them. The debug kernel's lockdep
# and KASAN watch all of it (make debug-kernel).
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

vm_veth a0 b0 9000
FASTD_TAG=f2 vm_fastd -i b0 --slot 2 -s 32M -b 64
f2pid=$FASTD_PID
FASTD_TAG=f3 vm_fastd -i b0 --slot 3 -s 32M -b 64
f3pid=$FASTD_PID
vm_load_aoe aoe_iflist=a0
vm_aoe_up e1.2 30
vm_aoe_up e1.3 30
amac=$(vm_mac a0)

# verify DEVICE: fio crc32c verify of 4 x 4 MiB, 3 loops, output in
# /tmp/fio-DEVICE.out.
verify() { FIO_TIMEOUT=200 vm_fio_verify_run "/tmp/fio-$1.out" "/dev/etherd/$1" 4 --loops=3; }

t0=$(vm_ms)
verify e1.2 &
p2=$!
verify e1.3 &
p3=$!
_vm_pids+=("$p2" "$p3")

running() { kill -0 "$p2" 2>/dev/null || kill -0 "$p3" 2>/dev/null; }
rounds=0 dumps=0 revalidated=0
while running && [ $rounds -lt 40 ]; do
	aoe-inject -i b0 -d "$amac" --shelf $((300 + rounds % 4)) -n 100 config-flood >/dev/null ||
		die "aoe-inject config-flood failed"
	for _ in 1 2 3; do
		aoe-stat --json >/tmp/stat.json || die "aoe-stat --json failed during the churn"
		dumps=$((dumps + 1))
		cat '/sys/block/etherd!e1.2/state' '/sys/block/etherd!e1.3/mac' \
			'/sys/block/etherd!e1.2/netif' '/sys/block/etherd!e1.3/payload' >/dev/null
	done
	if [ $revalidated = 0 ] && [ $rounds = 2 ]; then
		pp aoe-revalidate e1.3 >/dev/null || die "aoe-revalidate e1.3 failed"
		revalidated=1
	fi
	timeout 60 aoe-flush >/dev/null || die "aoe-flush failed or hung during the churn"
	rounds=$((rounds + 1))
done
rc2=0 rc3=0
wait "$p2" || rc2=$?
wait "$p3" || rc3=$?
log "fio on e1.2 and e1.3 done in $(($(vm_ms) - t0)) ms: $rounds churn rounds ($((rounds * 100)) announcements), $dumps dumps"
for d in e1.2 e1.3; do
	grep -E 'WRITE:|READ:' "/tmp/fio-$d.out" || true
done
[ "$rc2" = 0 ] || { tail -n 30 /tmp/fio-e1.2.out; die "fio verify on e1.2 failed (status $rc2)"; }
[ "$rc3" = 0 ] || { tail -n 30 /tmp/fio-e1.3.out; die "fio verify on e1.3 failed (status $rc3)"; }
[ $rounds -ge 3 ] || die "only $rounds churn rounds ran beside the I/O"

for d in e1.2 e1.3; do
	grep -q '^up' "/sys/block/etherd!$d/state" || die "$d is not up after the churn"
	dd if="/dev/etherd/$d" of=/dev/null bs=64k count=16 iflag=direct status=none ||
		die "$d does not read after the churn"
done
vm_wait_for "timeout 60 aoe-flush >/dev/null; [ \"\$(aoe-stat --json | jq '.targets | length')\" = 2 ]" 60 ||
	die "made-up targets left after the last flush: $(aoe-stat --json | jq -c '[.targets[].device]')"
log "only e1.2 and e1.3 left after the last flush"
vm_unload_aoe
for tag in f2 f3; do
	if [ $tag = f2 ]; then FASTD_PID=$f2pid; else FASTD_PID=$f3pid; fi
	FASTD_TAG=$tag vm_fastd_stop
	[ "$(FASTD_TAG=$tag vm_fastd_counter errors)" = 0 ] ||
		die "aoe-fastd $tag answered $(FASTD_TAG=$tag vm_fastd_counter errors) ATA errors"
done
