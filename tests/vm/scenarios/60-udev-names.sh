#!/bin/bash
# needs: aoe.ko
# Persistent names from contrib/udev/60-aoe-persistent.rules, applied by the
# real systemd-udevd (running without systemd as PID 1; the image has only
# this rules file):
#
#   a0 (aoe.ko) <--veth--> b0 (vblade 1 2 b0 /dev/ram0)
#
# On the add events: /dev/disk/by-path/aoe-e1.2 -> /dev/etherd/e1.2; after a
# partition table, aoe-e1.2-part1 -> e1.2p1; the links survive a change event
# (udevadm trigger); no link for ram0 (not an AoE disk). by-id: when the disk
# has sysfs attributes model and serial, /dev/disk/by-id/aoe-MODEL_SERIAL and
# -part1 (whitespace and unsafe characters as "_"); without them, no by-id
# link and a line "by-id not checked: no serial attribute". rmmod removes the
# links. The in-tree aoe: the same by-path link, no by-id link.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

udevd=/lib/systemd/systemd-udevd
rules=/lib/udev/rules.d/60-aoe-persistent.rules
[ -x "$udevd" ] && command -v udevadm >/dev/null || die "no systemd-udevd/udevadm in the image"
[ -e "$rules" ] || die "no $rules in the image"
# In the background (not --daemon), so that the EXIT trap stops it (and
# before the module goes: no events are left half done), then its links
# and database go.
mkdir -p /run/udev
printf '+ %s\n' "$udevd --resolve-names=never" >&2
"$udevd" --resolve-names=never >/tmp/udevd.log 2>&1 &
udevd_pid=$!
trap 'rc=$?; set +e; kill $udevd_pid; for _ in $(seq 50); do kill -0 $udevd_pid 2>/dev/null || break; sleep 0.1; done
	rm -rf /dev/disk /run/udev; (exit $rc); _vm_cleanup' EXIT
vm_wait_for "udevadm control --ping --timeout=1" 10 || die "systemd-udevd did not start: $(cat /tmp/udevd.log)"

disk=$(vm_ramdisk 64)
vm_veth a0 b0
vm_vblade 1 2 b0 "$disk"
vm_load_aoe aoe_iflist=a0
vm_aoe_up e1.2
path=/dev/disk/by-path/aoe-e1.2
# target_is LINK NODE: LINK is a symlink that resolves to NODE.
target_is() { [ -L "$1" ] && [ "$(readlink -f "$1")" = "$2" ]; }
# links [DIR]: what is in /dev/disk (or DIR), on one line, for messages.
links() { ls -lR "${1:-/dev/disk}" 2>&1 | tr '\n' ' ' || true; }
# no_links DIR: DIR is empty or absent.
no_links() { [ -z "$(ls -A "$1" 2>/dev/null || true)" ]; }
vm_wait_for "target_is $path /dev/etherd/e1.2" 10 ||
	die "no $path -> /dev/etherd/e1.2 after the add event: $(links) udevd: $(tail -n 5 /tmp/udevd.log | tr '\n' ' ' || true)"
log "$path -> $(readlink "$path")"

printf 'label: dos\nstart=2048, size=32768, type=83\n' | pp timeout 30 sfdisk --no-reread -q /dev/etherd/e1.2
timeout 30 blockdev --rereadpt /dev/etherd/e1.2 || true
vm_wait_for "target_is $path-part1 /dev/etherd/e1.2p1" 10 ||
	die "no $path-part1 -> /dev/etherd/e1.2p1: $(links /dev/disk/by-path)"

pp udevadm trigger --action=change --subsystem-match=block
pp timeout 20 udevadm settle --timeout=15
target_is "$path" /dev/etherd/e1.2 && target_is "$path-part1" /dev/etherd/e1.2p1 ||
	die "links lost after a change event: $(links /dev/disk/by-path)"
got=$(ls /dev/disk/by-path/ | tr '\n' ' ')
[ "$got" = "aoe-e1.2 aoe-e1.2-part1 " ] || die "by-path holds '$got', expected only aoe-e1.2 and its -part1"
# (through cat: udevadm would page on the console)
udevadm info --query=property --name=/dev/etherd/e1.2 | cat >/tmp/e1.2.props
cat /tmp/e1.2.props
grep -qx 'ID_PATH=aoe-e1.2' /tmp/e1.2.props || die "udev database of e1.2 lacks ID_PATH=aoe-e1.2"

# by-id, when the module provides the attributes.
sys='/sys/block/etherd!e1.2'
if [ -e "$sys/serial" ] && [ -e "$sys/model" ]; then
	# udev drops trailing whitespace of $attr, and string_escape=replace
	# turns anything but [0-9A-Za-z#+-.:=@_] into "_".
	model=$(sed 's/[[:space:]]*$//' "$sys/model")
	serial=$(sed 's/[[:space:]]*$//' "$sys/serial")
	log "model '$model' serial '$serial'"
	if [ -n "$model" ] && [ -n "$serial" ]; then
		id=/dev/disk/by-id/aoe-$(printf '%s_%s' "$model" "$serial" | sed 's/[^0-9A-Za-z#+.:=@_-]/_/g')
		target_is "$id" /dev/etherd/e1.2 ||
			die "no $id -> /dev/etherd/e1.2: $(links /dev/disk/by-id)"
		target_is "$id-part1" /dev/etherd/e1.2p1 ||
			die "no $id-part1 -> /dev/etherd/e1.2p1: $(links /dev/disk/by-id)"
		n=$(ls /dev/disk/by-id/ | wc -l)
		[ "$n" = 2 ] || die "by-id holds $n links, expected 2: $(links /dev/disk/by-id)"
		log "by-id: $id -> $(readlink "$id")"
	else
		no_links /dev/disk/by-id ||
			die "empty model or serial, yet by-id links: $(links /dev/disk/by-id)"
		log "by-id: empty model or serial, no by-id link (as it should)"
	fi
else
	no_links /dev/disk/by-id ||
		die "no serial attribute, yet by-id links: $(links /dev/disk/by-id)"
	log "by-id not checked: no serial attribute"
fi

vm_unload_aoe
vm_wait_for "no_links /dev/disk/by-path && no_links /dev/disk/by-id" 10 ||
	die "links left after rmmod: $(links)"

# The in-tree driver names its disks the same way: by-path, no by-id.
vm_load_intree_aoe aoe_iflist=a0
vm_aoe_up e1.2
vm_wait_for "target_is $path /dev/etherd/e1.2" 10 ||
	die "in-tree aoe: no $path: $(links)"
no_links /dev/disk/by-id || die "in-tree aoe: by-id links: $(links /dev/disk/by-id)"
log "in-tree aoe: $path -> $(readlink "$path")"
vm_unload_aoe
