#!/bin/bash
# needs: aoe.ko
# timeout: 150
# A target too big for one netlink message: 16 paths (AOE_MAX_PATHS) and a
# 1024-byte config string:
#
#   a0..a3 (aoe.ko) <--veth--> b0..b3 (aoe-inject: Query Config answers for
#                                      e1.2 from 4 MACs each, config 1024 bytes)
#
# The GET_TARGET dump splits e1.2 across messages. With the tools' default
# buffer and with a 4 KiB receive buffer (AOE_NETLINK_MSGBUF=4096, so the
# kernel's dump skbs are ~4 KiB too): aoe-stat --json lists all 16 paths
# (4 interfaces x 4 MACs) and the exact config string, aoe-stat -a,
# aoe-stat --prometheus, aoe-top -b --json and aoe-revalidate --json work, and a
# second target next to it is listed once, complete. A request of version 1
# (a reader that predates the split) gets e1.2 in one message with the paths
# that fit a 4 KiB buffer, all 16 with the default buffer.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

# 1024 printable bytes, not periodic in a way that hides a lost chunk.
config=$(for i in $(seq 0 63); do printf '%03d-abcdefghijk|' "$i"; done)
[ "${#config}" = 1024 ] || die "test config string is ${#config} bytes"

for i in 0 1 2 3; do
	vm_veth "a$i" "b$i"
done
vm_load_aoe aoe_iflist=a0,a1,a2,a3
announce() { # announce SHELF SLOT CONFIG: every b interface, 4 MACs each
	local i m
	for i in 0 1 2 3; do
		for m in 1 2 3 4; do
			aoe-inject -i "b$i" -d "$(vm_mac "a$i")" -s "02:00:00:00:0$i:0$m" \
				--shelf "$1" --slot "$2" --bufcnt 8 --config "$3" config ||
				die "aoe-inject on b$i failed"
		done
	done
}
announce 1 2 "$config"
# A small neighbour: the dump must resume after the split target, not repeat it.
pp aoe-inject -i b0 -d "$(vm_mac a0)" -s 02:00:00:00:09:09 --shelf 3 --slot 4 --config small config

npaths() { aoe-stat --json | jq '[.targets[] | select(.device == "e1.2") | .paths[]] | length'; }
vm_wait_for "[ \"\$(npaths)\" = 16 ]" 15 ||
	{ aoe-stat --json; die "e1.2 does not have 16 paths"; }

