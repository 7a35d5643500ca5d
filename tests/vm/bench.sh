#!/usr/bin/env bash
# make bench: the in-tree aoe against aoekit in one VM boot (qemu TCG, 2 vCPUs),
# each against vblade on a 256 MiB brd RAM disk and against aoe-fastd
# (tests/tools/aoe-fastd.c, a 256 MiB RAM disk), fio libaio O_DIRECT (see
# tests/vm/bench-guest.sh), then tests/bench/ddt-vs-fio.sh.
#
#   tests/vm/bench.sh [--kernel KVER] [--secs N] [--rounds N] [--no-ddt]
#                     [--targets LIST] [--drivers LIST] [--mtus LIST] [--tests LIST]
#                     [--base REF] [--peers LIST] [--profile]
#                     [--ktgt-params P=V[,P=V]] [--target-cpus LIST]
#
#   --kernel KVER  kernel to boot (default: the newest installed 6.1/6.12)
#   --secs N       seconds per fio run (default 10)
#   --rounds N     runs of every row, drivers alternating (default 3); the
#                  table shows each row's best (other work on the host only
#                  ever makes a run slower)
#   --no-ddt       skip tests/bench/ddt-vs-fio.sh
#   --targets LIST vblade,fastd,ktgt (default all three); fastd-wN:
#                  aoe-fastd with N worker threads (default: half the vCPUs);
#                  ktgt: aoe_ktgt (tests/ktgt), an in-kernel target that
#                  answers in the receive softirq, as nvmet-tcp serves from
#                  the kernel: the rows measure the initiator, not a
#                  userspace target sharing the 2 vCPUs
#   drivers run in one order on odd rounds and the reverse on even ones
#   --drivers LIST intree,aoekit (default both); aoekit+P=V[+P=V...]: aoekit
#                  loaded with those module parameters, a row of its own
#                  (e.g. aoekit,aoekit+aoe_maxout=256: an A/B in one boot)
#   --mtus LIST    1500,9000 (default both)
#   --tests LIST   seqwrite,seqread,randread,loss,lat,multi4,paths2 (default
#                  all; randread: 4 KiB at qd 32; loss: seqread at MTU 9000
#                  under 1 % and 5 % netem loss; lat: qd1 4 KiB random read
#                  and write latency against the first target (writes from
#                  aoekit with aoe_zerocopy=1 and =0) and each peer;
#                  multi4: 1 MiB reads at qd 8 on 4 targets at once on one
#                  link, and on 1 of them (row multi1); paths2: the same on
#                  one target over 2 links, and over 1 (row paths1))
#   --base REF     also the module built from git commit REF's kmod/ (driver
#                  aoebase, alternating with the others): an engine change
#                  measured against the commit before it in one VM boot,
#                  the ratio column aoekit/aoebase then; e.g. --base HEAD~1
#                  --drivers aoebase,aoekit
#   --peers LIST   nvmet,nbd (default both; none: no peers): NVMe/TCP (the
#                  kernel's host against nvmet-tcp) and NBD (the kernel's
#                  client against nbd-server) on the same brd disk over the
#                  same veth pair at the same MTU, the initiator's end in a
#                  network namespace of its own; the rows seqwrite to lat
#                  and loss
#   --profile      every run under perf in the VM (cpu-clock on all vCPUs;
#                  the numbers are perturbed): the top symbols of each row
#                  in build/bench/profile.txt, a summary after the table;
#                  the call chains into each symbol above 3 % (idle
#                  excluded) in build/bench/callers.txt
#   --ktgt-params P=V[,P=V]  aoe_ktgt's module parameters, e.g. zc_reads=1
#                  (reads answered from its RAM disk's pages, no copy)
#   --target-cpus LIST  the target side on those vCPUs (e.g. 1), as if it
#                  were another machine: RPS steers every frame the target
#                  links (b0, b1) receive there, target processes (vblade,
#                  aoe-fastd, nbd-server) are pinned there, and fio runs on
#                  the other vCPUs; the initiator's receive path then runs
#                  there too (the target answers from those CPUs), as a
#                  NIC's interrupt would land away from the application
#   e.g. the target comparison alone:
#     --mtus 9000 --tests seqread --rounds 2 --no-ddt
#
# Prints a table (driver rows, MB/s and IOPS, aoekit/in-tree ratio, the
# target's CPU use and the VM's, the VM's CPU seconds per GB moved), the
# fastd/vblade, multi4/multi1, paths2/paths1 and aoekit/peer ratios, and
# writes build/bench/bench.json (tests/bench/plot.sh draws it). Absolute
# numbers are TCG numbers: compare the rows.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
here="$top/tests/vm"
# shellcheck source=tests/vm/host-lib.sh
. "$here/host-lib.sh"

