#!/bin/bash
# needs: aoe.ko
# make bench, inside the VM (run by tests/vm/bench.sh, not part of the suite):
# the distribution's in-tree aoe and aoekit, each against vblade on a 256 MiB
# brd RAM disk and against aoe-fastd (tests/tools, its own 256 MiB RAM disk,
# pages allocated up front, bufcnt 256), fio libaio O_DIRECT:
#   seqwrite  1 MiB, iodepth 8      seqread 1 MiB, iodepth 8
#   randread  4 KiB, iodepth 16
# at MTU 1500 and 9000, then sequential read at MTU 9000 with netem loss 1 %
# and 5 % on both directions ("loss"). One line per run:
#   AOE-BENCH <driver> <mtu> <loss%> <test> <MB/s> <IOPS> <target> <target CPU %> <VM CPU %> <target busy %>
# (target CPU: the target process's user+system time over the run, in % of one
# CPU, which includes softirq work done in its context, such as the
# initiator's receive path when it sends on the veth; VM CPU: busy share of
# both vCPUs from /proc/stat; target busy: aoe-fastd only (else "-"), the
# wall time its worker spent serving rather than waiting for requests.)
# Kernel command line: aoebench.secs=N (default 10), aoebench.rounds=N
# (default 3; the host keeps each row's best), aoebench.targets=vblade,fastd
# (fastd-wN: aoe-fastd with N worker threads),
# aoebench.drivers=intree,aoekit, aoebench.mtus=1500,9000,
# aoebench.tests=seqwrite,seqread,randread,loss,lat (defaults: all).
# lat: per MTU, against the first target, the completion latency of 4 KiB
# O_DIRECT writes at iodepth 1 (in-tree, aoekit with aoe_zerocopy=1 and =0,
# switched at run time, the order alternating per round):
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
tests=${tests:-seqwrite seqread randread loss lat}
want() { [[ " $tests " == *" $1 "* ]]; }
disk=$(vm_ramdisk 256)
# Fill the disk once: never-written brd pages read faster than real ones.
pp dd if=/dev/zero of="$disk" bs=1M count=256 oflag=direct status=none

# CPU ticks (user+system) of process $1; busy and total ticks of the VM.
proc_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
vm_ticks() { awk '/^cpu / { b = $2 + $3 + $4 + $7 + $8; print b, b + $5 + $6 }' /proc/stat; }

# aoe-fastd's busy_ms counter (SIGUSR2 prints the counter line); "-" for vblade.
fastd_busy() {
	local n
	[[ $target == fastd* ]] || { echo -; return; }
	n=$(grep -c '^aoe-fastd: reads' /tmp/fastd.out || true)
	kill -USR2 "$tpid"
	vm_wait_for "[ \$(grep -c '^aoe-fastd: reads' /tmp/fastd.out) -gt $n ]" 5 >/dev/null 2>&1 || { echo -; return; }
	vm_fastd_counter busy_ms
}

run_fio() { # driver mtu loss test rw bs qd
	local drv=$1 mtu=$2 loss=$3 t=$4 rw=$5 bs=$6 qd=$7 out dir p0 p1 v0 v1 hz b0 b1 busy
	case $rw in *write) dir="write" ;; *) dir="read" ;; esac
	b0=$(fastd_busy)
	p0=$(proc_ticks "$tpid")
	v0=$(vm_ticks)
	out=$(timeout -k 5 $((secs + 60)) fio --name=b --filename=/dev/etherd/e1.2 --ioengine=libaio \
		--direct=1 --rw="$rw" --bs="$bs" --iodepth="$qd" --time_based --runtime="$secs" \
		--size=256M --eta=never --output-format=json 2>/dev/null |
		jq -r --arg d "$dir" '.jobs[0][$d] | "\(.bw_bytes / 1e6) \(.iops)"') || out="0 0"
	p1=$(proc_ticks "$tpid")
	v1=$(vm_ticks)
	b1=$(fastd_busy)
	busy=-
	[ "$b0" = - ] || [ "$b1" = - ] || busy=$(((b1 - b0) / (10 * secs)))
	hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
	# fio's runtime, not the wall time around it: close enough for a share
	echo "AOE-BENCH $drv $mtu $loss $t $out $target $(awk -v a="$p0" -v b="$p1" -v s="$secs" -v hz="$hz" \
		'BEGIN { printf "%.0f", 100 * (b - a) / hz / s }') $(echo "$v0 $v1" |
		awk '{ if ($4 > $2) printf "%.0f", 100 * ($3 - $1) / ($4 - $2); else print 0 }') $busy"
}

