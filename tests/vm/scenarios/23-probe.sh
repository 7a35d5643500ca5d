#!/bin/bash
# needs: aoe.ko
# timeout: 180
# kernels: 6.12 (raw-socket probing from userland; the whole suite runs it once)
# aoe-discover --probe: discovery and payload measurement over raw sockets,
# with and without the module:
#
#   a0 (initiator) <--veth--> b0 (vblade 1 2 b0 /dev/ram0)
#
# 1. Module not loaded: --probe a0 finds e1.2 with vblade's MAC, buffer
#    count 16, payload 1024 measured, exit 0; --json agrees; without naming
#    an interface too; as nobody: "needs CAP_NET_RAW", exit 1; an interface
#    with no target: exit 1 naming it, within the -w bound.
# 2. Module loaded: the same; the module drops the answers as user_tag
#    (bit 31) and e1.2's counters and state do not move.
# 3. a0 at MTU 9000, b0 at 1500 (vblade's sector count 2): the probe measures
#    1024 bytes on that path, says the target's MTU is lower and gives the
#    advice to raise the target's MTU, no local fix, exit 3 (problems found).
# 4. A bridge port at MTU 1500 between a0 and b0, both at 9000 (vblade's
#    sector count 17): reads larger than 1024 bytes vanish; the probe reports
#    jumbo_dropped with the fix, exit 3 (problems found).
# 5. Two paths (a0/b0 at 1500, a1/b1 at 9000, a vblade on each): 1024 and
#    8704 bytes measured, mtu_differs with "ip link set a0 mtu 9000", exit 3.
# 6. a1 up while its peer b1 is down: "a1 is up but has no carrier", exit 1
#    (the probe cannot run on it).
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

[ ! -e /sys/module/aoe ] || die "module aoe loaded at the start"
disk=$(vm_ramdisk 64)
# brd is loaded once per boot, by the first scenario that asks: its size.
sectors=$(cat "/sys/block/${disk#/dev/}/size")
vm_veth a0 b0
vm_vblade 1 2 b0 "$disk"
mac=$(vm_mac b0)

# probe OUT RC_WANTED ARGS...: aoe-discover --probe ARGS > OUT (stderr
# OUT.err), shown, exit status checked.
probe() {
	local out=$1 want=$2 rc=0
	shift 2
	printf '+ aoe-discover --probe %s\n' "$*" >&2
	aoe-discover --probe "$@" >"$out" 2>"$out.err" || rc=$?
	cat "$out" "$out.err"
	[ "$rc" = "$want" ] || kill -0 "${_vm_pids[-1]}" 2>/dev/null ||
		die "vblade exited: $(cat /tmp/vblade-1.2-b0.log)"
	[ "$rc" = "$want" ] || die "aoe-discover --probe $* exited $rc, expected $want: $(cat "$out.err")"
}

log "1. module not loaded"
probe /tmp/p1.txt 0 a0
grep -Eq "^e1\.2 +a0 +1500 +$mac +16 +0x[0-9a-f]+ +2 +1024 +1024 +ok " /tmp/p1.txt ||
	die "probe a0 does not list e1.2 on a0 from $mac, bufcnt 16, scnt 2, payload 1024 measured"
grep -q '^warning\|^error' /tmp/p1.txt && die "advice on a clean path"
probe /tmp/p1.json 0 --json a0
vm_json_check /tmp/p1.json ".status == 0 and (.targets | length) == 1 and .targets[0].device == \"e1.2\"
	and .targets[0].paths[0].mac == \"$mac\" and .targets[0].paths[0].interface == \"a0\"
	and .targets[0].paths[0].bufcnt == 16 and .targets[0].paths[0].maxsect == 2
	and .targets[0].paths[0].payload == 1024 and .targets[0].paths[0].result == \"ok\"
	and .targets[0].sectors == $sectors and .advice == []" "probe --json a0 does not show e1.2 measured"
