#!/usr/bin/env bash
# Host tests for the tools' one command-line layer (userland/lib/core/cli.*):
# every installed tool answers -h/--help and -V/--version the same way and
# turns a bad option into the same two usage-error lines and exit status 2;
# every tool's man page points to the one exit-status table (aoe(4) EXIT
# STATUS), which names the tool, and uses only its codes (0 ok, 1 error,
# 2 usage, 3 problems found or done only in part, 4 refused).
# Needs no module: nothing here reaches the kernel.
# Prints "PASS cli/<tool>-<what>" or "FAIL cli/<tool>-<what>: reason" lines.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
B=build/userland
failed=0
pass() { echo "PASS cli/$1"; }
fail() { echo "FAIL cli/$1: $2"; failed=1; }

if [ ! -s "$B/tools.list" ]; then
	fail setup "$B/tools.list missing: run make userland"
	exit 1
fi
version=$(cat VERSION)
while read -r t; do
	[ -n "$t" ] || continue
	for v in -V --version; do
		out=$("$B/$t" "$v" 2>&1)
		rc=$?
		[ "$rc" = 0 ] && [ "$out" = "$t (aoekit) $version" ] && pass "$t$v" ||
			fail "$t$v" "rc $rc, '$out'"
	done
	for h in -h --help; do
		out=$("$B/$t" "$h" 2>&1)
		rc=$?
		[ "$rc" = 0 ] && [[ "$out" == "Usage: $t "* ]] && grep -q -- '-V \[ --version \]' <<<"$out" &&
			grep -q "see aoe(4) EXIT STATUS" <<<"$out" && pass "$t$h" ||
			fail "$t$h" "rc $rc, '$(head -n 2 <<<"$out")'"
	done
	err=$("$B/$t" --no-such-option 2>&1 >/dev/null)
	rc=$?
	want="$t: unrecognised option '--no-such-option'
Try '$t --help'."
	[ "$rc" = 2 ] && [ "$err" = "$want" ] && pass "$t-usage-error" ||
		fail "$t-usage-error" "rc $rc, '$err'"
	# -v bundled with -h: counted, not refused
	out=$("$B/$t" -vvh 2>&1)
	rc=$?
	[ "$rc" = 0 ] && [[ "$out" == "Usage: $t "* ]] && pass "$t-bundled-v" ||
		fail "$t-bundled-v" "rc $rc, '$(head -n 2 <<<"$out")'"
	# the man page's EXIT STATUS: points to aoe(4), codes only from its table
	page=man/$t.8
	codes=$(awk '/^\.SH EXIT STATUS/ { on = 1; next } /^\.SH / { on = 0 }
		on && /^\.B [0-9]+$/ { print $2 }' "$page" 2>/dev/null | sort -u | tr '\n' ' ')
	if ! grep -q '^As every aoekit tool (see$' "$page" 2>/dev/null; then
		fail "$t-exit-status" "$page does not point to aoe(4) EXIT STATUS"
	elif ! awk '/^\.SH EXIT STATUS/ { on = 1; next } /^\.SH / { on = 0 } on' man/aoe.4 |
		grep -Eq "^\.(BR|RB) (\( )?$t ?[,)]"; then
		fail "$t-exit-status" "aoe(4) EXIT STATUS does not name $t"
	elif [ -z "$codes" ] || grep -q '[^0-4 ]' <<<"$codes"; then
		fail "$t-exit-status" "$page lists exit codes '$codes' (the table has 0-4)"
	else
		pass "$t-exit-status"
	fi
done <"$B/tools.list"
exit $failed
