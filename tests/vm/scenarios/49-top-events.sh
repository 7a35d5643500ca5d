#!/bin/bash
# needs: aoe.ko
# timeout: 150
# kernels: 6.1 (the module's own protocol logic or a tool, no kernel interface the two series differ in: the whole suite runs it on one series, balanced for the 45 min budget; make test-full and a named run: every kernel)
# aoe-top shows target events at once, and stays idle while it waits:
#
#   aé0 (aoe.ko, aoe_deadsecs=3) <--veth--> b0 (vblade 1 2 b0 /dev/ram0)
#
# The initiator's interface has a non-ASCII name: the screen shows it as
# "aé0" (ncursesw; the narrow library drew "a?0").
# A reader keeps I/O on e1.2. aoe-top runs in a 160x40 tmux pane with -d 10
# (so that only the module's events, not a sample, can change the screen
# within a second), beside aoe-top -b -d 0.5 (text) and -b --json -d 0.5.
# vblade is killed: once sysfs says e1.2 is down, the pane shows it down
# within 1 s; vblade comes back: the pane shows it up within 1 s. The JSON
# lines carry timestamps: the first one with e1.2 down (and the first up
# again) is at most 1 s after sysfs said so; the text lines show both states.
# The interactive aoe-top's CPU time (utime + stime, /proc/PID/stat) over
# the run stays below 15 % of the time it ran (a 0 ms event wait spun at
# 100 %).
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

ifc=aé0
vm_veth "$ifc" b0
disk=$(vm_ramdisk 64)
vm_vblade 1 2 b0 "$disk"
vm_load_aoe aoe_iflist="$ifc" aoe_deadsecs=3
vm_aoe_up e1.2 15

reader() {
	while :; do
		# fails while e1.2 is down: expected, not the scenario's reason
		dd if=/dev/etherd/e1.2 of=/dev/null bs=64k count=8 iflag=direct status=none 2>/dev/null || true
		sleep 0.1
	done
}
reader &
reader_pid=$!
cleanup_top() {
	kill "$reader_pid" "${batch_pids[@]}" 2>/dev/null || true
	tmux kill-server 2>/dev/null || true
}
batch_pids=()
trap 'rc=$?; cleanup_top; (exit $rc); _vm_cleanup' EXIT

pane() { tmux capture-pane -p -t top; }
pane_state() { pane | awk '$1 == "e1.2" { print $2; exit }'; }
sys_state() { local s; s=$(cat '/sys/block/etherd!e1.2/state' 2>/dev/null) && echo "${s%%,*}"; }

pp tmux new-session -d -s top -x 160 -y 40 'aoe-top -d 10; echo AOE-TOP-EXIT=$?; exec bash --norc'
vm_wait_for "[ \"\$(pane_state)\" = up ]" 15 || { pane; die "aoe-top does not show e1.2 up"; }
pane | grepq "^Interfaces: $ifc mtu 1500 up" || { pane; die "the header does not show the interface $ifc"; }
pp tmux send-keys -t top Enter
vm_wait_for "pane | grepq '$ifc -> '" 5 || { pane; die "the detail view does not show the path on $ifc"; }
pane | grep "$ifc -> "
pp tmux send-keys -t top Escape
vm_wait_for "pane | grepq '^DEVICE'" 5 || { pane; die "Esc did not return to the table"; }
top_pid=$(pidof aoe-top)
[ -n "$top_pid" ] || die "no aoe-top process"
aoe-top -b -d 0.5 >/tmp/top.txt 2>/tmp/top-txt.err &
batch_pids+=($!)
aoe-top -b --json -d 0.5 >/tmp/top.json 2>/tmp/top-json.err &
batch_pids+=($!)
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
tick_hz=100  # USER_HZ: the unit of /proc/PID/stat times on Linux (no getconf in the VM)
cpu0=$(cpu_ticks "$top_pid")
t_start=$EPOCHREALTIME
sleep 2

# watch_for STATE: waits (20 s at most) until sysfs shows STATE, then until
# the pane does (5 s at most); prints "SYS_TIME PANE_TIME" (EPOCHREALTIME).
watch_for() {
	local want=$1 t_sys="" t_pane="" end
	end=$(( $(vm_ms) + 20000 * AOE_SLOW ))
	while [ -z "$t_sys" ] && [ "$(vm_ms)" -lt "$end" ]; do
		[ "$(sys_state)" = "$want" ] && t_sys=$EPOCHREALTIME
		[ "$(pane_state)" = "$want" ] && [ -z "$t_pane" ] && t_pane=$EPOCHREALTIME
		[ -n "$t_sys" ] || sleep 0.02
	done
	[ -n "$t_sys" ] || die "sysfs never showed e1.2 $want ($(sys_state))"
	end=$(( $(vm_ms) + 5000 ))
	while [ -z "$t_pane" ] && [ "$(vm_ms)" -lt "$end" ]; do
		[ "$(pane_state)" = "$want" ] && t_pane=$EPOCHREALTIME
	done
	[ -n "$t_pane" ] || { pane; die "the pane never showed e1.2 $want (sysfs did)"; }
	echo "$t_sys $t_pane"
}
within_1s() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(b - a <= 1.0) }'; }

