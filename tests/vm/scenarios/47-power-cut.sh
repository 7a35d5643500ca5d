#!/bin/bash
# needs: aoe.ko
# timeout: 540
# Power cuts under a journaled file system (issue 13): does "acknowledged by
# fsync" mean durable?
#
#   a0 (aoe) <--veth--> b0 (aoe-fastd --volatile: a write cache lost on a cut)
#
# ext4 (default data=ordered) on e1.2; aoe-pcut (tests/tools) creates,
# replaces (write a temporary, fsync, rename), renames and unlinks small files,
# fsyncing file and directory, and logs each acknowledged step to /tmp (tmpfs,
# not on the aoe device). Each cycle: the workload starts; after a random
# delay (0.2-1.7 s, seeded: PCUT-SEED) the target's power goes off (unflushed sectors
# dropped, target silent) and the workload is SIGKILLed; the initiator forgets
# everything (aoe_deadsecs=2 fails the pending I/O, umount, rmmod: no page
# cache or retransmission can write the old state into the "rebooted" target);
# power on, load, discover, mount (journal replay), aoe-pcut check (every
# acknowledged file intact under its name, only the interrupted step may be
# either done or not), umount, `e2fsck -fn` (after the replay nothing may be
# left to fix: "fsck clean"). Mount, check or fsck failing fails the cycle.
# Three configurations in one boot:
# - aoekit, default aoe_flush: 8 cuts (run.sh --cuts N: aoetest.cuts=N),
#   every one must pass; the module's
#   flushes answered equal the FLUSH commands aoe-fastd served (skipped, with
#   a log line, when aoe-stat has no flush counters)
# - aoekit, aoe_flush=never (parameter left out when the module does not have
#   it: such a module never flushes): must FAIL within 5 cuts
# - the in-tree aoe (no flush support): must FAIL within 5 cuts
# The scenario passes only when the first passes and the other two are seen
# failing (the test proves it can fail). PCUT-TABLE lines: the results.
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

dev=/dev/etherd/e1.2
mnt=/tmp/pcut-mnt
log=/tmp/pcut.log
dead=2			# aoe_deadsecs: pending I/O fails that long after the cut
# cuts for the configuration that must pass (run.sh --cuts N)
ncuts=$(vm_cmdline_num cuts 8)
nfail=5			# at most this many for the ones that must fail
seed=$(($(date +%s) % 100000))
RANDOM=$seed
echo "PCUT-SEED $seed (cut delays: RANDOM seeded with it)"
mkdir -p $mnt
row_default="" row_never="" row_intree="" failed_default="" failed_never="" failed_intree=""
# shellcheck disable=SC2154
trap '_rc=$?; { umount -l $mnt 2>/dev/null || true; }; (exit $_rc); _vm_cleanup' EXIT
pp modprobe ext4

# fastd_flushes: FLUSH commands aoe-fastd served so far.
fastd_flushes() { vm_fastd_ctl status >/dev/null; vm_fastd_counter flushes; }

# mod_flushes NAME: a flush counter of e1.2 from aoe-stat --json ("none"
# when the module has no such counter).
mod_flushes() {
	aoe-stat --json >/tmp/stat.json || die "aoe-stat --json failed"
	jq -e '[.targets[]? | select(.device == "e1.2")] | length == 1' /tmp/stat.json >/dev/null ||
		die "aoe-stat --json does not list e1.2 after the cut"
	jq -r --arg c "flushes_$1" '[.targets[] | select(.device == "e1.2") | .counters[$c]][0] // "none"' /tmp/stat.json
}

# load CONFIG: the driver, e1.2 up.
load() {
	case $1 in
	default) vm_load_aoe aoe_iflist=a0 aoe_deadsecs=$dead ;;
	never)
		if modinfo -F parm "$AOE_KO" | grepq '^aoe_flush:'; then
			vm_load_aoe aoe_iflist=a0 aoe_deadsecs=$dead aoe_flush=never
			[ "$(cat /sys/module/aoe/parameters/aoe_flush)" = never ] ||
				die "aoe_flush '$(cat /sys/module/aoe/parameters/aoe_flush)', expected never"
		else
			[ -n "${never_logged:-}" ] || log "aoe.ko has no aoe_flush parameter: loaded without it (it sends no FLUSH at all)"
			never_logged=1
			vm_load_aoe aoe_iflist=a0 aoe_deadsecs=$dead
		fi
		;;
	intree)
		vm_load_intree_aoe aoe_iflist=a0 aoe_deadsecs=$dead
		pp "$AOETOOLS/aoe-discover"
		;;
	esac
	vm_aoe_up e1.2 20
}

