#!/usr/bin/env bash
# VM suite: boot each test kernel once under qemu (TCG) and run the scenarios
# of tests/vm/scenarios/ inside it (see tests/vm/README.md).
#
#   tests/vm/run.sh [--kernel KVER]... [SCENARIO...]
#   tests/vm/run.sh --kernel-image PATH --modules-dir DIR --kbuild DIR [SCENARIO...]
#
#   --kernel KVER        an installed kernel (/boot/vmlinuz-KVER,
#                        /lib/modules/KVER/build); repeatable. Default: every
#                        installed kernel of the 6.1 and 6.12 series.
#   --kernel-image PATH  a locally built kernel (e.g. a debug kernel) ...
#   --modules-dir DIR    ... its modules (INSTALL_MOD_PATH root or the
#                        lib/modules/<kver> folder) ...
#   --kbuild DIR         ... and its build tree (for building kmod/).
#   --timeout SECONDS    per scenario inside the VM (default 120; a scenario
#                        can ask for more with a "# timeout: N" line)
#   --slow N             multiply the waits inside scenarios by N (fio
#                        timeouts, state waits) and each scenario's time limit, for debug kernels
#   --cuts N             power cuts for 47-power-cut's configuration that must
#                        pass (default 8; a longer soak: --cuts 50)
#   --jobs N             kernels booted at the same time (default 2; 1: one
#                        after the other). With more than 1, scenarios with a
#                        "# alone:" line (they measure speed) run afterwards in
#                        a boot of their own, nothing else running
#   --every-kernel       every scenario on every kernel, "# kernels:" lines
#                        ignored (make test-full)
#   --shell              interactive shell in the VM after the scenarios
#   SCENARIO             name (01-load-unload) or number prefix (01); default all
#                        (a "# kernels: 6.12" scenario runs on that series only
#                        unless named: "SKIP <kver>/<scenario>: ..." elsewhere)
#
# Prints one line per scenario on stdout, "PASS <kver>/<scenario>" or
# "FAIL <kver>/<scenario>: <reason>"; progress goes to stderr. The console of
# each boot is kept in build/vm/<kver>/console.log. Exit status 1 if anything
# failed, 2 on usage errors.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
here="$top/tests/vm"
# shellcheck source=tests/vm/host-lib.sh
. "$here/host-lib.sh"
kernels=()
kimage=""
kmoddir=""
kbuild=""
timeout=120
slow=1
cuts=8
shell=0
jobs=2
every=0
want=()

usage() {
	sed -n '2,35p' "$0" | sed 's/^# \{0,1\}//'
	exit "${1:-0}"
}

while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernels+=("$2"); shift 2 ;;
	--kernel-image) kimage=$2; shift 2 ;;
	--modules-dir) kmoddir=$2; shift 2 ;;
	--kbuild) kbuild=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--slow) slow=$2; shift 2 ;;
	--cuts) cuts=$2; shift 2 ;;
	--shell) shell=1; shift ;;
	--jobs) jobs=$2; shift 2 ;;
	--every-kernel) every=1; shift ;;
	-h | --help) usage 0 ;;
	-*) echo "run.sh: unknown option '$1'" >&2; usage 2 >&2 ;;
	*) want+=("$1"); shift ;;
	esac
done

say() { printf 'vm: %s\n' "$*" >&2; }

now() { date +%s; }

# ---------------------------------------------------------------- scenarios
all=()
for f in "$here"/scenarios/*.sh; do
	[ -e "$f" ] && all+=("$(basename "$f" .sh)")
done
scen=()
if [ ${#want[@]} -eq 0 ]; then
	scen=("${all[@]}")
else
	for w in "${want[@]}"; do
		w=${w%.sh}
		w=${w##*/}
		hit=""
		for s in "${all[@]}"; do
			if [ "$s" = "$w" ] || [ "${s%%-*}" = "$w" ]; then
				hit=$s
				break
			fi
		done
		[ -n "$hit" ] || { echo "run.sh: no scenario '$w' in $here/scenarios" >&2; exit 2; }
		scen+=("$hit")
	done
