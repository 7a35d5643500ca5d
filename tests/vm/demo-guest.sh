#!/bin/bash
# Guest side of "make demo" (tests/vm/demo.sh): one initiator, one target.
#
#   a0 (initiator: aoe.ko, MTU 9000) <--veth--> b0 (target: vblade e1.2 on a 256 MiB RAM disk)
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

heading() { printf '\n=== %s\n' "$*"; }
have() { [ -x "/aoe/bin/$1" ]; }
intree=0
grep -qw 'aoetest.demo=intree' /proc/cmdline && intree=1

heading "Network: a veth pair, a0 (initiator side) <-> b0 (target side), jumbo frames"
vm_veth a0 b0 9000

heading "Target: vblade exports a 256 MiB RAM disk as shelf 1, slot 2 (e1.2) on b0"
disk=$(vm_ramdisk 256)
vm_vblade 1 2 b0 "$disk"
log "target MAC (b0): $(vm_mac b0)"

if [ "$intree" = 1 ]; then
	heading "Initiator: the distribution's in-tree aoe driver, with aoetools (baseline)"
	vm_load_intree_aoe aoe_iflist=a0
	pp /usr/sbin/aoe-discover
	vm_wait_for "/usr/sbin/aoe-stat | grepq 'e1\\.2'" 10 || true
	heading "aoetools aoe-stat"
	pp /usr/sbin/aoe-stat
	heading "sysfs: /sys/block/etherd!e1.2"
	for f in state mac netif firmware-version payload size; do
		printf '%-18s %s\n' "$f" "$(cat "/sys/block/etherd!e1.2/$f")"
	done
	heading "A read through /dev/etherd/e1.2"
	pp dd if=/dev/etherd/e1.2 of=/dev/null bs=1M count=16 iflag=direct
	vm_unload_aoe
	exit 0
fi

heading "Initiator: load the aoekit module"
if ! vm_load_aoe aoe_iflist=a0; then
	echo
	echo "*** The aoe module did not load. Kernel log:"
	dmesg | tail -n 20 | sed "s/^/    /"
	die "aoe.ko failed to load"
fi
log "module version $(cat /sys/module/aoe/version 2>/dev/null || echo unknown)"

# Every step that fails is remembered; the last line of the demo names them
# ("demo FAILED: STEP ..."), never "everything worked".
failed=()
step() {  # step NAME CMD...: run CMD, remember NAME when it fails
	local name=$1 rc=0
	shift
	"$@" || rc=$?
	if [ "$rc" != 0 ]; then
		echo "*** step '$name' failed (status $rc)"
		failed+=("$name")
	fi
	return 0
}
need() {  # need TOOL: the tool is built, else the step fails
	have "$1" || { echo "*** $1 is not built (run 'make userland')"; return 1; }
}
# DEMO_BREAK=STEP (kernel command line aoetest.demo_break=STEP) breaks that
# step on purpose, to check that the demo reports it.
brk=$(sed -n 's/.*aoetest\.demo_break=\([^ ]*\).*/\1/p' /proc/cmdline)
broken() { [ "$brk" = "$1" ]; }
dev=/dev/etherd/e1.2

heading "aoe-discover: broadcast a Query Config and list who answered"
step aoe-discover need aoe-discover
have aoe-discover && step aoe-discover pp aoe-discover

heading "aoe-stat: targets, paths and state"
step aoe-stat need aoe-stat
step aoe-stat vm_wait_for "aoe-stat | grepq 'e1\\.2'" 10
have aoe-stat && step aoe-stat pp aoe-stat -a
heading "aoe-stat --json (excerpt: e1.2)"
have aoe-stat && step aoe-stat-json sh -c "aoe-stat --json | jq -e '.targets[] | select(.device == \"e1.2\")'"
step block-device vm_wait_for "test -b $dev" 10

heading "aoe-ddt: write a self-checking pattern over 32 MiB of e1.2 and verify every sector"
ddt_dev=$dev
broken aoe-ddt && ddt_dev=e1.2  # the old demo's mistake: not a path
step aoe-ddt need aoe-ddt
have aoe-ddt && step aoe-ddt pp timeout 120 aoe-ddt --verify -s 32M -b 1M -q 4 --no-progress "$ddt_dev"
heading "aoe-ddt: 4 KiB random reads for 5 s (IOPS and latency)"
have aoe-ddt && step aoe-ddt-randread pp timeout 60 aoe-ddt -r --random -b 4k -q 16 -t 5 --no-progress "$ddt_dev"

heading "The block device: ext2 on $dev, write and read back 8 MiB"
fs_check() {
	mke2fs -q -t ext2 "$dev" && mkdir -p /mnt/e1.2 && mount -t ext2 "$dev" /mnt/e1.2 &&
		dd if=/dev/urandom of=/tmp/blob bs=1M count=8 status=none && cp /tmp/blob /mnt/e1.2/blob &&
		umount /mnt/e1.2 && mount -t ext2 -o ro "$dev" /mnt/e1.2 && df -h /mnt/e1.2 || return 1
	local a b
	a=$(md5sum </tmp/blob) b=$(md5sum </mnt/e1.2/blob)
	echo "md5 written ${a%% *}, read back ${b%% *}"
	umount /mnt/e1.2
	[ "$a" = "$b" ]
}
step filesystem fs_check

heading "aoe-top: live I/O (aoe-ddt random reads) over a lossy link (netem loss 3 % both ways)"
pp tc qdisc add dev a0 root netem loss 3%
pp tc qdisc add dev b0 root netem loss 3%
load_pid=""
if have aoe-ddt; then
	aoe-ddt -r --random -b 64k -q 8 -t 40 --no-progress "$dev" >/tmp/load.txt 2>&1 &
	load_pid=$!
fi
pane() { tmux capture-pane -p -t top; }
row_moving() {  # the e1.2 row shows throughput and retransmits
	local r
	r=$(pane | grep -E '^e1\.2 ' | head -1) || return 1
	# shellcheck disable=SC2086 # columns: DEVICE STATE PATHS RD WR IOPS RETR/s RETR
	set -- $r
	[ "$#" -ge 8 ] && awk -v rd="$4" -v wr="$5" -v retr="$8" \
		'BEGIN { exit !((rd + 0 > 0 || wr + 0 > 0) && retr + 0 > 0) }'
}
top_view() {
	need aoe-top || return 1
	need aoe-ddt || return 1
	tmux new-session -d -s top -x 150 -y 16 'aoe-top -d 1' || return 1
	vm_wait_for row_moving 40 || { pane; echo "*** e1.2 showed no throughput and retransmits"; return 1; }
	sleep 2
	echo "--- aoe-top, a frame of the screen (150x16):"
	pane
	tmux send-keys -t top Enter
	sleep 2
	echo "--- aoe-top, Enter: the detail view of e1.2:"
	pane
	tmux send-keys -t top q
}
step aoe-top top_view
tmux kill-server 2>/dev/null || true
heading "aoe-top -b -n 2: the same as text, two samples"
have aoe-top && step aoe-top-batch pp timeout 60 aoe-top -b -n 2
if [ -n "$load_pid" ]; then  # only the load: a bare wait would wait for vblade too
	kill "$load_pid" 2>/dev/null || true
	wait "$load_pid" 2>/dev/null || true
fi
pp tc qdisc del dev a0 root
pp tc qdisc del dev b0 root

heading "Unload"
step unload vm_unload_aoe
[ ${#failed[@]} = 0 ] || die "${failed[*]}"
log "demo finished"
