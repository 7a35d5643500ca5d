#!/bin/bash
# kernels: 6.1 (the module's own protocol logic or a tool, no kernel interface the two series differ in: the whole suite runs it on one series, balanced for the 45 min budget; make test-full and a named run: every kernel)
# aoe-ddt refuses to write to a block device that is in use or carries a
# filesystem, and then touches nothing; it stops at the first I/O error:
#
#   /dev/ram0 (brd) + ext2, mounted ro   aoe-ddt -w / --verify / --force -> exit 4, md5 unchanged
#   /dev/ram0 + ext2, mounted ro         aoe-ddt -w --force-mounted      -> exit 0, written
#   /dev/ram0 + ext2, not mounted        aoe-ddt -w               -> exit 4, md5 unchanged
#   /dev/ram0 + ext2, not mounted        aoe-ddt -w --force       -> exit 0, data written
#   /dev/ram0 with aoe-ddt's own pattern aoe-ddt -w               -> exit 0 (no signature)
#   /dev/ram0 blockdev --setro           aoe-ddt -w --force       -> exit 1 at once, "read-only",
#                                                                    no write reached the disk
#   null_blk with 1 MiB of bad blocks    aoe-ddt -r               -> exit 1, stops at the first
#                                                                    error (at most qd errors)
#                                        --continue-on-error      -> every bad block counted,
#                                                                    none in the latency histogram
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

disk=$(vm_ramdisk 256)
mnt=/tmp/ddt-mnt
# The EXIT trap of guest-lib.sh reads $?: keep it across our unmount.
trap 'rc=$?; set +e; grep -qs " $mnt " /proc/mounts && umount "$mnt"; (exit $rc); _vm_cleanup' EXIT

pp modprobe ext4 || die "no ext4 module in the VM (ext2 is mounted by ext4): add ext4 to KMODS in tests/vm/mkinitramfs.sh"
sum() { md5sum <"$disk" | cut -d' ' -f1; }

# ddt_expect RC WHAT ARGS...: run aoe-ddt (bounded), check its exit status.
ddt_expect() {
	local want=$1 what=$2 rc=0
	shift 2
	printf '+ aoe-ddt %s\n' "$*"
	timeout 120 aoe-ddt --no-progress "$@" >/tmp/ddt.out 2>/tmp/ddt.err || rc=$?
	cat /tmp/ddt.out /tmp/ddt.err
	[ "$rc" = "$want" ] || die "$what: aoe-ddt $* exited $rc, expected $want: $(head -n 1 /tmp/ddt.err)"
}

pp dd if=/dev/zero of="$disk" bs=1M count=8 oflag=direct status=none
pp mke2fs -q -F -t ext2 "$disk"
mkdir -p "$mnt"
pp mount -t ext2 "$disk" "$mnt"
echo hello >"$mnt/file"
pp umount "$mnt"
# Read-only, so that the filesystem itself cannot change the disk under the md5.
pp mount -t ext2 -o ro "$disk" "$mnt"
before=$(sum)

ddt_expect 4 "mounted disk" -w -s 16M "$disk"
grep -q "mounted on $mnt" /tmp/ddt.err || die "refusal does not say where it is mounted: $(cat /tmp/ddt.err)"
ddt_expect 4 "mounted disk, --verify" --verify -s 16M "$disk"
ddt_expect 4 "mounted disk, random writes" -w --random -b 4k -q 32 -t 2 "$disk"
# An old signature and a mounted filesystem are different risks: --force is
# only for the first.
ddt_expect 4 "mounted disk, --force" -w --force -s 16M "$disk"
grep -q -- "--force-mounted" /tmp/ddt.err || die "the refusal does not name --force-mounted: $(cat /tmp/ddt.err)"
[ "$(sum)" = "$before" ] || die "the mounted disk changed although aoe-ddt refused"
[ "$(cat "$mnt/file")" = hello ] || die "the file on the mounted disk changed"
# Reading is always allowed.
ddt_expect 0 "read of a mounted disk" -r -s 16M "$disk"

# Held by a holder (sysfs holders/): a dm-linear over the disk, where dmsetup exists.
if command -v dmsetup >/dev/null && dmsetup create ddt20 --table "0 2048 linear $disk 0" 2>/dev/null; then
	ddt_expect 4 "held disk, --force" -w --force -s 1M "$disk"
	grep -q "held by" /tmp/ddt.err || die "refusal does not say it is held: $(cat /tmp/ddt.err)"
	pp dmsetup remove ddt20
else
	log "no dmsetup (or dm-mod) in the VM: holders checked by the unit tests only"
fi

pp umount "$mnt"
before=$(sum)
ddt_expect 4 "unmounted ext2 disk" -w -s 16M "$disk"
grep -q "ext2" /tmp/ddt.err || die "refusal does not name the ext2 signature: $(cat /tmp/ddt.err)"
[ "$(sum)" = "$before" ] || die "the ext2 disk changed although aoe-ddt refused"

