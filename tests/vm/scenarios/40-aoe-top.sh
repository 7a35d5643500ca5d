#!/bin/bash
# needs: aoe.ko
# timeout: 150
# kernels: 6.1 (the module's own protocol logic or a tool, no kernel interface the two series differ in: the whole suite runs it on one series, balanced for the 45 min budget; make test-full and a named run: every kernel)
# aoe-top under load with packet loss:
#
#   a0 (initiator, aoe.ko) <--veth, netem loss 5 % both ways--> b0 (vblade 1 2 b0 /dev/ram0)
#
# fio reads and writes /dev/etherd/e1.2 in the background. aoe-top runs in
# a 160x40 tmux pane: the row for e1.2 shows non-zero throughput and
# retransmits, Enter shows the detail view with the path on a0, q exits and
# the terminal is restored. aoe-top -b -n 2 lists e1.2, --json parses.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

vm_veth a0 b0
disk=$(vm_ramdisk 256)
vm_vblade 1 2 b0 "$disk"
vm_load_aoe
pp tc qdisc add dev a0 root netem loss 5%
pp tc qdisc add dev b0 root netem loss 5%
pp aoe-discover >/dev/null || true
vm_wait_for "vm_has_target e1.2" 15 || die "e1.2 never appeared"
vm_wait_for "[ -b /dev/etherd/e1.2 ]" 10 || die "no /dev/etherd/e1.2"

fio --name=top --filename=/dev/etherd/e1.2 --ioengine=libaio --direct=1 --rw=randrw \
	--bs=64k --iodepth=8 --time_based --runtime=60 --size=128m >/tmp/fio.log 2>&1 &
fio_pid=$!
cleanup_top() {
	kill "$fio_pid" 2>/dev/null || true
	tmux kill-server 2>/dev/null || true
}
trap 'cleanup_top' EXIT

pane() { tmux capture-pane -p -t top; }
row() { pane | grep -E '^e1\.2 ' | head -1; }
# Row columns at 160: DEVICE STATE PATHS RD WR IOPS RETR/s RETR ...
row_ok() {
	local r
	r=$(row) || return 1
	# shellcheck disable=SC2086 # split the row into columns
	set -- $r
	[ "$#" -ge 8 ] || return 1
	awk -v rd="$4" -v wr="$5" -v retr="$8" \
		'BEGIN { exit !((rd + 0 > 0 || wr + 0 > 0) && retr + 0 > 0) }'
}

pp tmux new-session -d -s top -x 160 -y 40 'aoe-top -d 1; echo AOE-TOP-EXIT=$?; exec bash --norc'
vm_wait_for "pane | grepq '^DEVICE'" 10 || { pane; die "aoe-top did not draw its table"; }
if ! vm_wait_for row_ok 45; then
	pane
	die "e1.2 never showed non-zero throughput and retransmits"
fi
log "row: $(row)"

pp tmux send-keys -t top Enter
vm_wait_for "pane | grepq 'a0 -> '" 5 || { pane; die "detail view does not list the path on a0"; }
pane | grep 'a0 -> '
pp tmux send-keys -t top Escape
vm_wait_for "pane | grepq '^DEVICE'" 5 || { pane; die "Esc did not return to the table"; }

pp tmux send-keys -t top q
vm_wait_for "pane | grepq 'AOE-TOP-EXIT=0'" 5 || { pane; die "q did not end aoe-top with status 0"; }
# Restored: the alternate screen is gone, the shell's line is on a normal screen.
pane | grepq '^DEVICE' && { pane; die "terminal not restored after q"; }
[ "$(tmux display-message -p -t top '#{alternate_on}')" = 0 ] || die "still on the alternate screen"

# SIGTERM restores the terminal too.
pp tmux send-keys -t top 'aoe-top -d 1; echo AOE-TOP-EXIT=$?' Enter
vm_wait_for "pane | grepq '^DEVICE'" 10 || { pane; die "aoe-top did not start again"; }
kill -TERM $(pidof aoe-top)
vm_wait_for "[ \"\$(tmux display-message -p -t top '#{alternate_on}')\" = 0 ]" 5 ||
	die "SIGTERM left the terminal on the alternate screen"

pp aoe-top -b -n 2 -d 1 | tee /tmp/top.txt
grep -qE '^e1\.2 ' /tmp/top.txt || die "aoe-top -b -n 2 has no e1.2 row"
pp aoe-top -b --json -n 2 -d 1 >/tmp/top.json
[ "$(wc -l </tmp/top.json)" = 2 ] || die "aoe-top -b --json -n 2 did not print 2 lines"
tail -1 /tmp/top.json | jq -e '.targets[] | select(.device == "e1.2") | .read_bytes_per_s + .write_bytes_per_s > 0' \
	>/dev/null || die "aoe-top --json: no throughput for e1.2"
head -1 /tmp/top.json | jq -e '.targets[] | select(.device == "e1.2") | .read_bytes_per_s == null' \
	>/dev/null || die "aoe-top --json: first sample has a rate"
