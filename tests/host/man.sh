#!/usr/bin/env bash
# Lints every man page with mandoc -Tlint and groff -man -ww -z; any output
# is a failure. Also checks that each page has EXAMPLES, EXIT STATUS (section
# 8) and SEE ALSO, and that every installed tool has a page.
# Prints "PASS man/<page>" or "FAIL man/<page>: reason" lines.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
failed=0
pass() { echo "PASS man/$1"; }
fail() { echo "FAIL man/$1: $2"; failed=1; }

for tool in mandoc groff; do
	command -v $tool >/dev/null || { fail setup "$tool missing: run make deps"; exit 1; }
done
for page in man/*.[1-8]; do
	name=$(basename "$page")
	out=$( { mandoc -Tlint "$page"; groff -man -ww -z "$page"; } 2>&1)
	why=""
	[ -n "$out" ] && why="lint: $(head -n 3 <<<"$out" | tr '\n' ' ')"
	for sec in NAME SYNOPSIS DESCRIPTION EXAMPLES "SEE ALSO"; do
		grep -q "^\.SH \"\?$sec\"\?$" "$page" || why="$why missing $sec;"
	done
	case $name in *.8) grep -q '^\.SH "\?EXIT STATUS"\?$' "$page" || why="$why missing EXIT STATUS;" ;; esac
	[ -z "$why" ] && pass "$name" || fail "$name" "$why"
done
for tool in userland/tools/*/; do
	t=$(basename "$tool")
	[ -e "man/$t.8" ] && pass "page-for-$t" || fail "page-for-$t" "man/$t.8 missing"
done
exit $failed
