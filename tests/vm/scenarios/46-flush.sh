#!/bin/bash
# needs: aoe.ko
# timeout: 240
# Cache flush and FUA (issue 13):
#
#   a0 (aoe.ko) <--veth, MTU 9000--> b0 (aoe-fastd --volatile | vblade)
#
# - aoe-fastd --volatile (IDENTIFY word 85 bit 5): the queue says "write back";
#   5 x dd conv=fsync = exactly 5 FLUSH CACHE EXT served; fsync'ed data survives
#   a power cut, data written without fsync does not; ext4 (mkfs, files written
#   and fsync'ed, umount): the module's flushes sent = answered = the FLUSH
#   commands aoe-fastd served, none failed, WRITE FUA EXT used (journal commits)
#   and counted; aoe-stat -a, --json and --prometheus show it
# - --no-flush (FLUSH aborted, cache still claimed): the first fsync fails,
#   one log line, the queue goes "write through", the next fsync sends nothing;
#   a revalidate (new IDENTIFY) declares the cache again; flush mode always
#   keeps it declared after an abort (the fsync fails)
# - aoe_flush=never: "write through", no FLUSH reaches the target
# - aoe-fastd without a cache, auto: "write through"; per target over netlink
#   (aoe-revalidate --flush always / default), then aoe_flush=always set at
#   run time: "write back", flushes sent
# - vblade (no cache in IDENTIFY), auto: "write through", no flush sent
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

dev=/dev/etherd/e1.2

wc_mode() { vm_sysfs e1.2 queue/write_cache; }

# fastd COUNTER: aoe-fastd's counter now (asks for its status line first).
fastd() {
	vm_fastd_ctl status >/dev/null
	vm_fastd_counter "$1"
}

# reset: module, target and link gone.
reset() {
	vm_unload_aoe
	[ -z "${FASTD_PID:-}" ] || vm_fastd_stop
	FASTD_PID=
	for p in "${_vm_pids[@]}"; do kill "$p" 2>/dev/null || true; done
	_vm_pids=()
	pp ip link del a0
	_vm_links=()
}

# fsyncs N SEEK_MB: N times 4 KiB O_DIRECT + fsync (one FLUSH each).
fsyncs() {
	local i
	for i in $(seq 1 "$1"); do
		dd if=/dev/urandom of=$dev bs=4k count=1 seek=$(($2 * 256 + i)) \
			oflag=direct conv=fsync status=none || return 1
	done
}

# check_flush_counters: module vs aoe-fastd, exact.
check_flush_counters() {
	local sent ans failed served fua mfua retr
	sent=$(vm_counter e1.2 flushes_sent)
	ans=$(vm_counter e1.2 flushes_answered)
	failed=$(vm_counter e1.2 flushes_failed)
	mfua=$(vm_counter e1.2 fua_writes)
	retr=$(vm_counter e1.2 retransmits)
	served=$(fastd flushes)
	fua=$(fastd fua)
	log "$1: module flushes sent $sent answered $ans failed $failed fua_writes $mfua retransmits $retr; aoe-fastd flushes $served fua $fua"
	[ "$sent" = "$served" ] || die "$1: module sent $sent flushes, aoe-fastd served $served"
	[ "$ans" = "$sent" ] || die "$1: $ans flushes answered of $sent sent"
	[ "$failed" = 0 ] || die "$1: $failed flushes failed"
	# FUA frames counted at their first transmission; a retransmitted one
	# is served twice
	if [ "$retr" = 0 ]; then
		[ "$mfua" = "$fua" ] || die "$1: module sent $mfua FUA writes, aoe-fastd served $fua"
	else
		[ "$fua" -ge "$mfua" ] || die "$1: module sent $mfua FUA writes, aoe-fastd served only $fua"
	fi
}

t0=$(vm_ms)
# --- a volatile cache, aoe_flush=auto (the default)
vm_veth a0 b0 9000
vm_fastd -i b0 -s 64M --volatile
vm_load_aoe aoe_iflist=a0
vm_aoe_up e1.2
[ "$(wc_mode)" = "write back" ] || die "volatile target: write_cache '$(wc_mode)', expected 'write back'"
[ "$(cat /sys/module/aoe/parameters/aoe_flush)" = auto ] || die "aoe_flush default '$(cat /sys/module/aoe/parameters/aoe_flush)'"
f0=$(fastd flushes)
fsyncs 5 1 || die "dd conv=fsync failed"
f1=$(fastd flushes)
[ $((f1 - f0)) = 5 ] || die "5 fsyncs, aoe-fastd served $((f1 - f0)) flushes"
check_flush_counters "5 fsyncs"

