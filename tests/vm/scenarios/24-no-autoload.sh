#!/bin/bash
# needs: aoe.ko
# Read-only commands never load the module; the in-tree driver is named.
#
# The kernel's module loader (/proc/sys/kernel/modprobe) is pointed at a
# wrapper that logs every request and answers aoekit's generic netlink alias
# (net-pf-16-proto-16-family-aoe) by loading /aoe/aoe.ko, as an installed
# aoekit would. With no aoe loaded:
#   - aoe-stat (text, --json, --prometheus), aoe-top -b (text and --json),
#     aoe-version, bash completion (TAB after aoe-flush) and the Prometheus
#     exporter's ExecStart request nothing and /sys/module/aoe never appears;
#   - aoe-discover (it changes state) does load it through the alias: the
#     wrapper works;
#   - with the module and no target, aoe-stat --json exits 0 with [].
# With the in-tree aoe loaded (no "aoe" family): aoe-stat, aoe-top -b and
# aoe-stat --json say "the in-tree aoe driver is loaded: rmmod aoe &&
# modprobe aoe from aoekit", exit 1 (aoe-stat --prometheus: aoe_up 0).
# shellcheck source=tests/vm/guest-lib.sh
. /aoe/tests/vm/guest-lib.sh

[ ! -e /sys/module/aoe ] || vm_unload_aoe
old_modprobe=$(cat /proc/sys/kernel/modprobe)
cat >/run/modprobe-wrap <<WRAP
#!/bin/sh
echo "\$*" >>/run/modprobe.log
case "\$*" in
*net-pf-16-proto-16-family-aoe*) exec /sbin/insmod $AOE_KO ;;
esac
exec $old_modprobe "\$@"
WRAP
chmod +x /run/modprobe-wrap
: >/run/modprobe.log
echo /run/modprobe-wrap >/proc/sys/kernel/modprobe
restore_modprobe() { echo "$old_modprobe" >/proc/sys/kernel/modprobe; }
trap 'rc=$?; restore_modprobe; (exit $rc); _vm_cleanup' EXIT

not_loaded() {  # not_loaded WHAT: no aoe appeared, nothing asked for it
	[ ! -e /sys/module/aoe ] || die "$1 loaded the aoe module"
	! grep -q 'family-aoe' /run/modprobe.log || die "$1 made the kernel request aoe: $(cat /run/modprobe.log)"
}
run_rc() {  # run_rc WANT OUT CMD...: run, keep stdout+stderr in OUT, check the status
	local want=$1 out=$2 rc=0
	shift 2
	printf '+ %s\n' "$*" >&2
	"$@" >"$out" 2>&1 || rc=$?
	cat "$out"
	[ "$rc" = "$want" ] || die "$* exited $rc, expected $want"
}

log "1. no aoe loaded: read-only commands load nothing"
run_rc 1 /tmp/s.txt aoe-stat
grep -q 'aoe module not loaded: run modprobe aoe' /tmp/s.txt || die "aoe-stat does not say to modprobe"
not_loaded aoe-stat
run_rc 1 /tmp/s.json aoe-stat --json
not_loaded "aoe-stat --json"
run_rc 0 /tmp/s.prom aoe-stat --prometheus
grep -qx 'aoe_up 0' /tmp/s.prom || die "no aoe_up 0"
not_loaded "aoe-stat --prometheus"
run_rc 0 /tmp/t.txt aoe-top -b -n 1
grep -q 'aoe module not loaded' /tmp/t.txt || die "aoe-top -b does not say the module is missing"
not_loaded "aoe-top -b"
run_rc 0 /tmp/t.json aoe-top -b --json -n 1
not_loaded "aoe-top -b --json"
aoe-version >/tmp/v.txt 2>&1 || true
not_loaded aoe-version
# TAB after "aoe-flush " lists the targets (aoe-stat --json), in a shell of
# its own (an interactive shell has no set -e).
bash --norc -c '. /aoe/contrib/bash-completion/aoekit
	COMP_WORDS=(aoe-flush "") COMP_CWORD=1 COMP_LINE="aoe-flush " COMP_POINT=10
	_aoekit aoe-flush "" aoe-flush
	echo "completions: ${COMPREPLY[*]}"' || die "the completion function failed"
not_loaded "bash completion"
# The Prometheus timer's service, as systemd would run it.
cmd=$(sed -n 's/^ExecStart=//p' /aoe/contrib/systemd/aoe-prometheus.service |
	sed 's|@PREFIX@/sbin|/aoe/bin|g; s/\$\$/$/g')
[ -n "$cmd" ] || die "no ExecStart in aoe-prometheus.service"
rm -rf /tmp/prom.d; mkdir -p /tmp/prom.d
DIR=/tmp/prom.d eval "$cmd" || die "the exporter's ExecStart failed"
grep -qx 'aoe_up 0' /tmp/prom.d/aoe.prom || die "exporter: no aoe_up 0"
not_loaded "the Prometheus exporter"

log "2. aoe-discover changes state: it may load the module (the wrapper works)"
aoe-discover >/tmp/d.txt 2>&1 || true
cat /tmp/d.txt
[ -e /sys/module/aoe ] || die "aoe-discover did not load the module through its alias: $(cat /run/modprobe.log)"
grep -q 'family-aoe' /run/modprobe.log || die "the module appeared without the alias request"
vm_wait_for "[ \"\$(cat /sys/module/aoe/initstate 2>/dev/null)\" = live ]" 5 || die "aoe never went live"
run_rc 0 /tmp/s2.json aoe-stat --json
jq -e '.targets == [] and (.module | type == "object")' /tmp/s2.json >/dev/null ||
	die "aoe-stat --json without targets is not an empty list"
run_rc 1 /tmp/s2.txt aoe-stat
vm_unload_aoe

log "3. the in-tree aoe is loaded: say so"
vm_load_intree_aoe
: >/run/modprobe.log
want='the in-tree aoe driver is loaded: rmmod aoe && modprobe aoe from aoekit'
run_rc 1 /tmp/i.txt aoe-stat
grep -qF "$want" /tmp/i.txt || die "aoe-stat does not name the in-tree driver"
run_rc 1 /tmp/i.json aoe-stat --json
grep -qF "$want" /tmp/i.json || die "aoe-stat --json does not name the in-tree driver"
run_rc 0 /tmp/i.prom aoe-stat --prometheus
grep -qx 'aoe_up 0' /tmp/i.prom || die "in-tree: no aoe_up 0"
run_rc 0 /tmp/it.txt aoe-top -b -n 1
grep -qF "$want" /tmp/it.txt || die "aoe-top -b does not name the in-tree driver"
! grep -q 'family-aoe' /run/modprobe.log || die "a read-only command asked for aoekit's family alias"
vm_unload_aoe
log "no autoload OK"