probe /tmp/p1all.json 0 --json
vm_json_check /tmp/p1all.json '[.interfaces[].name] | index("a0") != null' "probe without IFACE did not use a0"
vm_json_check /tmp/p1all.json '[.targets[] | select(.device == "e1.2")] | length == 1' \
	"probe without IFACE did not find e1.2"

if su -s /bin/sh nobody -c true 2>/dev/null; then
	rc=0
	su -s /bin/sh nobody -c "aoe-discover --probe a0" >/tmp/perm.out 2>/tmp/perm.err || rc=$?
	cat /tmp/perm.err
	[ "$rc" = 1 ] || die "aoe-discover --probe as nobody exited $rc, expected 1"
	grep -qx 'aoe-discover: needs CAP_NET_RAW (run as root)' /tmp/perm.err ||
		die "aoe-discover --probe as nobody does not say it needs CAP_NET_RAW"
else
	log "no way to drop privileges in this image; CAP_NET_RAW check skipped"
fi

vm_veth c0 d0
t0=$(vm_ms)
probe /tmp/none.txt 1 -w 1 c0
t1=$(vm_ms)
grep -q 'no AoE target answered .* on c0$' /tmp/none.txt.err || die "no-target message does not name c0"
[ $((t1 - t0)) -lt 3000 ] || die "probe -w 1 took $((t1 - t0)) ms"
log "no target on c0: exit 1 after $((t1 - t0)) ms"

log "2. module loaded"
vm_load_aoe aoe_iflist=a0
vm_aoe_up e1.2
before=$(vm_target_json e1.2)
ut0=$(vm_drops user_tag)
probe /tmp/p2.json 0 --json a0
probe /tmp/p2.txt 0 a0
grep -Eq "^e1\.2 +a0 +1500 +$mac +16 .* 1024 +1024 +ok " /tmp/p2.txt || die "probe with the module loaded does not list e1.2"
vm_json_check /tmp/p2.json '.status == 0 and .targets[0].device == "e1.2" and .targets[0].paths[0].payload == 1024' \
	"probe --json with the module loaded does not show e1.2 measured"
after=$(vm_target_json e1.2)
ut1=$(vm_drops user_tag)
probes=$(jq '[.targets[].paths[].probes] | add' /tmp/p2.json)
log "module drops user_tag: $ut0 -> $ut1 (two probes, the second sent $probes reads)"
[ $((ut1 - ut0)) -gt "$probes" ] || die "the module dropped $((ut1 - ut0)) user_tag frames, expected more than $probes"
for f in state '.counters.frames_received' '.counters.frames_sent' '.counters.ata_errors' '.counters.timeouts'; do
	a=$(jq -c ".${f#.}" <<<"$before")
	b=$(jq -c ".${f#.}" <<<"$after")
	[ "$a" = "$b" ] || die "e1.2 $f changed during the probe: $a -> $b"
done
vm_unload_aoe

log "3. a0 at MTU 9000, b0 at MTU 1500"
kill "${_vm_pids[@]}" 2>/dev/null || true
wait "${_vm_pids[@]}" 2>/dev/null || true
_vm_pids=()
pp ip link set a0 mtu 9000
pp ip link set b0 mtu 1500
vm_vblade 1 2 b0 "$disk"
probe /tmp/p3.txt 3 a0
grep -Eq "^e1\.2 +a0 +9000 +$mac +16 +0x[0-9a-f]+ +2 +1024 +1024 " /tmp/p3.txt ||
	die "probe does not report the 1024-byte path on a0 at MTU 9000"
grep -q '^warning: e1.2: the target takes only 2 sectors' /tmp/p3.txt || die "no warning about the target's lower MTU"
grep -q "raise the MTU of the target's interface ($mac) to 9000" /tmp/p3.txt ||
	die "the advice does not say to raise the target's MTU"