# run_config CONFIG MAX_CUTS: a fresh target and file system, then up to
# MAX_CUTS cycles; stops at the first failed cycle. Sets row_CONFIG.
run_config() {
	local cfg=$1 max=$2 n=0 acked=0 clean=0 unclean=0 mfail=0 intact=0 lost=0
	local failed=0 why="" counters=n/a t0 delay wl rc out f0 f1 m s

	log "=== $cfg: up to $max cuts"
	t0=$(vm_ms)
	vm_veth a0 b0 9000
	vm_fastd -i b0 -s 32M --volatile
	f0=$(fastd_flushes)
	load "$cfg"
	pp mke2fs -q -F -t ext4 -N 2048 -E lazy_itable_init=0,lazy_journal_init=0 $dev
	# the fresh file system is durable whatever the driver does
	vm_fastd_ctl flush
	pp timeout 60 mount -t ext4 $dev $mnt
	while [ $n -lt "$max" ]; do
		n=$((n + 1))
		delay=$((200 + RANDOM % 1500))
		# The cycle's starting point: made durable by the test, not the driver.
		pp rm -rf $mnt/w
		pp mkdir $mnt/w
		pp timeout 60 sync
		vm_fastd_ctl flush
		rm -f $log
		log "$cfg cut $n: workload (seed $((seed * 100 + n))), power off after $delay ms"
		aoe-pcut run $mnt/w $log $((seed * 100 + n)) 60 2>/tmp/pcut.err &
		wl=$!
		_vm_pids+=("$wl")
		sleep "$((delay / 1000)).$(printf '%03d' $((delay % 1000)))"
		# Power off and kill the workload at the same moment.
		echo off >/tmp/fastd.ctl
		kill -KILL $wl 2>/dev/null || true
		vm_wait_for "grep -q '^aoe-fastd: power off' /tmp/fastd.out" 10 || die "aoe-fastd did not power off"
		grep '^aoe-fastd: power off' /tmp/fastd.out | tail -n 1
		# Pending I/O fails after aoe_deadsecs; then the workload is gone.
		vm_wait_for "! kill -0 $wl" $((dead + 30)) || die "$cfg cut $n: the workload still runs $((dead + 30)) s after the cut"
		rc=0
		wait $wl || rc=$?
		[ $rc = 137 ] || die "$cfg cut $n: the workload ended with status $rc before the cut: $(cat /tmp/pcut.err)"
		s=$(grep -c '^A ' $log || true)
		acked=$((acked + s))
		log "$cfg cut $n: $s steps acknowledged before the cut"
		f1=$(fastd_flushes)
		if [ "$cfg" != intree ]; then
			m=$(mod_flushes answered)
			if [ "$m" = none ]; then
				[ "$counters" != n/a ] || log "aoe-stat has no flush counters (flushes_answered): flush counter check skipped"
				counters=absent
			else
				log "$cfg cut $n: module flushes sent $(mod_flushes sent) answered $m failed $(mod_flushes failed); aoe-fastd served $((f1 - f0))"
				[ "$m" = $((f1 - f0)) ] ||
					die "$cfg cut $n: the module counted $m flushes answered, aoe-fastd served $((f1 - f0))"
				counters=match
			fi
		fi
		# Forget everything: the file system, the page cache, the device.
		timeout 30 umount $mnt || pp timeout 10 umount -l $mnt
		vm_unload_aoe
		vm_fastd_ctl on
		f0=$(fastd_flushes)
		load "$cfg"
		# Journal replay, then the check.
		rc=0
		timeout 60 mount -t ext4 $dev $mnt 2>/tmp/mount.err || rc=$?
		if [ $rc = 0 ]; then
			rc=0
			out=$(timeout 60 aoe-pcut check $mnt/w $log) || rc=$?
			printf '%s\n' "$out" | tail -n 20
			[ $rc -le 1 ] || die "$cfg cut $n: aoe-pcut check could not run (status $rc)"
			s=$(printf '%s\n' "$out" | tail -n 1)
			[[ $s =~ intact\ ([0-9]+)\ lost\ ([0-9]+)\ wrong\ ([0-9]+)\ unexpected\ ([0-9]+) ]] ||
				die "$cfg cut $n: no summary from aoe-pcut check"
			intact=$((intact + BASH_REMATCH[1]))
			lost=$((lost + BASH_REMATCH[2] + BASH_REMATCH[3] + BASH_REMATCH[4]))
			[ $rc = 0 ] || { failed=1; why="acknowledged files lost"; }
			pp timeout 60 umount $mnt
		else
			log "$cfg cut $n: mount failed: $(cat /tmp/mount.err)"
			mfail=$((mfail + 1))
			failed=1
			why="mount failed"
		fi
		rc=0
		timeout 120 e2fsck -fn $dev >/tmp/fsck.out 2>&1 || rc=$?
		if [ $rc = 0 ]; then
			clean=$((clean + 1))
		else
			[ $rc != 124 ] || die "$cfg cut $n: e2fsck -fn timed out"
			unclean=$((unclean + 1))
			head -n 30 /tmp/fsck.out
			failed=1
			why="${why:+$why, }fsck unclean (e2fsck -fn status $rc)"
		fi
		if [ $failed = 1 ]; then
			log "$cfg cut $n: FAILED: $why"
			break
		fi
		log "$cfg cut $n: intact, fsck clean"
		pp timeout 60 mount -t ext4 $dev $mnt
	done
	if grep -q " $mnt " /proc/mounts; then pp timeout 60 umount $mnt; fi
	vm_unload_aoe
	vm_fastd_stop
	_vm_pids=()
	pp ip link del a0
	_vm_links=()
	printf -v "row_$cfg" '%-8s %4s %6s %5s %7s %6s %6s %-9s %s' "$cfg" $n $acked $clean $unclean \
		$intact $lost "$counters" "${why:-intact, fsck clean} ($((($(vm_ms) - t0) / 1000)) s)"
	printf -v "failed_$cfg" '%s' $failed
}

run_config default $ncuts
run_config never $nfail
run_config intree $nfail

echo "PCUT-TABLE config   cuts  acked clean unclean intact   lost counters  result"
echo "PCUT-TABLE $row_default"
echo "PCUT-TABLE $row_never"
echo "PCUT-TABLE $row_intree"
bad=""
[ "$failed_default" = 0 ] || bad="aoekit (default aoe_flush) lost acknowledged data or left the file system unclean"
[ "$failed_never" = 1 ] || bad="${bad:+$bad; }aoe_flush=never survived $nfail cuts: the test cannot show a missing flush"
[ "$failed_intree" = 1 ] || bad="${bad:+$bad; }the in-tree driver survived $nfail cuts: the test cannot show a missing flush"
[ -z "$bad" ] || die "$bad"
log "aoekit survived $ncuts power cuts; aoe_flush=never and the in-tree driver were caught losing data"
