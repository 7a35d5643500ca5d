#!/usr/bin/env bash
# Host tests for contrib/: bash completion (syntax and behaviour with a fake
# aoe-stat), systemd units (systemd-analyze verify), make contrib-install
# into a DESTDIR (with the udev rules), and a DKMS build of the module for every installed kernel
# from a temporary source and DKMS tree (nothing in /usr/src or
# /var/lib/dkms; the signing key DKMS creates there is removed again if it
# was not there before). Prints "PASS contrib/<name>" / "FAIL contrib/<name>:
# reason" lines.
#   tests/host/contrib.sh [--quick]    --quick skips the DKMS builds
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
quick=0
[ "${1:-}" = --quick ] && quick=1
failed=0
pass() { echo "PASS contrib/$1"; }
fail() { echo "FAIL contrib/$1: $2"; failed=1; }
tmp=$(mktemp -d)
mok_before=0
[ -e /var/lib/dkms/mok.key ] && mok_before=1
cleanup() {
	rm -rf "$tmp"
	if [ "$mok_before" = 0 ]; then
		rm -f /var/lib/dkms/mok.key /var/lib/dkms/mok.pub
		rmdir /var/lib/dkms 2>/dev/null
	fi
	true
}
trap cleanup EXIT

# --- bash completion
comp=contrib/bash-completion/aoekit
if bash -n "$comp" 2>"$tmp/err"; then pass completion-syntax; else fail completion-syntax "$(cat "$tmp/err")"; fi
mkdir -p "$tmp/bin"
cat >"$tmp/bin/aoe-stat" <<'FAKE'
#!/bin/sh
# fake aoe-stat: two targets
if [ "$1" = --json ]; then
	echo '{"module":{},"targets":[{"device":"e1.2"},{"device":"e1.20"}]}'
else
	printf '%10s %15s %10s %-5s %-14s\n' e1.2 0.268GB eth1 8704 up e1.20 1.000GB eth1 8704 up
fi
FAKE
chmod +x "$tmp/bin/aoe-stat"
complete_words() { # complete_words WORD...: COMPREPLY for the last word, sorted
	PATH="$tmp/bin:$PATH" bash -c '
		source "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_aoekit; printf "%s\n" "${COMPREPLY[@]}" | sort' _ "$comp" "$@"
}
for mode in jq plain; do
	if [ $mode = plain ]; then
		# hide jq: a PATH without it, but with the basics
		mkdir -p "$tmp/nojq"
		for c in bash sort awk cat printf mktemp; do ln -sf "$(command -v $c)" "$tmp/nojq/$c"; done
		got=$(PATH="$tmp/bin:$tmp/nojq" complete_words aoe-flush e1.2 | tr '\n' ' ')
	else
		command -v jq >/dev/null || { fail completion-targets-jq "jq missing"; continue; }
		got=$(complete_words aoe-flush e1.2 | tr '\n' ' ')
	fi
	[ "$got" = "e1.2 e1.20 " ] && pass completion-targets-$mode || fail completion-targets-$mode "got '$got'"