grep -q '^  fix: ip link set a0' /tmp/p3.txt && die "the probe advises changing the local MTU of a0"
grep -Eq '^e1\.2: [0-9]+ sectors \([0-9.]+GB\), model ' /tmp/p3.txt || die "the text report has no size and model"
probe /tmp/p3.json 3 --json a0
vm_json_check /tmp/p3.json '.status == 3 and .targets[0].paths[0].payload == 1024
	and .targets[0].paths[0].mtu == 9000
	and any(.advice[]; .kind == "target_mtu_lower" and .interface == "a0" and .command == null)' \
	"probe --json does not report the MTU mismatch (without a local command)"

log "4. a bridge port at MTU 1500 drops jumbo frames"
kill "${_vm_pids[@]}" 2>/dev/null || true
wait "${_vm_pids[@]}" 2>/dev/null || true
_vm_pids=()
pp ip link del a0
_vm_links=(c0)
vm_bridged a0 b0 9000
# The drop happens in the bridge (a0p is its egress port towards a0), as in
# a switch: on the veth next to vblade instead, vblade's send would fail
# (ENOBUFS) and vblade would exit.
pp ip link set a0p mtu 1500
vm_vblade 1 2 b0 "$disk"
mac=$(vm_mac b0)
probe /tmp/p4.txt 3 a0
grep -Eq "^e1\.2 +a0 +9000 +$mac +16 +0x[0-9a-f]+ +17 +8704 +1024 +dropped " /tmp/p4.txt ||
	die "probe does not report 1024 of 8704 bytes getting through"
grep -q '^warning: e1.2: on a0 -> .* reads of 1024 bytes come back but of 1536 never do' /tmp/p4.txt ||
	die "no jumbo-drop warning"
grep -q '^  fix: ip link set a0 mtu 1500$' /tmp/p4.txt || die "no 'ip link set a0 mtu 1500' fix"
probe /tmp/p4.json 3 --json a0
vm_json_check /tmp/p4.json '.targets[0].paths[0].payload == 1024 and .targets[0].paths[0].payload_expected == 8704
	and any(.advice[]; .kind == "jumbo_dropped")' "probe --json does not report the jumbo drop"

log "5. two paths to e1.2 with different MTUs"
kill "${_vm_pids[@]}" 2>/dev/null || true
wait "${_vm_pids[@]}" 2>/dev/null || true
_vm_pids=()
pp ip link del a0
pp ip link del b0
pp ip link del br0
_vm_links=(c0)
vm_veth a0 b0
vm_veth a1 b1 9000
vm_vblade 1 2 b0 "$disk"
vm_vblade 1 2 b1 "$disk"
mac0=$(vm_mac b0)
mac1=$(vm_mac b1)
probe /tmp/p5.txt 3 a0 a1
grep -Eq "^e1\.2 +a0 +1500 +$mac0 +16 +0x[0-9a-f]+ +2 +1024 +1024 +ok " /tmp/p5.txt || die "no 1024-byte path on a0"
grep -Eq "^e1\.2 +a1 +9000 +$mac1 +16 +0x[0-9a-f]+ +17 +8704 +8704 +ok " /tmp/p5.txt || die "no 8704-byte path on a1"
grep -q '^warning: e1.2: the local interfaces reaching it have different MTUs (a0 1500, a1 9000)' /tmp/p5.txt ||
	die "no warning about the differing MTUs"
grep -q '^  fix: ip link set a0 mtu 9000$' /tmp/p5.txt || die "no 'ip link set a0 mtu 9000' fix"
[ "$(grep -c '^warning\|^error' /tmp/p5.txt)" = 1 ] || die "more advice than the differing MTUs"

log "6. an interface up without carrier (its veth peer down)"
pp ip link set b1 down
vm_wait_for "[ \"\$(cat /sys/class/net/a1/carrier 2>/dev/null)\" = 0 ]" 5 || die "a1 kept its carrier"
probe /tmp/p6.txt 1 a1
grep -q 'a1 is up but has no carrier' /tmp/p6.txt.err || die "the probe does not say that a1 has no carrier"
log "probe OK"