kv=""
secs=10
rounds=3
ddt=1
targets=vblade,fastd,ktgt
drivers=intree,aoekit
mtus=1500,9000
tests=seqwrite,seqread,randread,loss,lat,multi4,paths2
base=""
peers=nvmet,nbd
profile=0
ktgt_params=""
target_cpus=""
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kv=${2:?--kernel needs a kernel release}; shift 2 ;;
	--secs) secs=${2:?--secs needs a number}; shift 2 ;;
	--rounds) rounds=${2:?--rounds needs a number}; shift 2 ;;
	--no-ddt) ddt=0; shift ;;
	--targets) targets=${2:?--targets needs a list}; shift 2 ;;
	--drivers) drivers=${2:?--drivers needs a list}; shift 2 ;;
	--mtus) mtus=${2:?--mtus needs a list}; shift 2 ;;
	--tests) tests=${2:?--tests needs a list}; shift 2 ;;
	--base) base=${2:?--base needs a git commit}; shift 2 ;;
	--peers) peers=${2:?--peers needs a list}; shift 2 ;;
	--ktgt-params) ktgt_params=${2:?--ktgt-params needs P=V[,P=V]}; shift 2 ;;
	--target-cpus) target_cpus=${2:?--target-cpus needs a CPU list, e.g. 1}; shift 2 ;;
	--profile) profile=1; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
kv=${kv:-$(vm_host_kernels | tail -n 1)}
[ -n "$kv" ] || { echo "bench: no 6.1 or 6.12 kernel with headers installed: run 'make deps'" >&2; exit 1; }

inject=$(vm_host_inject)
ko=$(vm_host_kmod "$kv" "/lib/modules/$kv/build") || {
	echo "bench: the aoekit module does not build for $kv: $(vm_host_kmod_error "$kv")" >&2
	exit 1
}
ktgt=$(vm_host_ktgt "$kv" "/lib/modules/$kv/build") || {
	echo "bench: the test target aoe_ktgt does not build for $kv (build/vm/$kv/ktgt-build.log)" >&2
	exit 1
}
baseko=()
if [ -n "$base" ]; then
	git -C "$top" rev-parse --verify -q "$base^{commit}" >/dev/null ||
		{ echo "bench: --base $base: no such git commit" >&2; exit 2; }
	bko=$(vm_host_kmod_ref "$kv" "/lib/modules/$kv/build" "$base") || {
		echo "bench: the module of $base does not build for $kv (build/vm/$kv/kmod-base-build.log)" >&2
		exit 1
	}
	baseko=(--base-module "$bko")
	[[ ,$drivers, == *,aoebase,* ]] || drivers=aoebase,$drivers
elif [[ ,$drivers, == *,aoebase,* ]]; then
	echo "bench: driver aoebase needs --base REF" >&2
	exit 2
