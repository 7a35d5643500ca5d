#!/usr/bin/env bash
# Host test of the Debian packages: `make deb` from this tree into a
# temporary directory (a full package build: its own userland build with
# Debian's flags, nothing reused from build/), lintian (no E: lines), the
# packages' contents and control data, both unpacked into a throwaway root
# (dpkg-deb -x; nothing is installed on this machine), the packaged tools
# run, and a DKMS build of the packaged module source for every installed
# kernel with headers, from the unpacked root and a temporary DKMS tree
# (nothing in /usr/src or /var/lib/dkms, nothing in /lib/modules; the signing
# key DKMS creates in /var/lib/dkms is removed again if it was not there).
# Prints "PASS deb/<name>" / "FAIL deb/<name>: reason" lines.
#   tests/host/deb.sh
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
failed=0
pass() { echo "PASS deb/$1"; }
fail() { echo "FAIL deb/$1: $2"; failed=1; }
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
start=$(date +%s)
ver=$(cat VERSION)

for c in dpkg-buildpackage dh dh_dkms lintian dkms fakeroot; do
	if ! command -v $c >/dev/null; then
		fail tools "$c missing: run make deps"
		exit 1
	fi
done

# --- build (noddebs: no -dbgsym package, the only difference from make deb)
out=$tmp/deb
t0=$(date +%s)
if DEB_BUILD_OPTIONS=noddebs make --no-print-directory deb DEB_OUT="$out" >"$tmp/build.log" 2>&1; then
	pass "build ($(($(date +%s) - t0)) s)"
else
	fail build "$(tail -n 8 "$tmp/build.log" | tr '\n' ' ')"
	exit 1
fi
bin=$out/aoekit_${ver}_amd64.deb
dkp=$out/aoekit-dkms_${ver}_all.deb
for f in "$bin" "$dkp" "$out/aoekit_${ver}_amd64.changes"; do
	[ -f "$f" ] || { fail outputs "no $(basename "$f") in DEB_OUT"; exit 1; }
done
stray=$(find "$out" -mindepth 1 -maxdepth 1 ! -name '*.deb' ! -name '*.changes' ! -name '*.buildinfo')
[ -z "$stray" ] && pass outputs || fail outputs "stray files in DEB_OUT: $(tr '\n' ' ' <<<"$stray")"

# --- lintian (--fail-on error: exit 1 on an E: tag; W: tags are printed)
t0=$(date +%s)
lintian --pedantic --fail-on error "$out/aoekit_${ver}_amd64.changes" >"$tmp/lintian.log" 2>&1
rc=$?
grep -E '^[EW]: ' "$tmp/lintian.log" | sed 's/^/  lintian: /'
nerr=$(grep -c '^E: ' "$tmp/lintian.log")
if [ "$rc" = 0 ] && [ "$nerr" = 0 ]; then
	pass "lintian-no-errors ($(($(date +%s) - t0)) s, $(grep -c '^W: ' "$tmp/lintian.log") warnings)"
elif [ "$nerr" -gt 0 ]; then
	fail lintian-no-errors "$nerr error(s)"
else
	fail lintian-no-errors "lintian failed (exit $rc): $(grep -v '^[IPN]: ' "$tmp/lintian.log" | head -n 3 | tr '\n' ' ')"
fi

# --- control data
field() { dpkg-deb -f "$1" "$2"; }
miss=""
[ "$(field "$bin" Version)" = "$ver" ] || miss="$miss aoekit-version=$(field "$bin" Version)"
[ "$(field "$dkp" Version)" = "$ver" ] || miss="$miss dkms-version=$(field "$dkp" Version)"
[ "$(field "$dkp" Architecture)" = all ] || miss="$miss dkms-arch"
[ "$(field "$bin" Architecture)" = amd64 ] || miss="$miss aoekit-arch"
field "$dkp" Depends | grep -w dkms >/dev/null || miss="$miss dkms-depends"
field "$bin" Depends | grep -w libnl-genl-3-200 >/dev/null || miss="$miss shlibs-depends"
field "$bin" Conflicts | grep -w aoetools >/dev/null || miss="$miss conflicts-aoetools"
[ -z "$miss" ] && pass control || fail control "$miss"

# --- contents
dpkg-deb -c "$bin" | awk '{print $NF}' | sed 's#^\./#/#' >"$tmp/bin.list"
dpkg-deb -c "$dkp" | awk '{print $NF}' | sed 's#^\./#/#' >"$tmp/dkms.list"
# Expected: from the sources, not from any build output.
tools=$(sed -n 's/^aoe_tool(\([^ ]*\) .*/\1/p' userland/CMakeLists.txt)
want=()
for t in $tools; do
	want+=("/usr/sbin/$t" "/usr/share/bash-completion/completions/$t")