done
got=$(complete_words aoe-revalidate e1.20 | tr '\n' ' ')
[ "$got" = "e1.20 " ] && pass completion-revalidate || fail completion-revalidate "got '$got'"
got=$(complete_words aoe-stat --pro | tr '\n' ' ')
[ "$got" = "--prometheus " ] && pass completion-options || fail completion-options "got '$got'"
got=$(complete_words aoe-ddt --force | tr '\n' ' ')
[ "$got" = "--force --force-mounted " ] && pass completion-ddt-force || fail completion-ddt-force "got '$got'"
got=$(complete_words aoe-version -V | tr '\n' ' ')
[ "$got" = "-V " ] && pass completion-common-V || fail completion-common-V "got '$got'"
got=$(complete_words aoe-interfaces lo)
grep -qx lo <<<"$got" && pass completion-interfaces || fail completion-interfaces "got '$got'"
got=$(complete_words aoe-discover --pro | tr '\n' ' ')
[ "$got" = "--probe " ] && pass completion-discover-probe || fail completion-discover-probe "got '$got'"
got=$(complete_words aoe-discover --probe lo)
grep -qx lo <<<"$got" && pass completion-probe-interfaces || fail completion-probe-interfaces "got '$got'"
got=$(complete_words aoe-discover lo)
[ -z "$got" ] && pass completion-discover-no-args || fail completion-discover-no-args "got '$got'"
got=$(complete_words aoe-reserve e1.2 --re | tr '\n' ' ')
[ "$got" = "--release --reserve " ] && pass completion-reserve-options || fail completion-reserve-options "got '$got'"
got=$(complete_words aoe-cfg --prefix | tr '\n' ' ')
[ "$got" = "--prefix-test " ] && pass completion-cfg-options || fail completion-cfg-options "got '$got'"
got=$(complete_words aoe-ping -i lo)
grep -qx lo <<<"$got" && pass completion-ping-interfaces || fail completion-ping-interfaces "got '$got'"
got=$(complete_words aoe-mask e1.2 | tr '\n' ' ')
[ "$got" = "e1.2 e1.20 " ] && pass completion-mask-targets || fail completion-mask-targets "got '$got'"
got=$(complete_words aoe-set e1.2 | tr '\n' ' ')
[ "$got" = "e1.2 e1.20 " ] && pass completion-set-targets || fail completion-set-targets "got '$got'"
got=$(complete_words aoe-set e1.2 fa | tr '\n' ' ')
[ "$got" = "fast-fail " ] && pass completion-set-settings || fail completion-set-settings "got '$got'"
got=$(complete_words aoe-set e1.2 fast-fail o | tr '\n' ' ')
[ "$got" = "off " ] && pass completion-set-values || fail completion-set-values "got '$got'"
complete -p >/dev/null 2>&1
reg=$(bash -c 'source "$1"; complete -p' _ "$comp" | grep -c '_aoekit')
[ "$reg" -ge 12 ] && pass completion-registered || fail completion-registered "$reg tools registered"