check_all() { # check_all LABEL: every reader, with the current environment
	local label=$1 rc=0
	aoe-stat --json >/tmp/stat.json 2>/tmp/stat.err || rc=$?
	[ "$rc" = 0 ] || die "$label: aoe-stat --json exited $rc: $(cat /tmp/stat.err)"
	vm_json_check /tmp/stat.json '[.targets[] | select(.device == "e1.2")] | length == 1' \
		"$label: e1.2 is not listed exactly once"
	vm_json_check /tmp/stat.json '[.targets[] | select(.device == "e3.4")] | length == 1' \
		"$label: e3.4 is not listed exactly once"
	vm_json_check /tmp/stat.json '(.targets | length) == 2' "$label: not exactly 2 targets"
	vm_json_check /tmp/stat.json '.targets[] | select(.device == "e1.2") | (.paths | length) == 16' \
		"$label: e1.2 does not list 16 paths"
	vm_json_check /tmp/stat.json '[.targets[] | select(.device == "e1.2") | .paths[] | .interface + "/" + .mac]
		| unique | length == 16' "$label: the 16 paths of e1.2 are not 16 different ones"
	jq -r '.targets[] | select(.device == "e1.2") | .config' /tmp/stat.json | tr -d '\n' >/tmp/cfg.txt
	[ "$(cat /tmp/cfg.txt)" = "$config" ] ||
		die "$label: e1.2's config string differs ($(wc -c </tmp/cfg.txt) bytes): $(cat /tmp/cfg.txt)"
	vm_json_check /tmp/stat.json '.targets[] | select(.device == "e3.4") | (.paths | length) == 1 and .config == "small"' \
		"$label: e3.4 is not 1 path with config \"small\""
	log "$label: aoe-stat --json: e1.2 with 16 paths and the 1024-byte config, e3.4 intact"

	rc=0
	aoe-stat -a >/tmp/stat-a.txt 2>&1 || rc=$?
	[ "$rc" = 0 ] || { cat /tmp/stat-a.txt; die "$label: aoe-stat -a exited $rc"; }
	head -n 30 /tmp/stat-a.txt
	[ "$(grep -cE '02:00:00:00:0[0-3]:0[1-4]|020000000[0-3]0[1-4]' /tmp/stat-a.txt)" -ge 16 ] ||
		{ cat /tmp/stat-a.txt; die "$label: aoe-stat -a does not show the 16 paths"; }

	rc=0
	aoe-stat --prometheus >/tmp/prom.txt 2>/tmp/prom.err || rc=$?
	[ "$rc" = 0 ] || die "$label: aoe-stat --prometheus exited $rc: $(cat /tmp/prom.err)"
	[ "$(grep '^aoe_path_state{target="e1.2"' /tmp/prom.txt | grep -o 'mac="[^"]*"' | sort -u | wc -l)" = 16 ] ||
		die "$label: aoe-stat --prometheus does not show 16 paths of e1.2"

	rc=0
	timeout 30 aoe-top -b --json -n 1 >/tmp/top.json 2>/tmp/top.err || rc=$?
	[ "$rc" = 0 ] || die "$label: aoe-top -b --json exited $rc: $(cat /tmp/top.err)"
	jq -e . /tmp/top.json >/dev/null || die "$label: aoe-top --json does not parse"

	# aoe-revalidate reads the target back after asking for the revalidation.
	rc=0
	aoe-revalidate --json e1.2 >/tmp/reval.json 2>/tmp/reval.err || rc=$?
	[ "$rc" = 0 ] || die "$label: aoe-revalidate --json e1.2 exited $rc: $(cat /tmp/reval.err)"
	vm_json_check /tmp/reval.json '(.paths | length) == 16 and (.config | length) == 1024' \
		"$label: aoe-revalidate --json does not show 16 paths and the config"
	log "$label: aoe-stat -a, --prometheus, aoe-top -b --json, aoe-revalidate OK"
}

check_all "default buffer"
export AOE_NETLINK_MSGBUF=4096
check_all "4 KiB buffer"
# The split really happened: more messages than targets.
aoe-stat -v -v --json 2>&1 >/dev/null | grep 'target dump:' | tee /tmp/msgs.txt
n=$(grep -o '[0-9]* messages' /tmp/msgs.txt | head -1 | cut -d' ' -f1)
[ "${n:-0}" -ge 3 ] || die "4 KiB buffer: the dump came in ${n:-?} messages, expected e1.2 split (>= 3)"
log "4 KiB buffer: $n dump messages for 2 targets"

# A reader that predates split dumps (request version 1) gets one message
# per target: e1.2 with the paths that fit, AOE_A_PATH_COUNT 16 (the new
# parser then reports the target incomplete), e3.4 whole, no EMSGSIZE.
rc=0
AOE_NETLINK_REQUEST_VERSION=1 aoe-stat --json >/tmp/v1.json 2>/tmp/v1.err || rc=$?
cat /tmp/v1.err
if [ "$rc" = 0 ] || ! grep -Eq 'target dump ended early: e1\.2 has ([1-9]|1[0-5]) of its 16 paths' /tmp/v1.err; then
	die "version 1 request with a 4 KiB buffer: want e1.2 in one message with part of its paths"
fi
unset AOE_NETLINK_MSGBUF
# ... and with the default buffer (32 KiB dump skbs) all of it, as before.
rc=0
AOE_NETLINK_REQUEST_VERSION=1 aoe-stat --json >/tmp/v1.json 2>/tmp/v1.err || rc=$?
[ "$rc" = 0 ] || die "version 1 request with the default buffer failed: $(cat /tmp/v1.err)"
vm_json_check /tmp/v1.json '.targets[] | select(.device == "e1.2") | (.paths | length) == 16' \
	"version 1 request with the default buffer: e1.2 does not list 16 paths"
log "version 1 requests: truncated to one message with a 4 KiB buffer, whole with the default"
vm_unload_aoe
