#!/bin/bash
# needs: aoe.ko
# make bench, inside the VM (run by tests/vm/bench.sh, not part of the suite):
# the distribution's in-tree aoe and aoekit, each against vblade on a 256 MiB
# brd RAM disk and against aoe-fastd (tests/tools, its own 256 MiB RAM disk,
# pages allocated up front, bufcnt 256), fio libaio O_DIRECT:
#   seqwrite  1 MiB, iodepth 8      seqread 1 MiB, iodepth 8
#   randread  4 KiB, iodepth 32
# at MTU 1500 and 9000, then sequential read at MTU 9000 with netem loss 1 %
# and 5 % on both directions ("loss"), then 1 MiB sequential reads at
# iodepth 8 in setups of their own:
#   multi4    4 targets e1.2-e1.5 on one link, 64 MiB each (vblade: 4
#             processes on 4 regions of the brd disk; aoe-fastd: 4 processes,
#             a RAM disk each), one fio job per target at once; beside it
#             the same job on e1.2 alone (row multi1)
#   paths2    e1.2 served on two links a0 <-> b0 and a1 <-> b1 (vblade: one
#             per link on the same disk; aoe-fastd: one process on both), the
#             driver loaded for a0 and a1; beside it loaded for a0 alone
#             (row paths1)
# One line per run:
#   AOE-BENCH <driver> <mtu> <loss%> <test> <MB/s> <IOPS> <target> <target CPU %> <VM CPU %> <target busy %> <VM CPU s/GB>
# (target CPU: the target processes' user+system time over the run, in % of
# one CPU, which includes softirq work done in their context, such as the
# initiator's receive path when it sends on the veth; VM CPU: busy share of
# both vCPUs from /proc/stat; target busy: aoe-fastd only (else "-"), the
# wall time its workers spent serving rather than waiting for requests,
# summed over its processes; VM CPU s/GB: busy seconds of both vCPUs from
# /proc/stat around the run per 10^9 bytes fio moved, "-" when none.)
# Peers (aoebench.peers=nvmet,nbd; none: no peers) run the same seqwrite,
# seqread, randread, lat and loss rows on the same brd disk over the same
# veth pair at the same MTU, the initiator's end a0 (10.77.0.1) in network
# namespace "ini" so that TCP crosses the veth rather than loopback:
#   nvme-tcp  the kernel's NVMe/TCP host against nvmet-tcp (10.77.0.2:4420,
#             subsystem "bench", the brd disk as namespace 1), target "nvmet"
#   nbd       the kernel's nbd client (nbd-client, 2 connections) against
#             nbd-server serving the brd disk, target "nbd-server"
# Their target CPU is nbd-server's (nvmet works in kernel threads: 0).
# aoebench.profile=1 (make bench --profile): every fio run under perf
# record (cpu-clock, all CPUs: TCG has no PMU), its flat profile after it:
#   AOE-PROF <driver> <mtu> <loss%> <test> <target> <share %> <dso> <symbol>
# (the top entries above 0.5 %; the runs' numbers are perturbed by perf),
# and the call chains into each symbol above 3 % but the idle loop:
#   AOE-CALL <driver> <mtu> <loss%> <test> <target> | <perf's call graph line>
# Kernel command line: aoebench.secs=N (default 10), aoebench.rounds=N
# (default 3; the host keeps each row's best), aoebench.targets=vblade,fastd
# (fastd-wN: aoe-fastd with N worker threads; ktgt: the in-kernel aoe_ktgt),
# aoebench.drivers=intree,aoekit (aoekit+P=V[+P=V]: aoekit loaded with those
# module parameters, e.g. aoekit+aoe_maxout=256), aoebench.mtus=1500,9000,
# aoebench.tests=seqwrite,seqread,randread,loss,lat,multi4,paths2 (defaults: all).
# lat: per MTU, against the first target (and each peer), the completion
# latency of 4 KiB O_DIRECT random reads (lat4kr) and writes (lat4kw) at
# iodepth 1 (writes from aoekit with aoe_zerocopy=1 and =0, switched at run
# time, the order alternating per round):
#   AOE-LAT <driver> <mtu> <test> <p50 us> <p99 us> <IOPS>
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