# --- systemd units and default file
mkdir -p "$tmp/units"
for u in contrib/systemd/*; do sed 's#@PREFIX@#/usr/local#g' "$u" >"$tmp/units/$(basename "$u")"; done
if command -v systemd-analyze >/dev/null; then
	if systemd-analyze verify --man=no "$tmp"/units/* >"$tmp/err" 2>&1 && [ ! -s "$tmp/err" ]; then
		pass systemd-verify
	else
		fail systemd-verify "$(tr '\n' ' ' <"$tmp/err")"
	fi
fi
grep -q '^Before=remote-fs-pre.target' contrib/systemd/aoe.service &&
	grep -q '^Type=oneshot' contrib/systemd/aoe.service &&
	grep -q 'EnvironmentFile=-/etc/default/aoe' contrib/systemd/aoe.service &&
	pass aoe-service || fail aoe-service "unit lacks oneshot/Before=remote-fs-pre.target/EnvironmentFile"
if sh -n contrib/default/aoe && (set -a; . contrib/default/aoe; [ -n "${AOE_DISCOVER_WAIT+x}" ] && [ -n "${AOE_IFLIST+x}" ]); then
	pass default-file
else
	fail default-file "contrib/default/aoe does not set AOE_IFLIST/AOE_DISCOVER_WAIT"
fi
# The exporter's command line writes atomically: run it with a fake aoe-stat.
cmd=$(sed -n 's/^ExecStart=//p' "$tmp/units/aoe-prometheus.service" | sed "s#/usr/local/sbin#$tmp/bin#; s/\\\$\\\$/\$/g")
printf '#!/bin/sh\necho "aoe_up 0"\n' >"$tmp/bin/aoe-stat"
mkdir -p "$tmp/prom"
if DIR="$tmp/prom" eval "$cmd" && [ "$(cat "$tmp/prom/aoe.prom")" = "aoe_up 0" ] &&
	[ "$(ls -A "$tmp/prom")" = aoe.prom ]; then
	pass prometheus-unit-writes
else
	fail prometheus-unit-writes "$(ls -A "$tmp/prom")"
fi
printf '#!/bin/sh\necho partial; exit 1\n' >"$tmp/bin/aoe-stat"
if ! DIR="$tmp/prom" eval "$cmd" 2>/dev/null && [ "$(cat "$tmp/prom/aoe.prom")" = "aoe_up 0" ] &&
	[ "$(ls -A "$tmp/prom")" = aoe.prom ]; then
	pass prometheus-unit-atomic
else
	fail prometheus-unit-atomic "a failed run changed or left files: $(ls -A "$tmp/prom")"
fi

# --- make contrib-install
if [ -e build/userland/tools.list ]; then
	if make --no-print-directory contrib-install DESTDIR="$tmp/root" PREFIX=/usr \
		BASHCOMPDIR=/usr/share/bash-completion/completions UNITDIR=/lib/systemd/system \
		UDEVDIR=/lib/udev >"$tmp/err" 2>&1; then
		miss=""
		for t in $(cat build/userland/tools.list); do
			[ -f "$tmp/root/usr/share/bash-completion/completions/$t" ] || miss="$miss $t"
		done
		for f in lib/systemd/system/aoe.service lib/systemd/system/aoe-prometheus.service \
			lib/systemd/system/aoe-prometheus.timer etc/default/aoe \
			lib/udev/rules.d/60-aoe-persistent.rules; do
			[ -f "$tmp/root/$f" ] || miss="$miss $f"
		done
		# PREFIX=/usr: initramfs-tools' own directory
		for f in hooks/aoe scripts/local-top/aoe; do
			[ -x "$tmp/root/usr/share/initramfs-tools/$f" ] || miss="$miss usr/share/initramfs-tools/$f"
		done
		grep -q '@PREFIX@' "$tmp"/root/lib/systemd/system/* && miss="$miss (@PREFIX@ left)"
		[ -z "$miss" ] && pass contrib-install || fail contrib-install "missing:$miss"
	else
		fail contrib-install "$(tail -n 3 "$tmp/err" | tr '\n' ' ')"
	fi
	# Another PREFIX: the admin's /etc/initramfs-tools (a packaged
	# /usr/share/initramfs-tools/hooks/aoe, e.g. aoetools', is left alone).
	if make --no-print-directory contrib-install DESTDIR="$tmp/root2" PREFIX=/usr/local \
		BASHCOMPDIR=/usr/share/bash-completion/completions UNITDIR=/lib/systemd/system \
		UDEVDIR=/lib/udev >"$tmp/err" 2>&1 &&
		[ -x "$tmp/root2/etc/initramfs-tools/hooks/aoe" ] &&
		[ -x "$tmp/root2/etc/initramfs-tools/scripts/local-top/aoe" ] &&
		[ ! -e "$tmp/root2/usr/share/initramfs-tools" ]; then
		pass contrib-install-initramfs-local
	else
		fail contrib-install-initramfs-local "PREFIX=/usr/local did not put the hook and script in /etc/initramfs-tools only"
	fi
fi

# --- DKMS
if [ "$quick" = 1 ]; then
	exit $failed
fi
if ! command -v dkms >/dev/null; then
	fail dkms "dkms missing: run make deps"
	exit 1
fi
ver=$(cat VERSION)
make --no-print-directory dkms-tree DESTDIR="$tmp/d" DKMS_SRC=/src/aoekit-"$ver" >"$tmp/err" 2>&1 ||
	fail dkms-tree "$(tail -n 3 "$tmp/err" | tr '\n' ' ')"
grep -q "^PACKAGE_VERSION=\"$ver\"" "$tmp/d/src/aoekit-$ver/dkms.conf" &&
	pass dkms-conf-version || fail dkms-conf-version "PACKAGE_VERSION is not $ver"
for kdir in /lib/modules/*/build; do
	[ -d "$kdir" ] || continue
	k=$(basename "$(dirname "$kdir")")
	mkdir -p "$tmp/dkms-$k"
	if dkms build -m aoekit -v "$ver" -k "$k" --sourcetree "$tmp/d/src" \
		--dkmstree "$tmp/dkms-$k" >"$tmp/dkms-$k.log" 2>&1 &&
		ko=$(find "$tmp/dkms-$k/aoekit/$ver/$k" -name 'aoe.ko*' | head -n 1) && [ -n "$ko" ] &&
		modinfo -F vermagic "$ko" | grep "^$k " >/dev/null &&
		[ "$(modinfo -F version "$ko")" = "$ver" ]; then
		pass "dkms-build-$k"
	else
		fail "dkms-build-$k" "$(tail -n 5 "$tmp/dkms-$k.log" | tr '\n' ' ')"
	fi
done
exit $failed