fi
withperf=()
[ "$profile" = 0 ] || withperf=(--with-perf)
initrd=$("$here/mkinitramfs.sh" --kver "$kv" --module "$ko" "${baseko[@]}" --ktgt "$ktgt" --inject "$inject" "${withperf[@]}")
out="$top/build/bench"
mkdir -p "$out"
# fio runs and driver loads per round: per MTU, target and driver, one run
# per test (2 loss runs at 9000, 2 runs of multi4 and of paths2); one load
# for the other tests, one for multi4, two for paths2
# (lat: up to 3 runs); the peers only the single-target rows
words() { tr ',' ' ' <<<"$1" | wc -w; }
nt=$(words "$targets")
nd=$(words "$drivers")
[ "$peers" != none ] || peers=""
np=$(words "$peers")
nplain=0 splain=0 nscale=0 sscale=0
for m in ${mtus//,/ }; do
	plain=0
	for t in ${tests//,/ }; do
		case $t in
		loss) [ "$m" = 9000 ] && nplain=$((nplain + 2)) && plain=1 ;;
		lat) nplain=$((nplain + 3)) plain=1 ;;
		multi4) nscale=$((nscale + 2)) sscale=$((sscale + 1)) ;;
		paths2) nscale=$((nscale + 2)) sscale=$((sscale + 2)) ;;
		*) nplain=$((nplain + 1)) plain=1 ;;
		esac
	done
	splain=$((splain + plain))
done
nruns=$((nplain * (nt * nd + np) + nscale * nt * nd))
nsetups=$((splain * (nt * nd + np) + sscale * nt * nd))
guest_timeout=$((rounds * (nruns * (secs + 10) + nsetups * 45) + 120))
vm_host_qemu "/boot/vmlinuz-$kv" "$initrd" \
	"aoetest.scenarios=bench-guest aoetest.timeout=$guest_timeout aoebench.secs=$secs aoebench.rounds=$rounds aoebench.targets=$targets aoebench.drivers=$drivers aoebench.mtus=$mtus aoebench.tests=$tests aoebench.peers=${peers:-none} aoebench.profile=$profile${ktgt_params:+ aoebench.ktgt_params=$ktgt_params}${target_cpus:+ aoebench.target_cpus=$target_cpus}"
echo "bench: booting the VM on $kv (about $((rounds * (nruns * (secs + 2) + nsetups * 10) / 60 + 2)) minutes) ..." >&2
# A TCG vCPU sometimes panics while booting (as in run.sh): that boot is
# tried once more; a panic ends the VM at once (qemu can hang after one).
for attempt in 1 2; do
	vm_host_boot "$out/console.raw" $((guest_timeout + 200))
	grep -aq 'AOE-BOOT' "$out/console.raw" && break
	[ "$attempt" = 2 ] || echo "bench: the VM did not reach /init; booting again" >&2
done
vm_host_clean_console <"$out/console.raw" >"$out/console.log"
grep -a '^AOE-BENCH ' "$out/console.log" >"$out/bench.txt" || true
grep -a '^AOE-LAT ' "$out/console.log" >"$out/lat.txt" || true
grep -a '^AOE-PROF ' "$out/console.log" >"$out/profile.txt" || true
grep -a '^AOE-CALL ' "$out/console.log" | sed 's/^AOE-CALL //' >"$out/callers.txt" || true
[ "$profile" = 0 ] || [ -s "$out/profile.txt" ] || {
	echo "bench: --profile: no profiles came back (see $out/console.log)" >&2
	exit 1
}
[ -s "$out/bench.txt" ] || {
	echo "bench: no results (see $out/console.log):" >&2
	grep -a 'AOE-RESULT\|FAILED' "$out/console.log" >&2 || true
	exit 1
}
# a guest that stopped early: its table shows the runs before, and make
# bench fails
guest_failed=$(grep -a 'AOE-RESULT' "$out/console.log" | grep -v PASS || true)
[ -z "$guest_failed" ] || echo "$guest_failed" >&2

setup=""
[ -z "$ktgt_params" ] || setup="aoe_ktgt $ktgt_params"
[ -z "$target_cpus" ] || setup="${setup:+$setup; }target side on vCPU(s) $target_cpus (RPS on b links, target processes pinned), fio on the others"
"$top/tests/bench/report.sh" --dir "$out" --kernel "$kv" --secs "$secs" --rounds "$rounds" ${base:+--base "$base ($(git -C "$top" rev-parse --short "$base"))"} \
	${setup:+--setup "$setup"}

if [ -n "$guest_failed" ]; then
	echo "bench: the VM's bench stopped early (above; $out/console.log): the table holds only the runs before" >&2
	exit 1
fi
if [ "$ddt" = 1 ]; then
	echo
	"$top/tests/bench/ddt-vs-fio.sh" --kernel "$kv"
fi