ddt_expect 0 "--force" -w --force -s 16M "$disk"
grep -q '^write: 16 MiB' /tmp/ddt.out || die "no write summary: $(head -n 1 /tmp/ddt.out)"
[ "$(sum)" != "$before" ] || die "--force wrote nothing"
ddt_expect 0 "--force --verify" --verify --force -s 16M --json "$disk"
vm_json_check /tmp/ddt.out '.verify.checked_sectors == 32768 and .verify.bad_sectors == 0' "verify after --force"

# The ext2 superblock is gone now: nothing to protect, no --force needed.
ddt_expect 0 "disk without a signature" -w -s 16M "$disk"

# --force-mounted does write to a mounted disk (read-only mounted, so that the
# filesystem cannot write back over the test).
pp mke2fs -q -F -t ext2 "$disk"
pp mount -t ext2 -o ro "$disk" "$mnt"
before=$(sum)
ddt_expect 0 "--force-mounted" -w --force-mounted -s 1M "$disk"
grep -q "force-mounted: writing although $disk is mounted on $mnt" /tmp/ddt.err || die "no warning for --force-mounted: $(cat /tmp/ddt.err)"
[ "$(sum)" != "$before" ] || die "--force-mounted wrote nothing"
pp umount "$mnt"

# A read-only device: refused before any write (BLKROGET), with the reason.
pp blockdev --setro "$disk"

before=$(sum)
t0=$(vm_ms)
ddt_expect 1 "read-only disk" -w --force -b 4k -q 32 -s 64M "$disk"
t1=$(vm_ms)
grep -q "read-only" /tmp/ddt.err || die "no read-only reason: $(cat /tmp/ddt.err)"
grep -q "I/O error" /tmp/ddt.err && die "a read-only disk was written to: $(cat /tmp/ddt.err)"
[ "$(sum)" = "$before" ] || die "the read-only disk changed"
log "read-only disk refused in $((t1 - t0)) ms"
pp blockdev --setrw "$disk"

# I/O errors: a null_blk (configfs) whose second MiB is bad blocks.
nb=/sys/kernel/config/nullb/ddt20
pp modprobe null_blk nr_devices=0
mkdir "$nb" || die "cannot create a null_blk through configfs ($nb)"
echo 64 >"$nb/size"           # MiB
echo 0 >"$nb/memory_backed"   # 6.1 checks badblocks only without memory
echo 2 >"$nb/queue_mode"
echo "+2048-4095" >"$nb/badblocks" || die "this null_blk has no badblocks"
echo 1 >"$nb/power"
# 6.12 names the disk after the configfs item, 6.1 nullb<index>.
vm_wait_for "test -b /dev/ddt20 || test -b /dev/nullb$(cat "$nb/index")" 5
nbdev=/dev/ddt20
[ -b "$nbdev" ] || nbdev=/dev/nullb$(cat "$nb/index")
# null_blk is unloaded too: a later scenario's modprobe with its own parameters
# would be a no-op (21 found no nullb0 after 20 in the same VM).
trap 'rc=$?; set +e; grep -qs " $mnt " /proc/mounts && umount "$mnt"; [ -d "$nb" ] && { echo 0 >"$nb/power"; rmdir "$nb"; }; timeout 30 rmmod null_blk; (exit $rc); _vm_cleanup' EXIT
# 6.1's null_blk takes the badblocks list but serves those sectors anyway.
if dd if="$nbdev" of=/dev/null bs=4k skip=256 count=1 iflag=direct status=none 2>/dev/null; then
	log "this kernel's null_blk does not fail its badblocks: stop-at-first-error not checked here"
else
	ddt_expect 1 "bad blocks" -r -b 4k -q 8 -s 4M --json "$nbdev"
	vm_json_check /tmp/ddt.out '.read.errors >= 1 and .read.errors <= 8 and .read.bytes < 2097152' "stops at the first error"
	vm_json_check /tmp/ddt.out '.read.first_error == "offset 1048576: Input/output error"' "first error named"
	grep -q -- "--continue-on-error" /tmp/ddt.err || die "the error message does not name --continue-on-error: $(cat /tmp/ddt.err)"
	ddt_expect 1 "bad blocks, --continue-on-error" -r -b 4k -q 8 -s 4M --continue-on-error --json "$nbdev"
	vm_json_check /tmp/ddt.out '.read.errors == 256 and .read.ios == 768 and .read.bytes == 3145728' "every bad block counted"
	vm_json_check /tmp/ddt.out '.read.lat_us.samples == 768 and .read.clat_us.samples == 768 and .read.slat_us.samples == 768' "failed I/O out of the latency histograms"
fi
log "aoe-ddt safety ok"