fi
[ ${#scen[@]} -gt 0 ] || { echo "run.sh: no scenarios" >&2; exit 2; }
# The image takes aoekit's tools from build/userland (tools.list). Without
# them the scenarios would run aoetools' aoe-stat, aoe-flush and
# aoe-discover, which share the names: checks could pass on the wrong tool.
missing=""
if [ -s "$top/build/userland/tools.list" ]; then
	for t in $(cat "$top/build/userland/tools.list"); do
		[ -x "$top/build/userland/$t" ] || missing+=" $t"
	done
else
	missing=" (build/userland/tools.list)"
fi
if [ -n "$missing" ]; then
	echo "run.sh: aoekit's tools are not built:$missing; build them first (make userland, or make all)" >&2
	exit 2
fi

# A scenario that loads our module says so in a "# needs: aoe.ko" line.
needs_module() { needs_ko aoe "$1"; }
# needs_ko NAME SCENARIO: its "# needs:" line names NAME.ko
needs_ko() { grep -qE "^# needs:(.* )?$1\.ko( |\$)" "$here/scenarios/$2.sh"; }
# A scenario whose subject does not depend on the kernel (a tool against
# fio, raw sockets) may run on one series only in the whole suite, with a
# "# kernels: 6.12" line; named on the command line it runs on every kernel.
kernel_ok() {
	local k
	k=$(sed -n 's/^# kernels: *\([0-9.]*\).*/\1/p' "$here/scenarios/$1.sh" | head -n 1)
	[ -z "$k" ] || [ ${#want[@]} -gt 0 ] || [ "$every" = 1 ] || [[ $2 == "$k".* ]]
}

# A scenario that measures speed says so in a "# alone: why" line: with
# --jobs > 1 it runs in a boot of its own after the others.
runs_alone() { grep -q '^# alone:' "$here/scenarios/$1.sh"; }

# ---------------------------------------------------------------- kernels
# Entries: "kver|image|modules dir|build dir"
targets=()
if [ -n "$kimage" ]; then
	if [ -z "$kmoddir" ] || [ -z "$kbuild" ]; then
		echo "run.sh: --kernel-image needs --modules-dir and --kbuild" >&2
		exit 2
	fi
	kv=$(make -s --no-print-directory -C "$kbuild" kernelrelease 2>/dev/null || true)
	if [ -z "$kv" ]; then
		kv=$(basename "$(ls -d "$kmoddir"/lib/modules/* 2>/dev/null | head -n 1)")
	fi
	[ -n "$kv" ] || { echo "run.sh: cannot tell the kernel release of $kbuild" >&2; exit 2; }
	targets+=("$kv|$kimage|$kmoddir|$kbuild")
else
	if [ ${#kernels[@]} -eq 0 ]; then
		mapfile -t kernels < <(vm_host_kernels)
	fi
	[ ${#kernels[@]} -gt 0 ] || {
		echo "FAIL vm/kernels: no 6.1 or 6.12 kernel with headers installed (run make deps)"
		exit 1
	}
	for kv in "${kernels[@]}"; do
		targets+=("$kv|/boot/vmlinuz-$kv|/lib/modules/$kv|/lib/modules/$kv/build")
	done
fi

# ---------------------------------------------------------------- frame injector
inject=$(vm_host_inject)

failed=0
result() {
	# result PASS|FAIL kver/name [reason]
	if [ "$1" = PASS ]; then
		echo "PASS $2"
	else
		echo "FAIL $2: ${3:-failed}"
		failed=1
	fi
}

# panic_excerpt LOG: what led to a kernel panic in console LOG, for whoever
# has only the suite's output (CI keeps no console): the 90 lines up to the
# first "Kernel panic" (an oops, its registers and call trace, and the
# scenario's last steps before it).
panic_excerpt() {
	awk '{ ring[NR % 90] = $0 } /Kernel panic/ { for (i = NR - 89; i <= NR; i++) if (i > 0) print ring[i % 90]; exit }' "$1"
}

# boot_collect KVER IMAGE INITRD OUT CONSOLE SCENARIO...: one boot for those
# scenarios, console in OUT/CONSOLE.raw and .log, their results on stdout.
boot_collect() {
	local kv=$1 image=$2 initrd=$3 out=$4 con=$5 s st limit list tb boot line secs why attempt panicked=
	shift 5
	list=$(IFS=,; echo "$*")
	# qemu's own limit: boot plus every scenario's timeout plus cleanup.
	limit=90
	for s in "$@"; do
		st=$(sed -n 's/^# timeout: *\([0-9][0-9]*\).*/\1/p' "$here/scenarios/$s.sh" | head -n 1)
		st=${st:-$timeout}
		[ "$st" -ge "$timeout" ] || st=$timeout  # --timeout is a floor, as in the guest
		st=$((st * slow))  # as in the guest
		limit=$((limit + st + 45))
	done
	say "$kv: booting for $* (at most ${limit}s)"
	tb=$(now)
	vm_host_qemu "$image" "$initrd" "aoetest.scenarios=$list aoetest.timeout=$timeout aoetest.shell=$shell aoetest.slow=$slow aoetest.cuts=$cuts"
	if [ "$shell" = 1 ]; then
		"${qemu[@]}" | tee "$out/$con.raw" || true
	else
		# A TCG vCPU sometimes trips over the kernel's own text patching
		# while booting ("Oops: int3" before /init, seen on 6.12): that
		# boot is tried once more. A panic at any time ends the VM at once
		# (after a panic qemu can hang instead of exiting).
		for attempt in 1 2; do
			vm_host_boot "$out/$con.raw" "$limit"
			grep -aq 'AOE-BOOT' "$out/$con.raw" && break
			[ "$attempt" = 2 ] || say "$kv: the VM did not reach /init$(grep -aq 'Kernel panic' "$out/$con.raw" && echo ' (kernel panic)'); booting again"
			cp "$out/$con.raw" "$out/$con.attempt$attempt.raw"
		done
	fi
	# Console: drop CRs and escape sequences.
	vm_host_clean_console <"$out/$con.raw" >"$out/$con.log"
	boot=$(grep -aoE 'AOE-BOOT kernel .* up after [0-9.]+ s' "$out/$con.log" | head -n 1 | awk '{ print $(NF-1) }')
	say "$kv: VM ran $(($(now) - tb)) s (kernel reached /init after ${boot:-?} s); console: build/vm/$kv/$con.log"

	for s in "$@"; do
		line=$(grep -aoE "AOE-RESULT (PASS|FAIL) $s( .*)?$" "$out/$con.log" | tail -n 1 || true)
		secs=$(grep -aoE "AOE-TIME $s [0-9.]+ s" "$out/$con.log" | awk '{ print $3 }' | tail -n 1 || true)
		[ -n "$secs" ] && say "$kv/$s took ${secs}s"
		case "$line" in
		"AOE-RESULT PASS $s") result PASS "$kv/$s" ;;
		"AOE-RESULT FAIL $s"*) result FAIL "$kv/$s" "${line#"AOE-RESULT FAIL $s "}" ;;
		*)
			if ! grep -aq 'AOE-BOOT' "$out/$con.log"; then
				why="VM never reached /init"
			elif grep -aqE 'Kernel panic|end Kernel panic' "$out/$con.log"; then
				why="kernel panic (see $con.log)"
				if [ -z "$panicked" ]; then
					panicked=1
					panic_excerpt "$out/$con.log" | sed "s|^|vm: $kv: console: |" >&2
				fi
			else
				why="no result: VM died or timed out"
			fi
			result FAIL "$kv/$s" "$why"
			;;
		esac
	done
	# Debug kernels end with a kmemleak scan (tests/vm/init).
	line=$(grep -aoE "AOE-RESULT (PASS|FAIL) kmemleak( .*)?$" "$out/$con.log" | tail -n 1 || true)
	case "$line" in
	"AOE-RESULT PASS kmemleak"*) result PASS "$kv/kmemleak${con#console}"; say "$kv/${line#AOE-RESULT PASS }" ;;
	"AOE-RESULT FAIL kmemleak"*) result FAIL "$kv/kmemleak${con#console}" "${line#"AOE-RESULT FAIL kmemleak "}" ;;
	esac
}

# run_kernel KVER IMAGE MODULES-DIR KBUILD: build the module and the initramfs,
# boot once for the kernel's scenarios; those marked "# alone:" are left for
# a boot of their own with nothing else running (OUT/alone: initrd path, then
# the scenarios).
run_kernel() {
	local kv=$1 image=$2 mdir=$3 kb=$4 out ko="" kt="" s initrd run=() alone=()
	out="$top/build/vm/$kv"
	mkdir -p "$out"
	rm -f "$out/alone"
	# The module, built in a private copy so two kernels never clash.
	say "$kv: building kmod/"
	if ! ko=$(vm_host_kmod "$kv" "$kb"); then
		result FAIL "$kv/kmod-build" "$(vm_host_kmod_error "$kv")"
	fi
	# the in-kernel test target (scenarios that say "needs: aoe_ktgt.ko")
	if ! kt=$(vm_host_ktgt "$kv" "$kb"); then
		result FAIL "$kv/ktgt-build" "make failed (build/vm/$kv/ktgt-build.log)"
	fi
	for s in "${scen[@]}"; do
		if ! kernel_ok "$s" "$kv"; then
			echo "SKIP $kv/$s: $(sed -n 's/^# kernels: *//p' "$here/scenarios/$s.sh" | head -n 1) only in the whole suite"
		elif [ -z "$ko" ] && needs_module "$s"; then
			result FAIL "$kv/$s" "not run: the module did not build"
		elif [ -z "$kt" ] && needs_ko aoe_ktgt "$s"; then
			result FAIL "$kv/$s" "not run: aoe_ktgt.ko did not build"
		elif [ "$jobs" -gt 1 ] && runs_alone "$s"; then
			alone+=("$s")
		else
			run+=("$s")
		fi
	done
	[ ${#run[@]} -gt 0 ] || [ ${#alone[@]} -gt 0 ] || return 0
	say "$kv: initramfs"
	initrd=$("$here/mkinitramfs.sh" --kver "$kv" --modules-dir "$mdir" \
		${ko:+--module "$ko"} ${kt:+--ktgt "$kt"} --inject "$inject")
	[ ${#alone[@]} -eq 0 ] || echo "$initrd ${alone[*]}" >"$out/alone"
	[ ${#run[@]} -eq 0 ] || boot_collect "$kv" "$image" "$initrd" "$out" console "${run[@]}"
}

t_all=$(now)
if [ "$jobs" -le 1 ] || [ ${#targets[@]} -le 1 ]; then
	jobs=1
	for t in "${targets[@]}"; do
		IFS='|' read -r kv image mdir kb <<<"$t"
		t0=$(now)
		run_kernel "$kv" "$image" "$mdir" "$kb"
		say "$kv: $(($(now) - t0)) s in all"
	done
else
	# One VM per kernel at the same time (they mostly wait: timeouts, state
	# waits, TCG); each kernel's results are printed when all are done,
	# progress goes to stderr as it happens.
	pids=()
	for t in "${targets[@]}"; do
		IFS='|' read -r kv image mdir kb <<<"$t"
		mkdir -p "$top/build/vm/$kv"
		(
			t0=$(now)
			run_kernel "$kv" "$image" "$mdir" "$kb"
			say "$kv: $(($(now) - t0)) s in all"
		) >"$top/build/vm/$kv/results" &
		pids+=($!)
	done
	i=0
	for t in "${targets[@]}"; do
		IFS='|' read -r kv _ <<<"$t"
		rc=0
		wait "${pids[$i]}" || rc=$?
		i=$((i + 1))
		cat "$top/build/vm/$kv/results"
		grep -q '^FAIL ' "$top/build/vm/$kv/results" && failed=1
		# a step that stopped the kernel's run (set -e: the initramfs...)
		[ "$rc" = 0 ] || result FAIL "$kv/run" "its run stopped with status $rc before every scenario reported (progress above)"
	done
	say "kernels side by side: $(($(now) - t_all)) s"
	# Scenarios that measure speed, one boot each kernel, nothing else running
	# (make test's host tests run beside the suite: they hold this lock).
	if [ -n "${AOE_VM_QUIET_LOCK:-}" ] && [ -e "$AOE_VM_QUIET_LOCK" ]; then
		say "waiting for the host tests to end (${AOE_VM_QUIET_LOCK#"$top"/})"
		flock "$AOE_VM_QUIET_LOCK" true
	fi
	for t in "${targets[@]}"; do
		IFS='|' read -r kv image _ <<<"$t"
		[ -s "$top/build/vm/$kv/alone" ] || continue
		read -r initrd rest <"$top/build/vm/$kv/alone"
		t0=$(now)
		# shellcheck disable=SC2086 # the scenario names, split
		boot_collect "$kv" "$image" "$initrd" "$top/build/vm/$kv" console-alone $rest
		say "$kv: alone $(($(now) - t0)) s"
	done
fi
say "all kernels: $(($(now) - t_all)) s"
exit "$failed"
