#!/bin/bash
# aoe-ddt refuses to write to a block device that is in use or carries a
# filesystem, and then touches nothing:
#
#   /dev/ram0 (brd) + ext2, mounted ro   aoe-ddt -w / --verify    -> exit 3, md5 unchanged
#   /dev/ram0 + ext2, not mounted        aoe-ddt -w               -> exit 3, md5 unchanged
#   /dev/ram0 + ext2, not mounted        aoe-ddt -w --force       -> exit 0, data written
#   /dev/ram0 with aoe-ddt's own pattern aoe-ddt -w               -> exit 0 (no signature)
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

ddt_expect 3 "mounted disk" -w -s 16M "$disk"
grep -q "mounted on $mnt" /tmp/ddt.err || die "refusal does not say where it is mounted: $(cat /tmp/ddt.err)"
ddt_expect 3 "mounted disk, --verify" --verify -s 16M "$disk"
ddt_expect 3 "mounted disk, random writes" -w --random -b 4k -q 32 -t 2 "$disk"
[ "$(sum)" = "$before" ] || die "the mounted disk changed although aoe-ddt refused"
[ "$(cat "$mnt/file")" = hello ] || die "the file on the mounted disk changed"
# Reading is always allowed.
ddt_expect 0 "read of a mounted disk" -r -s 16M "$disk"

pp umount "$mnt"
before=$(sum)
ddt_expect 3 "unmounted ext2 disk" -w -s 16M "$disk"
grep -q "ext2" /tmp/ddt.err || die "refusal does not name the ext2 signature: $(cat /tmp/ddt.err)"
[ "$(sum)" = "$before" ] || die "the ext2 disk changed although aoe-ddt refused"

ddt_expect 0 "--force" -w --force -s 16M "$disk"
grep -q '^write: 16 MiB' /tmp/ddt.out || die "no write summary: $(head -n 1 /tmp/ddt.out)"
[ "$(sum)" != "$before" ] || die "--force wrote nothing"
ddt_expect 0 "--force --verify" --verify --force -s 16M --json "$disk"
vm_json_check /tmp/ddt.out '.verify.checked_sectors == 32768 and .verify.bad_sectors == 0' "verify after --force"

# The ext2 superblock is gone now: nothing to protect, no --force needed.
ddt_expect 0 "disk without a signature" -w -s 16M "$disk"
log "aoe-ddt safety ok"