# fsync'ed data survives a power cut; data written without it is lost
head -c 1048576 /dev/urandom >/tmp/a
head -c 1048576 /dev/urandom >/tmp/b
pp dd if=/tmp/a of=$dev bs=1M seek=8 oflag=direct conv=fsync status=none
pp dd if=/tmp/b of=$dev bs=1M seek=9 oflag=direct status=none
vm_fastd_ctl cut
[ "$(dd if=$dev bs=1M skip=8 count=1 iflag=direct status=none | md5sum)" = "$(md5sum </tmp/a)" ] ||
	die "fsync'ed data lost in the power cut"
[ "$(dd if=$dev bs=1M skip=9 count=1 iflag=direct status=none | md5sum)" != "$(md5sum </tmp/b)" ] ||
	die "data written without fsync survived the power cut: was a flush sent anyway?"

# ext4: journal commits with FLUSH + FUA
pp mke2fs -q -F -t ext4 -E nodiscard $dev
mkdir -p /mnt/f
pp mount -t ext4 $dev /mnt/f
for i in $(seq 1 10); do
	dd if=/dev/urandom of=/mnt/f/file$i bs=64k count=1 conv=fsync status=none ||
		die "fsync of file$i failed"
done
pp sync
pp umount /mnt/f
check_flush_counters "ext4"
[ "$(vm_counter e1.2 fua_writes)" -gt 0 ] || die "ext4 journal commits sent no WRITE FUA EXT"
[ "$(vm_counter e1.2 flushes_sent)" -gt 10 ] || die "ext4 with 10 fsyncs: only $(vm_counter e1.2 flushes_sent) flushes"
vm_stat_json /tmp/s.json
vm_json_check /tmp/s.json '.module.flush == "auto"' "aoe-stat --json: module flush mode"
vm_json_check /tmp/s.json '.targets[0].write_cache == true and .targets[0].fua == true and .targets[0].flush_mode == "default" and .targets[0].cache.enabled == true' \
	"aoe-stat --json: write cache and FUA"
aoe-stat -a | tee /tmp/stat-a
grep -q 'flush auto.*write back.*fua' /tmp/stat-a || die "aoe-stat -a shows no flush mode / write cache"
grep -q 'flushes' /tmp/stat-a || die "aoe-stat -a shows no flush counters"
aoe-stat --prometheus >/tmp/prom
grep -q '^aoe_target_flushes_sent_total{.*} [1-9]' /tmp/prom || die "no aoe_target_flushes_sent_total in --prometheus"
grep -q '^aoe_target_fua_writes_total{.*} [1-9]' /tmp/prom || die "no aoe_target_fua_writes_total in --prometheus"
reset
log "volatile, auto: $(($(vm_ms) - t0)) ms"

# --- a target that aborts FLUSH while claiming a cache
vm_veth a0 b0 9000
vm_fastd -i b0 -s 16M --volatile --no-flush
vm_load_aoe aoe_iflist=a0
vm_aoe_up e1.2
[ "$(wc_mode)" = "write back" ] || die "--no-flush: write_cache '$(wc_mode)', expected 'write back' at first"
vm_dmesg_mark
! fsyncs 1 1 || die "fsync succeeded although the target aborted FLUSH"
vm_wait_for '[ "$(wc_mode)" = "write through" ]' 10 || die "write_cache still '$(wc_mode)' after FLUSH was aborted"
n=$(vm_dmesg_since | grep -c 'aborted FLUSH' || true)
vm_dmesg_since | grep 'aborted FLUSH' || true
[ "$n" = 1 ] || die "$n log lines about the aborted FLUSH, expected 1"
fsyncs 2 2 || die "fsync after the queue went write through failed"
[ "$(vm_counter e1.2 flushes_sent)" = 1 ] || die "flushes sent $(vm_counter e1.2 flushes_sent), expected 1"
[ "$(vm_counter e1.2 flushes_failed)" = 1 ] || die "flushes failed $(vm_counter e1.2 flushes_failed), expected 1"
[ "$(vm_counter e1.2 flushes_answered)" = 0 ] || die "flushes answered $(vm_counter e1.2 flushes_answered), expected 0"
vm_stat_json /tmp/s.json
vm_json_check /tmp/s.json '.targets[0].write_cache == false and .targets[0].cache.flush_refused == true' "aoe-stat --json: flush refused"
[ "$(fastd errors)" = 1 ] && [ "$(fastd flushes)" = 0 ] || die "aoe-fastd: errors $(fastd errors) flushes $(fastd flushes), expected 1 and 0"
# A new IDENTIFY forgets the abort (the target may have been replaced or
# restarted): the cache is declared again. Under flush mode always an abort
# fails the fsync and the cache stays declared.
pp aoe-revalidate e1.2
vm_wait_for '[ "$(wc_mode)" = "write back" ]' 10 ||
	die "write_cache '$(wc_mode)' after a revalidate, expected 'write back' (a new IDENTIFY forgets the abort)"