log "killing vblade"
kill "${_vm_pids[@]}"
wait "${_vm_pids[@]}" 2>/dev/null || true
_vm_pids=()
watch_for down >/tmp/w.down  # not $( ): die must end the scenario
read -r sys_down pane_down </tmp/w.down
[ -n "$pane_down" ] || die "no down times"
log "down: sysfs $sys_down, pane $pane_down"
pane | grep -E '^e1\.2 '
within_1s "$sys_down" "$pane_down" ||
	die "the pane showed e1.2 down $(awk -v a="$sys_down" -v b="$pane_down" 'BEGIN { print b - a }') s after sysfs"

log "restarting vblade"
vm_vblade 1 2 b0 "$disk"
aoe-discover -w 0 >/dev/null 2>&1 || true  # no wait: the watch starts at once
watch_for up >/tmp/w.up
read -r sys_up pane_up </tmp/w.up
[ -n "$pane_up" ] || die "no up times"
log "up: sysfs $sys_up, pane $pane_up"
within_1s "$sys_up" "$pane_up" ||
	die "the pane showed e1.2 up $(awk -v a="$sys_up" -v b="$pane_up" 'BEGIN { print b - a }') s after sysfs"
sleep 1.5

cpu1=$(cpu_ticks "$top_pid")
t_end=$EPOCHREALTIME
kill "${batch_pids[@]}" 2>/dev/null || true
wait "${batch_pids[@]}" 2>/dev/null || true
batch_pids=()
share=$(awk -v c=$((cpu1 - cpu0)) -v hz="$tick_hz" -v a="$t_start" -v b="$t_end" \
	'BEGIN { printf "%.3f", c / hz / (b - a) }')
echo "AOE-TOP-CPU $((cpu1 - cpu0)) ticks in $(awk -v a="$t_start" -v b="$t_end" 'BEGIN { printf "%.1f", b - a }') s: share $share"
awk -v s="$share" 'BEGIN { exit !(s < 0.15) }' || die "aoe-top used $share of a CPU while waiting (bound 0.15)"

# Batch JSON: each line has a time; the first down line and the first up
# line after it come within 1 s of sysfs.
jq -e -s 'length > 5 and all(.[]; (.time | type == "string") and (.timestamp | type == "number"))' \
	/tmp/top.json >/dev/null || { head -3 /tmp/top.json; die "aoe-top -b --json lines without time"; }
j_down=$(jq -r 'select(.targets[]? | .device == "e1.2" and .state == "down") | .timestamp' /tmp/top.json | head -1)
[ -n "$j_down" ] || die "aoe-top -b --json never showed e1.2 down"
j_up=$(jq -r --argjson d "$j_down" 'select(.timestamp > $d) | select(.targets[]? | .device == "e1.2" and .state == "up") | .timestamp' /tmp/top.json | head -1)
[ -n "$j_up" ] || die "aoe-top -b --json never showed e1.2 up again"
log "json: down at $j_down, up at $j_up"
within_1s "$sys_down" "$j_down" || die "aoe-top -b --json showed down $(awk -v a="$sys_down" -v b="$j_down" 'BEGIN { print b - a }') s after sysfs"
within_1s "$sys_up" "$j_up" || die "aoe-top -b --json showed up $(awk -v a="$sys_up" -v b="$j_up" 'BEGIN { print b - a }') s after sysfs"
# Batch text: header lines carry the time, e1.2 is down, then up again (a
# sample may fall between, while it is identified again: init).
grep -Eq '^aoe-top - .* - [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z - every 0.5s' /tmp/top.txt ||
	{ head -5 /tmp/top.txt; die "aoe-top -b header without a timestamp"; }
awk '$1 == "e1.2" { print $2 }' /tmp/top.txt | uniq | tr '\n' ' ' | grepq -E 'up down (init )?up' ||
	die "aoe-top -b text does not show e1.2 up, down, up: $(awk '$1 == "e1.2" { print $2 }' /tmp/top.txt | uniq | tr '\n' ' ')"

pp tmux send-keys -t top q
vm_wait_for "pane | grepq 'AOE-TOP-EXIT=0'" 5 || { pane; die "q did not end aoe-top with status 0"; }
log "aoe-top events OK"
