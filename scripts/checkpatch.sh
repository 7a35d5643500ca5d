#!/usr/bin/env bash
# Run the kernel's checkpatch.pl (from Debian's linux-source-6.1 tarball) on
# every module source (aoe.ko and the test target tests/ktgt). Exits non-zero on any error or warning.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build/checkpatch
tarball=$(ls /usr/src/linux-source-6.1.tar.* 2>/dev/null | head -n 1 || true)
if [ ! -x "$dir/scripts/checkpatch.pl" ]; then
	if [ -z "$tarball" ]; then
		echo "checkpatch: /usr/src/linux-source-6.1.tar.xz missing: run 'make deps'" >&2
		exit 1
	fi
	mkdir -p "$dir"
	tar -xf "$tarball" -C "$dir" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
fi
cp=("$dir/scripts/checkpatch.pl" --no-tree --quiet --show-types)
mapfile -t files < <(ls kmod/*.c kmod/*.h kmod/uapi/*.h tests/ktgt/*.c | grep -v -e '^kmod/compat.h$' -e '\.mod\.c$')
"${cp[@]}" -f "${files[@]}"
# compat.h is the one file whose job is to test kernel versions
"${cp[@]}" --ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON -f kmod/compat.h
echo "checkpatch: clean"