done
for m in man/*.8; do want+=("/usr/share/man/man8/$(basename "$m").gz"); done
for m in man/*.4; do want+=("/usr/share/man/man4/$(basename "$m").gz"); done
for m in man/*.7; do want+=("/usr/share/man/man7/$(basename "$m").gz"); done
want+=(/usr/share/initramfs-tools/hooks/aoe /usr/share/initramfs-tools/scripts/local-top/aoe)
for u in contrib/systemd/*; do want+=("/lib/systemd/system/$(basename "$u")"); done
for r in contrib/udev/*.rules; do want+=("/lib/udev/rules.d/$(basename "$r")"); done
want+=(/etc/default/aoe /usr/share/doc/aoekit/copyright /usr/share/doc/aoekit/changelog.gz)
miss=""
for f in "${want[@]}"; do grep -qxF "$f" "$tmp/bin.list" || miss="$miss $f"; done
[ -z "$miss" ] && pass "aoekit-contents (${#want[@]} files)" || fail aoekit-contents "missing:$miss"
grep -qE '^/lib/modules/|\.ko$|^/usr/src/' "$tmp/bin.list" &&
	fail aoekit-no-module "aoekit ships a module or module source" || pass aoekit-no-module
src=/usr/src/aoekit-$ver
want=("$src/dkms.conf" "$src/Kbuild" "$src/Makefile")
# The sources git tracks (a local "make kmod" leaves aoe.mod.c beside them).
for f in $(git ls-files 'kmod/*.c' 'kmod/*.h' | grep -v '^kmod/uapi/'); do want+=("$src/$(basename "$f")"); done
for f in $(git ls-files 'kmod/uapi/*.h'); do want+=("$src/uapi/$(basename "$f")"); done
miss=""
for f in "${want[@]}"; do grep -qxF "$f" "$tmp/dkms.list" || miss="$miss $f"; done
extra=$(grep -E '\.(o|ko|cmd|mod)$' "$tmp/dkms.list" | tr '\n' ' ')
[ -z "$miss" ] && [ -z "$extra" ] && pass "dkms-contents (${#want[@]} files)" ||
	fail dkms-contents "missing:$miss build outputs: $extra"

# --- maintainer scripts and conffiles
dpkg-deb -e "$bin" "$tmp/ctl-bin"
dpkg-deb -e "$dkp" "$tmp/ctl-dkms"
grep -qx /etc/default/aoe "$tmp/ctl-bin/conffiles" 2>/dev/null &&
	pass conffile || fail conffile "/etc/default/aoe is not a conffile"
# dh_dkms: postinst runs DKMS's common.postinst (add, build, install for the
# installed kernels), prerm runs dkms remove; aoekit has neither.
ok=1
for f in postinst prerm; do
	grep -q '^DKMS_NAME=aoekit$' "$tmp/ctl-dkms/$f" 2>/dev/null &&
		grep -q "^DKMS_VERSION=$ver$" "$tmp/ctl-dkms/$f" || ok=0
	grep -qs 'dkms' "$tmp/ctl-bin/$f" && ok=0
done
grep -q 'for DKMS_POSTINST in /usr/lib/dkms/common.postinst' "$tmp/ctl-dkms/postinst" &&
	grep -q '$DKMS_POSTINST $DKMS_NAME $DKMS_VERSION' "$tmp/ctl-dkms/postinst" || ok=0
grep -q 'dkms remove -m $DKMS_NAME -v $DKMS_VERSION --all' "$tmp/ctl-dkms/prerm" || ok=0
[ "$ok" = 1 ] && pass dkms-maintscripts ||
	fail dkms-maintscripts "aoekit-dkms postinst/prerm lack dkms common.postinst/remove for aoekit $ver, or aoekit's mention dkms"
# Units are not enabled or started on install (the admin enables aoe.service):
# dh_installsystemd --no-enable only re-enables a unit the admin had enabled
# ("debian-installed" guard) and --no-start starts nothing.
ok=1
for u in aoe.service aoe-prometheus.timer; do
	grep -q "deb-systemd-helper debian-installed '$u'" "$tmp/ctl-bin/postinst" 2>/dev/null || ok=0
done
grep -qs 'deb-systemd-invoke' "$tmp/ctl-bin/postinst" && ok=0
grep -qs 'was-enabled defaults to true' "$tmp/ctl-bin/postinst" && ok=0
[ "$ok" = 1 ] && pass units-not-enabled ||
	fail units-not-enabled "aoekit's postinst enables or starts a unit, or does not know aoe.service/aoe-prometheus.timer"
# dh_installinitramfs: the hook makes update-initramfs run (a dpkg trigger).
grep -qx 'activate-noawait update-initramfs' "$tmp/ctl-bin/triggers" 2>/dev/null &&
	pass initramfs-trigger || fail initramfs-trigger "aoekit does not trigger update-initramfs"

# --- unpacked into a throwaway root
root=$tmp/root
mkdir -p "$root"
dpkg-deb -x "$bin" "$root" && dpkg-deb -x "$dkp" "$root"
miss=""
for u in "$root"/lib/systemd/system/*; do
	grep -q '@PREFIX@' "$u" && miss="$miss $(basename "$u"):@PREFIX@"
	grep -q '^ExecStart=.*/usr/local' "$u" && miss="$miss $(basename "$u"):/usr/local"
