#!/bin/bash
# needs: aoe.ko
# make bench, inside the VM (run by tests/vm/bench.sh, not part of the suite):
# the distribution's in-tree aoe, then aoekit, against the same vblade on a
# 256 MiB brd RAM disk, fio libaio O_DIRECT:
#   seqwrite  1 MiB, iodepth 8      seqread 1 MiB, iodepth 8
#   randread  4 KiB, iodepth 16
# at MTU 1500 and 9000, then sequential read at MTU 9000 with netem loss 1 %
# and 5 % on both directions. One line per run:
#   AOE-BENCH <driver> <mtu> <loss%> <test> <MB/s> <IOPS>
# and per MTU the completion latency of 4 KiB O_DIRECT writes at iodepth 1
# (in-tree, aoekit with aoe_zerocopy=1 and =0, switched at run time, the
# order alternating per round):
#   AOE-LAT <driver> <mtu> <test> <p50 us> <p99 us> <IOPS>
# Seconds per run: aoebench.secs=N on the kernel command line (default 10);
# rounds: aoebench.rounds=N (default 3; the host keeps each row's best).
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

secs=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^aoebench.secs=//p')
secs=${secs:-10}
rounds=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^aoebench.rounds=//p')
rounds=${rounds:-3}
disk=$(vm_ramdisk 256)
# Fill the disk once: never-written brd pages read faster than real ones.
pp dd if=/dev/zero of="$disk" bs=1M count=256 oflag=direct status=none

run_fio() { # driver mtu loss test rw bs qd
	local drv=$1 mtu=$2 loss=$3 t=$4 rw=$5 bs=$6 qd=$7 out dir
	case $rw in *write) dir="write" ;; *) dir="read" ;; esac
	out=$(timeout -k 5 $((secs + 60)) fio --name=b --filename=/dev/etherd/e1.2 --ioengine=libaio \
		--direct=1 --rw="$rw" --bs="$bs" --iodepth="$qd" --time_based --runtime="$secs" \
		--size=256M --eta=never --output-format=json 2>/dev/null |
		jq -r --arg d "$dir" '.jobs[0][$d] | "\(.bw_bytes / 1e6) \(.iops)"') || out="0 0"
	echo "AOE-BENCH $drv $mtu $loss $t $out"
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

# Both drivers back to back per MTU and round, so that a slow spell of the
# host hits both rows of a comparison alike.
for mtu in 1500 9000; do
	for round in $(seq "$rounds"); do for drv in intree aoekit; do
		log "$drv, MTU $mtu, round $round"
		vm_veth a0 b0 "$mtu"
		vm_vblade 1 2 b0 "$disk"
		if [ $drv = intree ]; then
			vm_load_intree_aoe aoe_iflist=a0
			pp "$AOETOOLS/aoe-discover"
		else
			vm_load_aoe aoe_iflist=a0
		fi
		vm_aoe_up e1.2 20
		log "payload $(vm_sysfs e1.2 payload)"
		run_fio $drv $mtu 0 seqwrite write 1M 8
		run_fio $drv $mtu 0 seqread read 1M 8
		run_fio $drv $mtu 0 randread randread 4k 16
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
		if [ $mtu = 9000 ]; then
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
		_vm_pids=()
		pp ip link del a0
		_vm_links=()
	done; done
done
log "bench done"
