#!/usr/bin/env bash
# make demo: boot one VM (default: the newest test kernel) with the aoekit
# module, a vblade target on a RAM disk and the userland tools, and show what
# the tools print.
#
#   tests/vm/demo.sh [--kernel KVER] [--intree] [--break STEP]
#   --intree: the same set-up with the distribution's in-tree aoe and aoetools
#   --break STEP: break that step on purpose (aoe-ddt: the old "e1.2" path),
#                 to see the last line say "demo FAILED: STEP"
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
here="$top/tests/vm"
# shellcheck source=tests/vm/host-lib.sh
. "$here/host-lib.sh"

kv=""
intree=0
brk=""
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kv=${2:?--kernel needs a kernel release}; shift 2 ;;
	--intree) intree=1; shift ;;
	--break) brk=${2:?--break needs a step name}; shift 2 ;;
	-h | --help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "demo.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
kv=${kv:-$(vm_host_kernels | tail -n 1)}
[ -n "$kv" ] || { echo "demo: no 6.1 or 6.12 kernel with headers installed: run 'make deps'" >&2; exit 1; }

echo "aoekit demo on Linux $kv (qemu, 2 vCPUs, software emulation: expect low throughput)"
inject=$(vm_host_inject)
ko=""
if ! ko=$(vm_host_kmod "$kv" "/lib/modules/$kv/build"); then
	echo "The aoekit module does not build for $kv: $(vm_host_kmod_error "$kv")" >&2
	if [ "$intree" = 0 ]; then
		echo "(tests/vm/demo.sh --intree shows the same set-up with the in-tree aoe driver)" >&2
		exit 1
	fi
fi
[ -e "$top/build/userland/tools.list" ] ||
	echo "note: build/userland is missing (run 'make userland'): the VM has no aoekit tools"
initrd=$("$here/mkinitramfs.sh" --kver "$kv" ${ko:+--module "$ko"} --inject "$inject")
out="$top/build/vm/$kv"
vm_host_qemu "/boot/vmlinuz-$kv" "$initrd" "aoetest.scenarios=demo-guest aoetest.timeout=300 aoetest.demo=$([ "$intree" = 1 ] && echo intree || echo aoekit)${brk:+ aoetest.demo_break=$brk}"
echo "booting the VM (takes 20-40 s under emulation) ..."
# Show the guest's own output, not the kernel log lines (/init prints those as "kmsg| ").
timeout --foreground -k 5 420 "${qemu[@]}" </dev/null 2>&1 | tee "$out/demo-console.raw" |
	vm_host_clean_console | awk '
		/^=== scenario/ { on = 1; next }
		/^AOE-TIME/ || /^kmsg\| / || /^AOE-DONE/ || /^\[ *[0-9]+\.[0-9]+\] / { next }
		/^AOE-RESULT PASS/ { print "\ndemo finished: everything worked"; ok = 1; on = 0; next }
		/^AOE-RESULT FAIL/ { sub(/^AOE-RESULT FAIL demo-guest /, ""); print "\ndemo FAILED: " $0; failed = 1; on = 0; next }
		on { print }
		END {
			if (!ok && !failed)
				print "\ndemo FAILED: the VM gave no result (timed out or crashed; see build/vm/'"$kv"'/demo-console.raw)"
			exit ok ? 0 : 1
		}'