done
grep -q '^ExecStart=-/usr/sbin/aoe-discover' "$root/lib/systemd/system/aoe.service" || miss="$miss aoe.service-ExecStart"
cmp -s "$root/lib/udev/rules.d/60-aoe-persistent.rules" contrib/udev/60-aoe-persistent.rules || miss="$miss udev-rules-differ"
cmp -s "$root/etc/default/aoe" contrib/default/aoe || miss="$miss default-differs"
for f in hooks/aoe scripts/local-top/aoe; do
	cmp -s "$root/usr/share/initramfs-tools/$f" "contrib/initramfs-tools/$f" || miss="$miss initramfs-$f-differs"
	[ -x "$root/usr/share/initramfs-tools/$f" ] || miss="$miss initramfs-$f-not-executable"
done
[ -z "$miss" ] && pass unpacked-files || fail unpacked-files "$miss"
if command -v systemd-analyze >/dev/null; then
	if systemd-analyze verify --man=no "$root"/lib/systemd/system/*.service \
		"$root"/lib/systemd/system/*.timer >"$tmp/verify" 2>&1 && ! grep -q . "$tmp/verify"; then
		pass units-verify
	else
		fail units-verify "$(tr '\n' ' ' <"$tmp/verify" | cut -c1-300)"
	fi
fi
# The packaged tools run (shared libraries resolved from the Depends) and
# carry Debian's hardening (PIE, BIND_NOW from hardening=+all).
miss=""
for t in $tools; do
	"$root/usr/sbin/$t" --help >/dev/null 2>"$tmp/err" || miss="$miss $t:$(head -c 80 "$tmp/err")"
	readelf -h "$root/usr/sbin/$t" | grep 'Type: *DYN' >/dev/null || miss="$miss $t:not-PIE"
	readelf -d "$root/usr/sbin/$t" | grep 'BIND_NOW' >/dev/null || miss="$miss $t:no-BIND_NOW"
	readelf -S "$root/usr/sbin/$t" | grep '\.debug_info' >/dev/null && miss="$miss $t:not-stripped"
done
[ -z "$miss" ] && pass tools-run-hardened || fail tools-run-hardened "$miss"
v=$("$root/usr/sbin/aoe-stat" --version 2>&1)
[ "$v" = "aoe-stat (aoekit) $ver" ] && pass tools-version || fail tools-version "aoe-stat --version: '$v'"

# --- DKMS build of the packaged source, per installed kernel
grep -q "^PACKAGE_VERSION=\"$ver\"" "$root$src/dkms.conf" && grep -q '^AUTOINSTALL="yes"' "$root$src/dkms.conf" &&
	pass dkms-conf || fail dkms-conf "dkms.conf: PACKAGE_VERSION is not $ver or no AUTOINSTALL"
nk=0
for kdir in /lib/modules/*/build; do
	[ -d "$kdir" ] || continue
	k=$(basename "$(dirname "$kdir")")
	nk=$((nk + 1))
	mkdir -p "$tmp/dkms-$k"
	t0=$(date +%s)
	if dkms build -m aoekit -v "$ver" -k "$k" --sourcetree "$root/usr/src" \
		--dkmstree "$tmp/dkms-$k" >"$tmp/dkms-$k.log" 2>&1 &&
		ko=$(find "$tmp/dkms-$k/aoekit/$ver/$k" -name 'aoe.ko*' | head -n 1) && [ -n "$ko" ] &&
		modinfo -F vermagic "$ko" | grep "^$k " >/dev/null &&
		[ "$(modinfo -F version "$ko")" = "$ver" ]; then
		pass "dkms-build-$k ($(($(date +%s) - t0)) s)"
	else
		fail "dkms-build-$k" "$(tail -n 5 "$tmp/dkms-$k.log" | tr '\n' ' ')"
	fi
done
[ "$nk" -ge 1 ] || fail dkms-build "no kernel headers in /lib/modules/*/build"
echo "deb.sh took $(($(date +%s) - start)) s"
exit $failed
