#!/usr/bin/env bash
# Lint the project's shell scripts for one trap the suite fell into: under
# "set -o pipefail", "cmd | grep -q x" fails when grep exits at the first
# match and cmd, still writing (dmesg, a long --help), dies of SIGPIPE: a
# test that fails at random. Use grepq (tests/vm/guest-lib.sh) in the guest,
# "grep x >/dev/null" or a here-string elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.sh' tests/vm/init .ci/run | grep -vx scripts/shell-lint.sh)
if grep -nE '^[^#]*(^|[^|])\|[[:space:]]*grep[[:space:]]+-[a-zA-Z]*q' "${files[@]}"; then
	echo "shell-lint: 'cmd | grep -q' above fails at random under pipefail (SIGPIPE): use grepq or 'grep ... >/dev/null'" >&2
	exit 1
fi
echo "shell-lint: clean (${#files[@]} scripts)"
