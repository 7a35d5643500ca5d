#!/usr/bin/env bash
# make test: the tools, aoe-ddt against fio (on a quiet machine), then the
# VM suite on every installed test kernel with the unit tests (ASan/UBSan,
# ctest) and the other host tests beside it, then root on AoE. Ends with
# one line "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."

passed=0
failed=0
start=$(date +%s)
log=build/test-logs
mkdir -p "$log"

count_unit() {
	# ctest: "100% tests passed, 0 tests failed out of 42"
	local line total bad
	line=$(grep -E 'tests passed, [0-9]+ tests? failed out of [0-9]+' "$1" | tail -n 1)
	if [ -z "$line" ]; then
		echo "unit: no ctest summary (build failed?)"
		failed=$((failed + 1))
		return
	fi
	bad=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$line")
	total=$(sed -E 's/.* failed out of ([0-9]+).*/\1/' <<<"$line")
	passed=$((passed + total - bad))
	failed=$((failed + bad))
}

# count_results LOG [WHAT]: add LOG's "PASS "/"FAIL " lines to the totals;
# with WHAT, a LOG with neither is a failure ("WHAT reported nothing").
count_results() {
	local p f
	p=$(grep -cE '^PASS ' "$1")
	f=$(grep -cE '^FAIL ' "$1")
	passed=$((passed + p))
	failed=$((failed + f))
	if [ -n "${2:-}" ] && [ "$p" = 0 ] && [ "$f" = 0 ]; then
		echo "$2 reported nothing"
		failed=$((failed + 1))
	fi
}

echo "== build (tools and test helpers; the VM suite builds the module for each kernel)"
if ! make --no-print-directory userland-test-tools >"$log/build.log" 2>&1; then
	cat "$log/build.log"
	echo "userland build failed"
	failed=$((failed + 1))
fi

echo "== host tests (aoe-ddt on files under build/)"
# With the fio comparison on a file (4k IOPS); bandwidth and the RAM disks
# are compared in VM scenario 21.
tests/host/ddt.sh 2>&1 | tee "$log/host-ddt.log"
count_results "$log/host-ddt.log"

# The unit tests and the other host tests run beside the VM suite, at nice
# 19: they are builds and quick checks (the ASan build and the Debian
# package build compile the tools a second and a third time, 3 + 5 min on 2
# cores), the VMs mostly wait and take the CPU first. Their output is printed
# after the VM suite's.
host_tests() {
	nice -n 19 make --no-print-directory unit >"$log/unit.log" 2>&1
	# contrib.sh --quick: its DKMS builds (make dkms-tree, every kernel) are
	# covered by deb.sh, which builds the packaged tree (the same make
	# dkms-tree) with DKMS for every kernel.
	local t name
	for t in cli prometheus man "contrib --quick" fastd bench-report deb; do
		name=${t%% *}
		# shellcheck disable=SC2086 # the options after the name, split
		nice -n 19 tests/host/$name.sh ${t#"$name"} >"$log/host-$name.log" 2>&1
	done
}
# They hold a lock until done: run.sh's "# alone:" scenarios (speed) wait for
# it (AOE_VM_QUIET_LOCK). Taken here, closed here once the job has it.
exec 9>"$log/host.lock"
flock 9
host_tests &
host_pid=$!
exec 9>&-
export AOE_VM_QUIET_LOCK="$log/host.lock"

echo "== VM tests"
# Both kernels side by side (run.sh --jobs 2); make test-full passes
# --every-kernel in AOE_VM_ARGS.
# shellcheck disable=SC2086 # options, split
tests/vm/run.sh ${AOE_VM_ARGS:-} 2>&1 | tee "$log/vm.log"
count_results "$log/vm.log" "VM suite"

wait "$host_pid" || true
echo "== unit tests (ASan/UBSan; beside the VM suite)"
cat "$log/unit.log"
count_unit "$log/unit.log"

echo "== host tests (the tools' command line, Prometheus output, man pages, contrib/, aoe-fastd, make bench's report and plot, Debian packages; beside the VM suite)"
for name in cli prometheus man contrib fastd bench-report deb; do
	cat "$log/host-$name.log"
	count_results "$log/host-$name.log" "tests/host/$name.sh"
done

echo "== root file system on AoE (mkinitramfs + two VMs per kernel)"
# After the VM suite: the module it built for each kernel is reused.
tests/vm/rootaoe.sh 2>&1 | tee "$log/rootaoe.log"
count_results "$log/rootaoe.log" "rootaoe.sh"

echo "make test took $(( $(date +%s) - start )) s"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
