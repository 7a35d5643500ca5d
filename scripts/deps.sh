#!/usr/bin/env bash
# Install every Debian package aoekit's build, tests, demo and benchmarks need.
# Idempotent: when everything is present it only checks and returns (about 1 s).
# Not root or not Debian: prints what to install and exits 0 (the build may still work).
set -euo pipefail

# Packages for the build, unit tests, VM tests and documentation checks.
PKGS=(
	build-essential cmake pkg-config kmod cpio gzip xz-utils
	libnl-3-dev libnl-genl-3-dev libnl-route-3-dev
	libncurses-dev libboost-log-dev libboost-program-options-dev
	libaio-dev libblkid-dev libkmod-dev libmount-dev doctest-dev libfmt-dev nlohmann-json3-dev
	qemu-system-x86 busybox-static bash iproute2 vblade aoetools fio strace
	python3-scapy e2fsprogs fdisk tmux ncurses-term locales jq rsync file shellcheck
	mandoc groff-base dkms prometheus bash-completion linux-source-6.1
	# VM scenario 60 (udev rules): systemd-udevd and udevadm
	udev
	# make deb (Debian packages) and tests/host/deb.sh; dh-dkms is its own
	# package in bookworm
	dpkg-dev debhelper dh-dkms fakeroot lintian
	# tests/vm/debug-kernel.sh: building a kernel from linux-source-6.1
	flex bison bc libelf-dev libssl-dev
	# make bench: the NVMe/TCP and NBD peers, and the plot
	nvme-cli nbd-server nbd-client gnuplot-nox
	# make bench --profile: perf in the VM
	linux-perf
)
# Kernels the VM suite boots: bookworm's 6.1 and bookworm-backports' 6.12.
KERNEL_SERIES=(6.1 6.12)

BPO=/etc/apt/sources.list.d/aoekit-bookworm-backports.sources

say() { printf 'deps: %s\n' "$*" >&2; }

if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null || ! [ -r /etc/debian_version ]; then
	say "not root on Debian: install these packages yourself:"
	printf '  %s\n' "${PKGS[@]}" "linux-image-amd64 linux-headers-amd64 (6.1 and bookworm-backports 6.12)"
	exit 0
fi

export DEBIAN_FRONTEND=noninteractive
# The VM suite boots its own initramfs: skip the distro initrd (minutes per kernel).
export INITRD=No
updated=0
apt_update() {
	[ "$updated" = 1 ] && return 0
	apt-get update -qq
	updated=1
}

if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	say "adding bookworm-backports ($BPO)"
	cat >"$BPO" <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	updated=0
	apt_update
fi

# The concrete image/headers packages behind linux-image-amd64 for each series,
# e.g. linux-image-6.1.0-57-amd64 and linux-image-6.12.95+deb12-amd64.
kernel_pkgs() {
	local series=$1 kind
	for kind in image headers; do
		apt-cache show "linux-$kind-amd64" 2>/dev/null |
			awk -v s="$series" '
				/^Version: / { ok = (index($2, s ".") == 1) }
				ok && /^Depends: / { sub(/^Depends: /, ""); sub(/ .*/, ""); print; exit }'
	done
}

# Fast path: everything is installed, including at least one kernel of each series.
missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep 'install ok installed' >/dev/null || missing+=("$p")
done
for s in "${KERNEL_SERIES[@]}"; do
	if ! ls -d /lib/modules/"$s".*-amd64/build >/dev/null 2>&1 ||
	   ! ls /boot/vmlinuz-"$s".*-amd64 >/dev/null 2>&1; then
		missing+=("kernel:$s")
	fi
done
if [ ${#missing[@]} -eq 0 ]; then
	say "all packages present"
	exit 0
fi

say "installing: ${missing[*]}"
apt_update
pkgs=()
for m in "${missing[@]}"; do
	case "$m" in
	kernel:*)
		k=$(kernel_pkgs "${m#kernel:}")
		if [ -z "$k" ]; then
			say "no Linux ${m#kernel:} packages found in the archive"
			exit 1
		fi
		# shellcheck disable=SC2206
		pkgs+=($k)
		;;
	*) pkgs+=("$m") ;;
	esac
done
apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
# tmux refuses to start without a UTF-8 locale; C.UTF-8 ships with libc.
say "done"
