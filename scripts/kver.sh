#!/bin/sh
# Print the kernel release to build against: the running kernel when its
# headers are installed, otherwise the newest /lib/modules/*/build.
r=$(uname -r)
if [ -d "/lib/modules/$r/build" ]; then
	echo "$r"
	exit 0
fi
ls -d /lib/modules/*/build 2>/dev/null | sed 's|^/lib/modules/||; s|/build$||' | sort -V | tail -n 1
