#!/bin/bash
# needs: aoe.ko
# timeout: 120
# kernels: 6.1 (the module's own protocol logic or a tool, no kernel interface the two series differ in: the whole suite runs it on one series, balanced for the 45 min budget; make test-full and a named run: every kernel)
# aoe-cfg and aoe-ping against vblade (AoE Query Config sub-commands):
#
#   a0 (aoe.ko) <--veth--> b0 (vblade 1 2 b0 /dev/ram0)
#
# Through the module: the config string reads empty (bufcnt 16, vblade's
# MAC, interface a0), --set sets it (and aoe-stat follows), a second --set
# of another string is refused in words ("config string present", exit 1),
# --test / --prefix-test match (exit 0) or not ("no match", exit 1),
# --force-set replaces it; a 1024-byte string on a 1000-byte MTU is refused
# before anything is sent ("larger than the MTU", exit 1) and the string
# stays. aoe-ping -c 3: 3 answers with RTTs, the IDENTIFY data (model,
# size = the disk's), the config string. As nobody: permission denied.
# Module unloaded: aoe-cfg and aoe-ping over raw sockets (via "raw") read,
# set and probe the same target.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

disk=$(vm_ramdisk 64)
sectors=$(blockdev --getsz "$disk")
vm_veth a0 b0
vm_vblade 1 2 b0 "$disk"
vm_load_aoe aoe_iflist=a0
pp aoe-discover >/dev/null || true
vm_aoe_up e1.2
bmac=$(vm_mac b0)

pp aoe-cfg --json e1.2 >/tmp/c.json || { cat /tmp/c.json; die "aoe-cfg e1.2 failed"; }
vm_json_check /tmp/c.json ".via == \"module\" and (.paths | length) == 1 and .paths[0].config == \"\" and
	.paths[0].interface == \"a0\" and .paths[0].target_mac == \"$bmac\" and .paths[0].bufcnt == 16 and
	.paths[0].ok" "aoe-cfg --json does not show e1.2's empty config string on a0"

pp aoe-cfg e1.2 --set "hello aoe" || die "aoe-cfg --set on an empty config string failed"
out=$(aoe-cfg e1.2) || die "aoe-cfg read failed after --set"
echo "$out"
grep -q "e1.2 a0 -> $bmac: ok config \"hello aoe\"" <<<"$out" || die "aoe-cfg does not read back the string set"
vm_wait_for "[ \"\$(vm_target_json e1.2 | jq -r .config)\" = 'hello aoe' ]" 5 ||
	die "aoe-stat --json does not show the new config string"

rc=0
aoe-cfg e1.2 --set other >/tmp/o 2>&1 || rc=$?
cat /tmp/o
[ "$rc" = 1 ] || die "--set over another config string exited $rc, expected 1"
grep -q "config string present" /tmp/o || die "--set over another string does not say 'config string present'"
aoe-cfg e1.2 | grepq 'config "hello aoe"' || die "a refused --set changed the config string"

pp aoe-cfg e1.2 --test "hello aoe" || die "--test of the same string did not match"
rc=0
aoe-cfg -t 600 e1.2 --test hello >/tmp/o 2>&1 || rc=$?
cat /tmp/o
[ "$rc" = 1 ] && grep -q "no match" /tmp/o || die "--test hello (a prefix only) exited $rc, expected 1 with 'no match'"
pp aoe-cfg e1.2 --prefix-test hello || die "--prefix-test hello did not match"
rc=0
aoe-cfg -t 600 e1.2 --prefix-test aoe >/tmp/o 2>&1 || rc=$?
cat /tmp/o
[ "$rc" = 1 ] || die "--prefix-test aoe exited $rc, expected 1"

pp aoe-cfg e1.2 --force-set forced || die "--force-set failed"
aoe-cfg --json e1.2 | jq -e '.paths[0].config == "forced"' >/dev/null || die "--force-set did not replace the string"

# A request larger than the path's MTU is refused, not sent (EMSGSIZE).
pp ip link set a0 mtu 1000
long=$(head -c 1024 /dev/zero | tr '\0' x)
rc=0
aoe-cfg e1.2 --force-set "$long" >/tmp/o 2>&1 || rc=$?
cat /tmp/o
[ "$rc" = 1 ] && grep -q "larger than the MTU" /tmp/o || die "a 1024-byte string on MTU 1000: exit $rc, no 'larger than the MTU'"
pp ip link set a0 mtu 1500
aoe-cfg e1.2 | grepq 'config "forced"' || die "the refused long string changed the config string"
rc=0
aoe-cfg e1.2 --force-set "$long" >/tmp/o 2>&1 || rc=$?
[ "$rc" = 0 ] || { cat /tmp/o; die "a 1024-byte string on MTU 1500 failed"; }
[ "$(aoe-cfg --json e1.2 | jq -r '.paths[0].config')" = "$long" ] || die "the 1024-byte string did not read back"
pp aoe-cfg e1.2 --force-set forced

unpriv=""
if command -v setuidgid >/dev/null; then unpriv="setuidgid nobody"
elif su -s /bin/sh nobody -c true 2>/dev/null; then unpriv="su -s /bin/sh nobody -c"; fi
if [ -n "$unpriv" ]; then
	rc=0
	$unpriv "aoe-cfg e1.2" >/tmp/o 2>&1 || rc=$?
	cat /tmp/o
	[ "$rc" = 1 ] && grep -q 'permission denied: .*CAP_NET_ADMIN' /tmp/o || die "aoe-cfg as nobody: exit $rc, no 'permission denied ... CAP_NET_ADMIN'"
fi

pp aoe-ping -c 3 --interval 100 --json e1.2 >/tmp/p.json || { cat /tmp/p.json; die "aoe-ping --json failed"; }
vm_json_check /tmp/p.json ".via == \"module\" and .probes == 3 and (.paths | length) == 1 and
	.paths[0].received == 3 and .paths[0].rtt_min_us > 0 and .paths[0].rtt_max_us >= .paths[0].rtt_min_us and
	.paths[0].config == \"forced\" and .identify.sectors == $sectors and (.identify.model | length) > 0" \
	"aoe-ping --json: not 3 answers with RTTs, the config string and the IDENTIFY data"

# Without the module: raw sockets.
vm_unload_aoe
pp aoe-cfg --json -i a0 e1.2 >/tmp/r.json || { cat /tmp/r.json; die "aoe-cfg without the module failed"; }
vm_json_check /tmp/r.json '.via == "raw" and .paths[0].config == "forced" and .paths[0].interface == "a0"' \
	"aoe-cfg over raw sockets does not read the config string"
pp aoe-cfg -i a0 e1.2 --force-set "raw set" || die "aoe-cfg --force-set over raw sockets failed"
aoe-cfg -i a0 e1.2 | grepq 'config "raw set"' || die "the raw --force-set did not read back"
pp aoe-cfg -i a0 e1.2 --test "raw set" || die "raw --test did not match"
pp aoe-ping -c 2 --interval 100 -i a0 --json e1.2 >/tmp/p.json || { cat /tmp/p.json; die "aoe-ping over raw sockets failed"; }
vm_json_check /tmp/p.json ".via == \"raw\" and .paths[0].received == 2 and .identify.sectors == $sectors" \
	"aoe-ping over raw sockets: not 2 answers and the IDENTIFY size"
log "aoe-cfg and aoe-ping work through the module and over raw sockets"