karg() { tr ' ' '\n' </proc/cmdline | sed -n "s/^aoebench.$1=//p" | tr ',' ' '; }
secs=$(karg secs)
secs=${secs:-10}
rounds=$(karg rounds)
rounds=${rounds:-3}
targets=$(karg targets)
targets=${targets:-vblade fastd}
drivers=$(karg drivers)
drivers=${drivers:-intree aoekit}
mtus=$(karg mtus)
mtus=${mtus:-1500 9000}
tests=$(karg tests)
tests=${tests:-seqwrite seqread randread loss lat multi4 paths2}
profile=$(karg profile)
peers=$(karg peers)
peers=${peers:-nvmet nbd}
[ "$peers" != none ] || peers=""
# aoebench.ktgt_params=P=V[,P=V]: aoe_ktgt's parameters (make bench --ktgt-params)
export VM_KTGT_PARAMS
VM_KTGT_PARAMS=$(karg ktgt_params)
# aoebench.target_cpus=N[,N] (make bench --target-cpus): the target side on
# those vCPUs, as if it were another machine: RPS on every target link (b0,
# b1) steers what it receives there, target processes are pinned there, fio
# runs on the other vCPUs (fio_cpus). The initiator's receive path follows
# (the target answers from those CPUs), as a NIC interrupt away from the
# application's CPU would have it.
target_cpus=$(karg target_cpus)
rps_mask=0
fio_cpus=()
if [ -n "$target_cpus" ]; then
	ncpu=$(nproc --all)
	for c in $target_cpus; do
		if ! [[ $c =~ ^[0-9]+$ ]] || [ "$c" -ge "$ncpu" ]; then
			die "aoebench.target_cpus: no vCPU $c (the VM has $ncpu)"
		fi
		rps_mask=$((rps_mask | 1 << c))
	done
	for ((c = 0; c < ncpu; c++)); do
		[ $((rps_mask >> c & 1)) = 1 ] || fio_cpus+=("$c")
	done
	[ ${#fio_cpus[@]} -gt 0 ] || die "aoebench.target_cpus: every vCPU is the target's; leave one for fio"
	log "target side on vCPUs $target_cpus (RPS mask $(printf %x $rps_mask)), fio on ${fio_cpus[*]}"
fi
# fio_pin: fio's --cpus_allowed (nothing without aoebench.target_cpus)
fio_pin() { [ ${#fio_cpus[@]} -eq 0 ] || echo "--cpus_allowed=$(IFS=,; echo "${fio_cpus[*]}")"; }
# target_side_pin: RPS on every target link and the target processes
# ($tpids) on the target's vCPUs (nothing without aoebench.target_cpus)
target_side_pin() {
	local l p
	[ "$rps_mask" != 0 ] || return 0
	for l in /sys/class/net/b[0-9]*; do
		[ -e "$l" ] || continue
		printf %x "$rps_mask" >"$l/queues/rx-0/rps_cpus"
	done
	for p in "${tpids[@]}"; do
		pp taskset -a -p -c "$(tr ' ' , <<<"$target_cpus")" "$p" >/dev/null
	done
}
want() { [[ " $tests " == *" $1 "* ]]; }
if [ "$profile" = 1 ]; then
	command -v perf >/dev/null || die "aoebench.profile=1: no perf in the image (mkinitramfs.sh --with-perf)"
	echo 0 >/proc/sys/kernel/kptr_restrict
	echo -1 >/proc/sys/kernel/perf_event_paranoid
fi
disk=$(vm_ramdisk 256)
# Fill the disk once: never-written brd pages read faster than real ones.
pp dd if=/dev/zero of="$disk" bs=1M count=256 oflag=direct status=none

# CPU ticks (user+system) of the target processes ($tpids); busy and total
# ticks of the VM.
proc_ticks() {
	local p t=0
	for p in "${tpids[@]}"; do
		t=$((t + $(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null || echo 0)))
	done
	echo $t
}
vm_ticks() { awk '/^cpu / { b = $2 + $3 + $4 + $7 + $8; print b, b + $5 + $6 }' /proc/stat; }
# "LINK BYTES" received, one line per initiator link (a0, a1)
links_rx() {
	local l
	for l in /sys/class/net/a[0-9]*; do
		[ -e "$l" ] || continue		# a peer's a0 is in netns ini
		echo "${l##*/} $(cat "$l/statistics/rx_bytes")"
	done
}

# aoe-fastd's busy_ms counters, summed over its instances ($ftags; SIGUSR2
# prints the counter line); "-" for vblade.
fastd_busy() {
	local i n sum=0 f
	[ ${#ftags[@]} -gt 0 ] || { echo -; return; }
	for i in "${!ftags[@]}"; do
		f=/tmp/${ftags[i]}.out
		n=$(grep -c '^aoe-fastd: reads' "$f" || true)
		kill -USR2 "${tpids[i]}"
		vm_wait_for "[ \$(grep -c '^aoe-fastd: reads' $f) -gt $n ]" 5 >/dev/null 2>&1 || { echo -; return; }
		sum=$((sum + $(FASTD_TAG=${ftags[i]} vm_fastd_counter busy_ms)))
	done
	echo $sum
}

# Bytes both ways on the target's end of link b0 (a peer's traffic must
# cross it).
b0_bytes() {
	echo $(($(cat /sys/class/net/b0/statistics/rx_bytes) + $(cat /sys/class/net/b0/statistics/tx_bytes)))
}

# dev_path DEV: /dev/etherd/DEV for an AoE name (e1.N), DEV for a /dev path
dev_path() { if [[ $1 == /* ]]; then echo "$1"; else echo "/dev/etherd/$1"; fi; }

# run_fio driver mtu loss test rw bs qd [size device...]: devices e1.N
# (/dev/etherd) or /dev paths; default 256M on $dev (e1.2, or a peer's disk)
dev=e1.2
run_fio() {
	local drv=$1 mtu=$2 loss=$3 t=$4 rw=$5 bs=$6 qd=$7 size=${8:-256M} out dir p0 p1 v0 v1 hz b0 b1 busy d
	local devs=("${@:9}") jobs=() r0 r1 n0 n1 pf
	[ ${#devs[@]} -gt 0 ] || devs=("$dev")
	for d in "${devs[@]}"; do
		d=$(dev_path "$d")
		# fio would write a regular file in /dev
		[ -b "$d" ] || die "$drv: $d is not a block device"
		jobs+=(--name="b-${d##*/}" --filename="$d")
	done
	case $rw in *write) dir="write" ;; *) dir="read" ;; esac
	b0=$(fastd_busy)
	p0=$(proc_ticks)
	v0=$(vm_ticks)
	r0=$(links_rx)
	n0=$(b0_bytes)
	if [ "$profile" = 1 ]; then
		perf record -q -g -e cpu-clock -a -F 999 -o /tmp/perf.data -- sleep "$secs" >/dev/null 2>&1 &
		pf=$!
	fi
	# one job per device, reported as one (group_reporting: MB/s and IOPS summed)
	# shellcheck disable=SC2046 # fio_pin: no word or one
	out=$(timeout -k 5 $((secs + 60)) fio $(fio_pin) --ioengine=libaio --direct=1 --rw="$rw" --bs="$bs" \
		--iodepth="$qd" --time_based --runtime="$secs" --size="$size" --eta=never \
		--group_reporting --output-format=json "${jobs[@]}" 2>/dev/null |
		jq -r --arg d "$dir" '.jobs[0][$d] | "\(.bw_bytes / 1e6) \(.iops) \(.io_bytes)"') || out="0 0 0"
	p1=$(proc_ticks)
	v1=$(vm_ticks)
	r1=$(links_rx)
	n1=$(b0_bytes)
	if [ "$profile" = 1 ]; then
		wait "$pf" || true
		perf report -i /tmp/perf.data --stdio --no-children --sort dso,sym --percent-limit 0.5 2>/dev/null |
			awk -v p="AOE-PROF $drv $mtu $loss $t $target" '/^ +[0-9.]+%/ { sub(/%/, "", $1); s = $1; $1 = ""; print p, s, $0 }' |
			head -n 25 || true
		perf report -i /tmp/perf.data --stdio --no-children --sort sym --percent-limit 3 \
			-g graph,1,callee --max-stack 14 2>/dev/null |
			awk -v p="AOE-CALL $drv $mtu $loss $t $target |" '
				/^ +[0-9.]+%/ { skip = /native_safe_halt|default_idle/ }
				/^#/ || /^$/ || skip { next }
				{ print p, $0 }' | head -n 400 || true
	fi
	# a peer over loopback instead of the veth would be a row about nothing
	[ -z "$peer" ] || [ "${out##* }" = 0 ] || [ $((n1 - n0)) -ge $((${out##* } * 9 / 10)) ] ||
		die "$drv: $((n1 - n0)) bytes crossed b0 for ${out##* } bytes of I/O: not over the veth"
	log "MB received per link: $(printf '%s\n%s\n' "$r0" "$r1" |
		awk '{ if ($1 in a) printf "%s %.0f ", $1, ($2 - a[$1]) / 1e6; else a[$1] = $2 }')"
	b1=$(fastd_busy)
	busy=-
	[ "$b0" = - ] || [ "$b1" = - ] || busy=$(((b1 - b0) / (10 * secs)))
	hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
	# fio's runtime, not the wall time around it: close enough for a share;
	# CPU per GB: the VM's busy time around the run over the bytes fio moved
	echo "AOE-BENCH $drv $mtu $loss $t ${out% *} $target $(awk -v a="$p0" -v b="$p1" -v s="$secs" -v hz="$hz" \
		'BEGIN { printf "%.0f", 100 * (b - a) / hz / s }') $(echo "$v0 $v1" |
		awk '{ if ($4 > $2) printf "%.0f", 100 * ($3 - $1) / ($4 - $2); else print 0 }') $busy $(echo "$v0 $v1 ${out##* }" |
		awk -v hz="$hz" '{ if ($5 > 0) printf "%.2f", ($3 - $1) / hz / ($5 / 1e9); else print "-" }')"
}

run_lat() { # driver mtu read|write: qd1 4 KiB O_DIRECT random I/O on $dev
	local drv=$1 mtu=$2 dir=$3 out d
	d=$(dev_path "$dev")
	# shellcheck disable=SC2046 # fio_pin: no word or one
	# lat_ns (submission to completion), not clat_ns: a driver that ends
	# the request inside io_submit (the answer came back in the sending
	# softirq, as over a veth to aoe_ktgt) has its round trip in slat and
	# a clat of a few us
	out=$(timeout -k 5 $((secs + 60)) fio $(fio_pin) --name=l --filename="$d" --ioengine=libaio \
		--direct=1 --rw="rand$dir" --bs=4k --iodepth=1 --time_based --runtime="$secs" \
		--size=256M --lat_percentiles=1 --eta=never --output-format=json 2>/dev/null |
		jq -r --arg d "$dir" '.jobs[0][$d] | "\(.lat_ns.percentile["50.000000"] / 1000) \(.lat_ns.percentile["99.000000"] / 1000) \(.iops)"') ||
		out="0 0 0"
	echo "AOE-LAT $drv $mtu lat4k${dir:0:1} $out"
}

# targets_up NLINKS MB SLOT...: links a0 <-> b0 (.. aN-1 <-> bN-1) at $mtu and
# one $target per SLOT as e1.SLOT, served on every b link, each on its own
# MB MiB: vblade (one per link) on the next MB MiB of $disk, aoe-fastd (one
# process on all links) on a RAM disk of its own, aoe_ktgt (one module for
# every slot and link) on RAM disks of its own. Their PIDs in tpids,
# aoe-fastd's FASTD_TAGs in ftags.
tpids=()
ftags=()
targets_up() {
	local nl=$1 mb=$2 off=0 i s w ifc ifcs=() fargs=()
	shift 2
	for ((i = 0; i < nl; i++)); do
		vm_veth "a$i" "b$i" "$mtu"
		ifcs+=("b$i")
		fargs+=(-i "b$i")
	done
	if [ "$target" = ktgt ]; then
		# one module serves every slot on every link; no process (tgtCPU 0)
		vm_ktgt "$(IFS=,; echo "${ifcs[*]}")" "$mb" "$@"
		target_side_pin
		return 0
	fi
	for s in "$@"; do
		if [ "$target" = vblade ]; then
			for ifc in "${ifcs[@]}"; do
				vm_vblade 1 "$s" "$ifc" "$disk" -o $((off * 2048)) -l $((mb * 2048))
				tpids+=("${_vm_pids[-1]}")
			done
			off=$((off + mb))
		else
			# fastd-wN: N worker threads (default: aoe-fastd's)
			w=${target#fastd-w}
			[ "$w" != "$target" ] || w=""
			FASTD_TAG=fastd-e1.$s vm_fastd "${fargs[@]}" --slot "$s" -s "${mb}M" -b 256 --populate ${w:+-w "$w"}
			tpids+=("$FASTD_PID")
			ftags+=("fastd-e1.$s")
		fi
	done
	target_side_pin
}

# driver_up IFLIST SLOT...: $drv loaded for IFLIST (a0 or a0,a1, sorted),
# e1.SLOT up for every SLOT, with paths over every interface of IFLIST.
driver_up() {
	local ifl=$1 s
	shift
	if [ "$drv" = intree ]; then
		vm_load_intree_aoe aoe_iflist="$ifl"
		pp "$AOETOOLS/aoe-discover"
	else
		# aoebase: make bench --base's other build of aoekit;
		# aoekit+P=V[+P=V...]: aoekit loaded with those parameters
		local extra=()
		[[ $drv != aoekit+* ]] || IFS=+ read -r -a extra <<<"${drv#aoekit+}"
		if [ "$drv" = aoebase ]; then
			AOE_KO=/aoe/aoe-base.ko vm_load_aoe aoe_iflist="$ifl"
		else
			vm_load_aoe aoe_iflist="$ifl" "${extra[@]}"
		fi
		[[ $ifl != *,* ]] || pp aoe-discover >/dev/null || true
	fi
	for s in "$@"; do
		vm_aoe_up "e1.$s" 20
		vm_wait_for "[ \"\$(tr , '\\n' <'/sys/block/etherd!e1.$s/netif' | sort | tr '\\n' ,)\" = $ifl, ]" 20 ||
			die "e1.$s: paths over $(vm_sysfs "e1.$s" netif), not $ifl"
	done
	log "payload $(vm_sysfs "e1.$1" payload)"
}

# targets_down: unload the driver, stop the targets, delete the links.
targets_down() {
	local f l
	vm_unload_aoe
	if [ -e /sys/module/aoe_ktgt ]; then
		cat /sys/module/aoe_ktgt/parameters/stats
		vm_ktgt_stop
	fi
	kill "${_vm_pids[@]}" 2>/dev/null || true
	wait "${_vm_pids[@]}" 2>/dev/null || true
	for f in "${ftags[@]}"; do
		grep '^aoe-fastd: reads' "/tmp/$f.out" | tail -n 1 || true
	done
	_vm_pids=()
	tpids=()
	ftags=()
	for l in "${_vm_links[@]}"; do
		pp ip link del "$l"
	done
	_vm_links=()
}

# peer_up: peer $target (nvmet, nbd) serving $disk on b0 (10.77.0.2), its
# initiator connected from a0 (10.77.0.1) in netns ini; its disk in $dev,
# nbd-server's PIDs in tpids. peer_down undoes it.
NVMET=/sys/kernel/config/nvmet
# pids_of NAME: the PIDs of the processes called NAME, one a line
pids_of() {
	local p c
	for p in /proc/[0-9]*; do
		# (not c=$(cat ...): the ERR trap fires inside a substitution)
		if { read -r c <"$p/comm"; } 2>/dev/null && [ "$c" = "$1" ]; then
			echo "${p#/proc/}"
		fi
	done
	return 0
}
in_ini=(ip netns exec ini)
peer_up() {
	local i
	pp ip netns add ini
	_vm_netns+=(ini)
	pp ip link add b0 type veth peer name a0
	_vm_links+=(b0)
	pp ip link set a0 netns ini
	pp ip link set b0 mtu "$mtu"
	pp ip -n ini link set a0 mtu "$mtu"
	pp ip addr add 10.77.0.2/24 dev b0
	pp ip -n ini addr add 10.77.0.1/24 dev a0
	pp ip link set b0 up
	pp ip -n ini link set lo up
	pp ip -n ini link set a0 up
	case $target in
	nvmet)
		pp modprobe nvmet-tcp
		pp modprobe nvme-tcp
		pp mkdir "$NVMET/subsystems/bench"
		echo 1 >"$NVMET/subsystems/bench/attr_allow_any_host"
		pp mkdir "$NVMET/subsystems/bench/namespaces/1"
		echo -n "$disk" >"$NVMET/subsystems/bench/namespaces/1/device_path"
		echo 1 >"$NVMET/subsystems/bench/namespaces/1/enable"
		pp mkdir "$NVMET/ports/1"
		echo tcp >"$NVMET/ports/1/addr_trtype"
		echo ipv4 >"$NVMET/ports/1/addr_adrfam"
		echo 10.77.0.2 >"$NVMET/ports/1/addr_traddr"
		echo 4420 >"$NVMET/ports/1/addr_trsvcid"
		pp ln -s "$NVMET/subsystems/bench" "$NVMET/ports/1/subsystems/bench"
		pp "${in_ini[@]}" nvme connect -t tcp -a 10.77.0.2 -s 4420 -n bench \
			--hostnqn=nqn.2014-08.org.nvmexpress:uuid:6f1e2a8c-0000-4000-8000-00000000b001 \
			--hostid=6f1e2a8c-0000-4000-8000-000000000001
		# nvme0n1, not the multipath path device nvme0c0n1 (no /dev node)
		vm_wait_for "ls -d /sys/block/nvme[0-9]n[0-9] >/dev/null 2>&1" 20 || die "nvme-tcp: no namespace appeared"
		for dev in /sys/block/nvme[0-9]n[0-9]; do break; done
		dev=/dev/${dev##*/}
		vm_wait_for "test -b $dev" 10 || die "nvme-tcp: $dev is not a block device"
		;;
	nbd)
		pp modprobe nbd nbds_max=1
		cat >/tmp/nbd.conf <<-CONF
			[generic]
			listenaddr = 10.77.0.2
			port = 10809
			[bench]
			exportname = $disk
			flush = true
		CONF
		pp nbd-server -C /tmp/nbd.conf
		for i in 1 2 3 4 5 6 7 8 9 10; do
			"${in_ini[@]}" nbd-client 10.77.0.2 10809 /dev/nbd0 -N bench -b 4096 \
				-connections 2 -nonetlink >&2 && break
			sleep 1
		done
		vm_wait_for "[ \$(cat /sys/block/nbd0/size) -gt 0 ]" 20 || die "nbd-client: /dev/nbd0 did not come up"
		dev=/dev/nbd0
		pids_of nbd-server >/tmp/nbd.pids
		mapfile -t tpids </tmp/nbd.pids
		[ ${#tpids[@]} -gt 0 ] || die "nbd-server is not running"
		;;
	*) die "unknown peer '$target'" ;;
	esac
	target_side_pin
	log "$drv: $dev, $(($(cat "/sys/block/${dev#/dev/}/size") / 2048)) MiB"
}

peer_down() {
	case $target in
	nvmet)
		pp "${in_ini[@]}" nvme disconnect -n bench >&2
		pp rm "$NVMET/ports/1/subsystems/bench"
		pp rmdir "$NVMET/ports/1"
		echo 0 >"$NVMET/subsystems/bench/namespaces/1/enable"
		pp rmdir "$NVMET/subsystems/bench/namespaces/1"
		pp rmdir "$NVMET/subsystems/bench"
		;;
	nbd)
		pp nbd-client -d /dev/nbd0 >&2
		kill "${tpids[@]}" 2>/dev/null || true
		vm_wait_for "[ -z \"\$(pids_of nbd-server)\" ]" 10 || die "nbd-server did not exit"
		;;
	esac
	tpids=()
	dev=e1.2
	pp ip link del b0
	_vm_links=()
	pp ip netns del ini
	_vm_netns=()
}

# The rows a single target serves (seqwrite ... loss), driver and target up.
plain_rows() {
	local zc zcs loss
	want seqwrite && run_fio "$drv" "$mtu" 0 seqwrite write 1M 8
	want seqread && run_fio "$drv" "$mtu" 0 seqread read 1M 8
	want randread && run_fio "$drv" "$mtu" 0 randread randread 4k 32
	if want lat && { [ -n "$peer" ] || [ "$target" = "${targets%% *}" ]; }; then
		run_lat "$drv" "$mtu" read
		if [ "$drv" != aoekit ] && [ "$drv" != aoebase ]; then
			run_lat "$drv" "$mtu" write
		else
			zcs="1 0"
			[ $((round % 2)) = 1 ] || zcs="0 1"
			for zc in $zcs; do
				pp sh -c "echo $zc > /sys/module/aoe/parameters/aoe_zerocopy"
				run_lat "$drv-zc$zc" "$mtu" write
			done
			pp sh -c "echo 1 > /sys/module/aoe/parameters/aoe_zerocopy"
		fi
	fi
	if [ "$mtu" = 9000 ] && want loss; then
		for loss in 1 5; do
			pp "${ns_a[@]}" tc qdisc replace dev a0 root netem loss "$loss%"
			pp tc qdisc replace dev b0 root netem loss "$loss%"
			run_fio "$drv" "$mtu" "$loss" seqread read 1M 8
		done
		pp "${ns_a[@]}" tc qdisc del dev a0 root
		pp tc qdisc del dev b0 root
	fi
}

# Drivers and targets alternate within each MTU and round, so that a slow
# spell of the host hits all rows of a comparison alike.
for mtu in $mtus; do
	for round in $(seq "$rounds"); do for target in $targets $peers; do
	peer=""
	drvs=$drivers
	# the drivers' order reverses every other round: the first driver of a
	# round was measured 5-9 % ahead of the same module run second
	[ $((round % 2)) = 1 ] || drvs=$(tr ' ' '\n' <<<"$drvs" | tac | tr '\n' ' ')
	case $target in
	nvmet) peer=$target drvs=nvme-tcp ;;
	nbd) peer=$target drvs=nbd target=nbd-server ;;
	esac
	for drv in $drvs; do
		log "$drv against $target, MTU $mtu, round $round"
		plain=0
		if want seqwrite || want seqread || want randread || want lat || { [ "$mtu" = 9000 ] && want loss; }; then
			plain=1
		fi
		if [ -n "$peer" ]; then
			# the peers serve the single-target rows only
			[ "$plain" = 1 ] || continue
			ns_a=("${in_ini[@]}")
			target=$peer peer_up
			plain_rows
			target=$peer peer_down
			ns_a=()
			continue
		fi
		ns_a=()
		if [ "$plain" = 1 ]; then
			targets_up 1 256 2
			driver_up a0 2
			plain_rows
			targets_down
		fi
		# multi4: 4 targets e1.2-e1.5 of 64 MiB on one link; 1 MiB sequential
		# reads at iodepth 8 on e1.2 alone (multi1), then on all 4 at once
		if want multi4; then
			targets_up 1 64 2 3 4 5
			driver_up a0 2 3 4 5
			run_fio "$drv" "$mtu" 0 multi1 read 1M 8 64M e1.2
			run_fio "$drv" "$mtu" 0 multi4 read 1M 8 64M e1.2 e1.3 e1.4 e1.5
			targets_down
		fi
		# paths2: e1.2 served on two links; the driver on a0 alone (paths1),
		# then loaded again on a0 and a1
		if want paths2; then
			targets_up 2 256 2
			driver_up a0 2
			run_fio "$drv" "$mtu" 0 paths1 read 1M 8
			vm_unload_aoe
			driver_up a0,a1 2
			run_fio "$drv" "$mtu" 0 paths2 read 1M 8
			targets_down
		fi
	done; done; done
done
log "bench done"