pp aoe-revalidate --flush always e1.2
! fsyncs 1 3 || die "flush mode always: fsync succeeded although the target aborts FLUSH"
sleep 2
[ "$(wc_mode)" = "write back" ] ||
	die "flush mode always: write_cache '$(wc_mode)' after an abort, expected 'write back'"
reset

# --- aoe_flush=never
vm_veth a0 b0 9000
vm_fastd -i b0 -s 16M --volatile
vm_load_aoe aoe_iflist=a0 aoe_flush=never
vm_aoe_up e1.2
[ "$(wc_mode)" = "write through" ] || die "aoe_flush=never: write_cache '$(wc_mode)'"
fsyncs 3 1 || die "dd conv=fsync failed"
[ "$(fastd flushes)" = 0 ] || die "aoe_flush=never: aoe-fastd served $(fastd flushes) flushes"
[ "$(vm_counter e1.2 flushes_sent)" = 0 ] || die "aoe_flush=never: $(vm_counter e1.2 flushes_sent) flushes sent"
! sh -c 'echo sometimes >/sys/module/aoe/parameters/aoe_flush' 2>/dev/null || die "aoe_flush=sometimes accepted"
reset

# --- no cache in IDENTIFY: auto, per target always, aoe_flush=always
vm_veth a0 b0 9000
vm_fastd -i b0 -s 16M
vm_load_aoe aoe_iflist=a0
vm_aoe_up e1.2
[ "$(wc_mode)" = "write through" ] || die "non-volatile target, auto: write_cache '$(wc_mode)'"
fsyncs 2 1 || die "dd conv=fsync failed"
[ "$(fastd flushes)" = 0 ] || die "non-volatile target, auto: $(fastd flushes) flushes served"
pp aoe-revalidate --flush always e1.2
vm_wait_for '[ "$(wc_mode)" = "write back" ]' 10 || die "per target always: write_cache '$(wc_mode)'"
aoe-stat --json >/tmp/s.json
vm_json_check /tmp/s.json '.targets[0].flush_mode == "always" and .module.flush == "auto"' "per-target flush mode"
fsyncs 3 2 || die "dd conv=fsync failed"
check_flush_counters "per target always"
[ "$(fastd flushes)" = 3 ] || die "3 fsyncs, per target always: $(fastd flushes) flushes served"
pp aoe-revalidate --flush default e1.2
vm_wait_for '[ "$(wc_mode)" = "write through" ]' 10 || die "per target back to default: write_cache '$(wc_mode)'"
! aoe-revalidate --flush sometimes e1.2 2>/dev/null || die "aoe-revalidate --flush sometimes accepted"
# the module's aoe_flush=always, changed at run time, applies to the disk
pp sh -c 'echo always >/sys/module/aoe/parameters/aoe_flush'
vm_wait_for '[ "$(wc_mode)" = "write back" ]' 10 || die "aoe_flush=always, no cache: write_cache '$(wc_mode)'"
fsyncs 2 3 || die "dd conv=fsync failed"
check_flush_counters "aoe_flush=always, no cache"
[ "$(fastd flushes)" = 5 ] || die "aoe_flush=always: $(fastd flushes) flushes served, expected 3 + 2"
pp sh -c 'echo auto >/sys/module/aoe/parameters/aoe_flush'
reset

# --- vblade: no write cache in IDENTIFY
vm_veth a0 b0 9000
ram=$(vm_ramdisk 64)
vm_vblade 1 2 b0 "$ram"
vm_load_aoe aoe_iflist=a0
vm_aoe_up e1.2
[ "$(wc_mode)" = "write through" ] || die "vblade, auto: write_cache '$(wc_mode)'"
fsyncs 3 1 || die "dd conv=fsync to vblade failed"
[ "$(vm_counter e1.2 flushes_sent)" = 0 ] || die "vblade, auto: $(vm_counter e1.2 flushes_sent) flushes sent"
log "done in $(($(vm_ms) - t0)) ms"