run_lat() { # driver mtu: qd1 4 KiB O_DIRECT random writes
	local drv=$1 mtu=$2 out
	out=$(timeout -k 5 $((secs + 60)) fio --name=l --filename=/dev/etherd/e1.2 --ioengine=libaio \
		--direct=1 --rw=randwrite --bs=4k --iodepth=1 --time_based --runtime="$secs" \
		--size=256M --eta=never --output-format=json 2>/dev/null |
		jq -r '.jobs[0].write | "\(.clat_ns.percentile["50.000000"] / 1000) \(.clat_ns.percentile["99.000000"] / 1000) \(.iops)"') ||
		out="0 0 0"
	echo "AOE-LAT $drv $mtu lat4kw $out"
}

# Drivers and targets alternate within each MTU and round, so that a slow
# spell of the host hits all rows of a comparison alike.
for mtu in $mtus; do
	for round in $(seq "$rounds"); do for target in $targets; do for drv in $drivers; do
		log "$drv against $target, MTU $mtu, round $round"
		vm_veth a0 b0 "$mtu"
		if [ "$target" = vblade ]; then
			vm_vblade 1 2 b0 "$disk"
			tpid=${_vm_pids[-1]}
		else
			# fastd-wN: N worker threads (default: aoe-fastd's)
			w=${target#fastd-w}
			[ "$w" != "$target" ] || w=""
			vm_fastd -i b0 -s 256M -b 256 --populate ${w:+-w "$w"}
			tpid=$FASTD_PID
		fi
		if [ $drv = intree ]; then
			vm_load_intree_aoe aoe_iflist=a0
			pp "$AOETOOLS/aoe-discover"
		else
			vm_load_aoe aoe_iflist=a0
		fi
		vm_aoe_up e1.2 20
		log "payload $(vm_sysfs e1.2 payload)"
		want seqwrite && run_fio $drv $mtu 0 seqwrite write 1M 8
		want seqread && run_fio $drv $mtu 0 seqread read 1M 8
		want randread && run_fio $drv $mtu 0 randread randread 4k 16
		if want lat && [ "$target" = "${targets%% *}" ]; then
			if [ $drv = intree ]; then
				run_lat intree "$mtu"
			else
				zcs="1 0"
				[ $((round % 2)) = 1 ] || zcs="0 1"
				for zc in $zcs; do
					pp sh -c "echo $zc > /sys/module/aoe/parameters/aoe_zerocopy"
					run_lat "aoekit-zc$zc" "$mtu"
				done
				pp sh -c "echo 1 > /sys/module/aoe/parameters/aoe_zerocopy"
			fi
		fi
		if [ $mtu = 9000 ] && want loss; then
			for loss in 1 5; do
				pp tc qdisc replace dev a0 root netem loss "$loss%"
				pp tc qdisc replace dev b0 root netem loss "$loss%"
				run_fio $drv $mtu $loss seqread read 1M 8
			done
			pp tc qdisc del dev a0 root
			pp tc qdisc del dev b0 root
		fi
		vm_unload_aoe
		kill "${_vm_pids[@]}" 2>/dev/null || true
		wait "${_vm_pids[@]}" 2>/dev/null || true
		[ "$target" = vblade ] || grep '^aoe-fastd: reads' /tmp/fastd.out | tail -n 1 || true
		_vm_pids=()
		pp ip link del a0
		_vm_links=()
	done; done; done
done
log "bench done"
