// SPDX-License-Identifier: GPL-2.0
/*
 * aoe-fastd: a fast AoE test target (tests/tools; `aoe-fastd --help`).
 *
 * Serves one disk as eSHELF.SLOT over AoE on one or more interfaces: a RAM
 * disk (default) or a file / block device (--file: O_DIRECT, reads and
 * writes of a batch submitted together with libaio). Speaks Query Config
 * (read, test, test prefix, set, force set), ATA READ/WRITE SECTORS 28-bit
 * (0x20/0x30) and EXT (0x24/0x34), WRITE FUA EXT (0x3D), FLUSH CACHE (0xE7)
 * and FLUSH CACHE EXT (0xEA), IDENTIFY DEVICE (0xEC); every other ATA command
 * is aborted. Every field from the wire is checked: a frame shorter than its
 * header or its write data is ignored (counted "bad"); a sector count of 0,
 * a transfer that does not fit the interface MTU or an LBA48 command in
 * --lba28 mode is aborted (error ABRT); an LBA range beyond the capacity gets
 * IDNF, as a disk answers.
 *
 * Design (so that the target is not what a benchmark measures):
 * - N worker threads (--workers, default: half the CPUs, at least one: on a
 *   test VM the initiator needs the rest), each with its own AF_PACKET socket
 *   per interface, joined in one PACKET_FANOUT group per interface (--fanout
 *   lb|hash|cpu, default lb: AoE requests are independent, so round-robin
 *   spreads even a single initiator's frames). Workers share nothing on the
 *   data path but the disk and, in volatile mode, a dirty bitmap updated
 *   with atomic operations (and a read-write lock taken once per batch that
 *   only a power cut takes for writing).
 * - Receive: an mmap'ed rx ring per socket, TPACKET_V2 (--ring v2, the
 *   default: one frame per slot, the reader woken per frame) or TPACKET_V3
 *   (--ring v3: variable-size frames packed in blocks, a block handed over
 *   when full or after --block-ms ms). AoE requests are small and the
 *   initiator waits for their answers, so a V3 block rarely fills and every
 *   request waits for the block timer: measured under qemu TCG with aoekit,
 *   4 KiB reads at queue depth 1 did 76 IOPS with V3 against 246 with V2
 *   (vblade 505), and 1 MiB reads at qd 8 were no faster with V3. V3 is for
 *   many initiators with deep queues, where blocks fill.
 *   Frames are served in place from the ring, which is released as soon as
 *   the batch's answers are built (they never point into it).
 * - Transmit: the answers of a batch (everything the ring held, up to 64) go
 *   out in one sendmmsg() per socket; a read answer is two iovecs, the
 *   36-byte header and a pointer straight into the RAM disk, so the kernel's
 *   copy into the skb is the only copy of read data (a TX ring would add
 *   one: its slots must hold the whole frame).
 * - Workers pinned with --cpus LIST (worker i on the i-th CPU, round robin).
 * - The main thread only handles signals (signalfd) and the control FIFO.
 *
 * Volatile write cache (--volatile): the RAM disk holds two images, the
 * durable one and the current one, and a bitmap of sectors written since
 * their last flush. Writes go to the current image and set their bits;
 * FLUSH CACHE (EXT) copies every dirty sector to the durable image; WRITE
 * FUA EXT writes both. A power cut (SIGUSR1 or "cut" on the control FIFO)
 * copies the durable image back over every dirty sector, under a lock that
 * excludes all workers, and the target goes on serving. IDENTIFY word 85
 * bit 5 (write cache enabled) is set only in this mode. Without --volatile
 * a cut changes nothing (a target with a non-volatile cache) but is counted.
 * "off" on the control FIFO is a cut after which the target stays silent
 * (every frame taken from the rings and ignored, counted "silent") until
 * "on", which serves again and announces the target as a booting one does:
 * an initiator cannot write into the "rebooted" disk what it still held when
 * the power went. The switch happens under the same lock, so no answer built
 * before "off" is sent after it and none is built while off.
 *
 * Knobs for tests: --delay-us (each answer sent at least that long after
 * its request was taken from the ring), --error-lba (ATA error on an LBA
 * range), --drop-every N (every Nth ATA request is ignored), --no-flush
 * (FLUSH CACHE (EXT) aborted although IDENTIFY claims it: counted as errors),
 * --reserved-for MAC (every ATA command from another source MAC, IDENTIFY
 * included, is answered with AoE error 6, "target reserved", as an r11
 * target reserved for MAC may; counted "refused"; Reserve/Release itself is
 * not spoken: vblade does that, but answers IDENTIFY whatever it holds).
 *
 * Counters: printed on SIGTERM/SIGINT (then exit 0), SIGUSR2 or "status" on
 * the control FIFO, as one line:
 *   aoe-fastd: reads N writes N fua N flushes N identify N config N cuts N
 *   errors N dropped N bad N tx_errors N sectors_read N sectors_written N
 *   dirty N cpu_ms N busy_ms N wakeups N silent N refused N
 * (reads/writes count ATA frames served without error; errors counts ATA
 * error answers; cpu_ms is user + system CPU time of the whole process;
 * busy_ms the wall time workers spent serving batches, summed over workers
 * (busy_ms / elapsed < workers: the target waited for requests); wakeups
 * how often a worker slept in poll() with nothing to do.)
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libaio.h>
#include <linux/filter.h>
#include <linux/fs.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#ifndef ETH_P_AOE
#define ETH_P_AOE 0x88a2
#endif
#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

#define PROG "aoe-fastd"
#define HDR 24			/* Ethernet + AoE common header */
#define ATA_HDR 36		/* ... + ATA argument */
#define CFG_HDR 32		/* ... + Query Config argument */
#define MAX_CFG 1024
#define MAX_IF 8
#define MAX_WORKERS 64
#define BATCH 64
#define MAX_SECT 255		/* sectors in one frame: an 8-bit count */

/* ATA status and error bits */
#define ST_DRDY 0x40
#define ST_ERR 0x01
#define ER_ABRT 0x04
#define ER_IDNF 0x10
#define ER_UNC 0x40

/* ---------------------------------------------------------------- options */
static struct {
	const char *ifnames[MAX_IF];
	int nif;
	unsigned int shelf, slot;
	uint64_t sectors;
	const char *file;
	bool lba28, volatile_cache, qdisc_bypass, populate, no_flush;
	unsigned int bufcnt, fwver, maxsect;
	int workers;
	int cpus[256], ncpus;
	int fanout;		/* PACKET_FANOUT_* */
	int ring_v3;
	unsigned int block_ms, ring_mb;
	unsigned long delay_us;
	uint64_t err_first, err_last;
	bool err_set, err_read, err_write;
	unsigned long drop_every;
	uint8_t resv_mac[6];
	bool resv_set;
	const char *control;
	const char *serial, *model;
	bool quiet;
} opt = {
	.shelf = 1, .slot = 2, .sectors = 128 * 2048, .bufcnt = 64, .fwver = 0x4019,
	.fanout = PACKET_FANOUT_LB, .ring_v3 = 0, .block_ms = 1, .ring_mb = 4,
	.serial = "FASTD0001", .model = "aoekit fast test target",
};

/* ---------------------------------------------------------------- state */
struct iface {
	char name[IFNAMSIZ];
	int index;
	uint8_t mac[6];
	volatile int mtu;
};

static struct iface ifs[MAX_IF];
static uint8_t *disk;		/* current image (RAM backend) */
static uint8_t *durable;	/* durable image (--volatile) */
static uint64_t *dirty;		/* one bit per sector (--volatile) */
static size_t dirty_words;
static int file_fd = -1;
static pthread_rwlock_t cut_lock;	/* writers (power cuts) preferred */
static pthread_mutex_t cfg_lock = PTHREAD_MUTEX_INITIALIZER;
static char cfg_str[MAX_CFG];
static size_t cfg_len;
static uint16_t ident[256];	/* IDENTIFY DEVICE, host order words */
static uint8_t ident_le[512];	/* ... as sent (little endian) */
static volatile int stop;
static unsigned long ata_seq;	/* for --drop-every */
static unsigned long n_cuts;
static int powered_off;		/* "off" .. "on": every frame ignored */

struct stats {
	unsigned long reads, writes, fua, flushes, identify, config, errors,
		      dropped, bad, tx_errors, sect_r, sect_w;
	unsigned long busy_us;	/* wall time spent serving (not waiting in poll) */
	unsigned long wakeups;	/* poll() calls that slept */
	unsigned long silent;	/* frames ignored while powered off */
	unsigned long refused;	/* ATA refused with AoE error 6 (--reserved-for) */
} __attribute__((aligned(64)));

#define STAT_ADD(w, f, v) __atomic_fetch_add(&(w)->st.f, (v), __ATOMIC_RELAXED)

/* One transmit slot: a response being built. */
struct txslot {
	/* Ethernet .. ATA header (+ padding), or a config answer with its string */
	uint8_t hdr[CFG_HDR + MAX_CFG + 32];
	struct iovec iov[2];
	uint8_t *buf;			/* file backend: aligned data buffer */
	int aio_status;			/* -1 none, else index into iocbs */
	struct timespec t_rx;
};

struct ring {
	int fd;
	int ifx;
	uint8_t *map;
	size_t map_len;
	unsigned int nblocks, block_size;	/* v3: blocks; v2: frames */
	unsigned int cur;
};

struct worker {
	int id;
	pthread_t thread;
	struct ring rings[MAX_IF];
	struct txslot tx[BATCH];
	struct mmsghdr msgs[BATCH];
	int ntx;
	int tx_ring;			/* ring index the pending tx batch belongs to */
	io_context_t aio;
	struct iocb iocbs[BATCH];
	struct iocb *iocbp[BATCH];
	int iocb_slot[BATCH];
	int naio;
	struct stats st;
};

static struct worker *workers;

static void die(const char *what)
{
	fprintf(stderr, PROG ": %s: %s\n", what, strerror(errno));
	exit(1);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint64_t ts_us(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000 + (uint64_t)t->tv_nsec / 1000;
}

/* ---------------------------------------------------------------- IDENTIFY */
/* ATA strings: two characters per 16-bit word, the first in the high byte. */
static void ident_str(int word, int len, const char *s)
{
	for (int i = 0; i < len; i += 2) {
		char a = *s ? *s++ : ' ';
		char b = *s ? *s++ : ' ';

		ident[word + i / 2] = (uint16_t)((uint8_t)a << 8 | (uint8_t)b);
	}
}

static void build_identify(void)
{
	uint64_t s28 = opt.sectors > 0x0fffffff ? 0x0fffffff : opt.sectors;
	char fw[9];

	snprintf(fw, sizeof(fw), "%x", opt.fwver);
	memset(ident, 0, sizeof(ident));
	ident[0] = 0x0040;			/* fixed device */
	ident_str(10, 20, opt.serial);
	ident_str(23, 8, fw);
	ident_str(27, 40, opt.model);
	ident[47] = 0x8000 | MAX_SECT;		/* READ/WRITE MULTIPLE */
	ident[49] = 0x0200;			/* LBA */
	ident[53] = 0x0006;			/* words 64-70, 88 valid */
	ident[60] = s28 & 0xffff;
	ident[61] = (uint16_t)(s28 >> 16);
	ident[80] = 0x00f0;			/* ATA/ATAPI-4..7 */
	ident[82] = 0x4020;			/* write cache supported */
	/* 83: bit 14 valid, 13 FLUSH CACHE EXT, 12 FLUSH CACHE, 10 LBA48 */
	ident[83] = 0x4000 | 0x1000 | (opt.lba28 ? 0 : 0x2000 | 0x0400);
	/* 84: bit 14 valid, 6 WRITE DMA/MULTIPLE FUA EXT */
	ident[84] = 0x4000 | (opt.lba28 ? 0 : 0x0040);
	/* 85-87: enabled; 85 bit 5 write cache enabled */
	ident[85] = opt.volatile_cache ? 0x0020 : 0;
	ident[86] = ident[83] & ~0x4000;
	ident[87] = ident[84];
	if (!opt.lba28) {
		ident[100] = opt.sectors & 0xffff;
		ident[101] = (uint16_t)(opt.sectors >> 16);
		ident[102] = (uint16_t)(opt.sectors >> 32);
		ident[103] = (uint16_t)(opt.sectors >> 48);
	}
	for (int i = 0; i < 256; i++) {
		ident_le[2 * i] = ident[i] & 0xff;
		ident_le[2 * i + 1] = ident[i] >> 8;
	}
}

/* ---------------------------------------------------------------- cache */
static void dirty_set(uint64_t lba, unsigned int n)
{
	for (uint64_t s = lba; s < lba + n; s++)
		__atomic_fetch_or(&dirty[s / 64], 1ULL << (s % 64), __ATOMIC_RELEASE);
}

static void dirty_clear(uint64_t lba, unsigned int n)
{
	for (uint64_t s = lba; s < lba + n; s++)
		__atomic_fetch_and(&dirty[s / 64], ~(1ULL << (s % 64)), __ATOMIC_RELEASE);
}

/*
 * FLUSH CACHE: every dirty sector to the durable image. A bit is cleared
 * before its sector is copied, so a write racing with the flush leaves its
 * bit set for the next one. Runs with cut_lock held for reading.
 */
static void cache_flush(void)
{
	for (size_t i = 0; i < dirty_words; i++) {
		uint64_t w;

		if (!__atomic_load_n(&dirty[i], __ATOMIC_ACQUIRE))
			continue;
		w = __atomic_exchange_n(&dirty[i], 0, __ATOMIC_ACQ_REL);
		while (w) {
			uint64_t s = i * 64 + (uint64_t)__builtin_ctzll(w);

			w &= w - 1;
			memcpy(durable + s * 512, disk + s * 512, 512);
		}
	}
}

static uint64_t cache_dirty(void)
{
	uint64_t n = 0;

	for (size_t i = 0; dirty && i < dirty_words; i++)
		n += (uint64_t)__builtin_popcountll(__atomic_load_n(&dirty[i], __ATOMIC_RELAXED));
	return n;
}

/*
 * Power cut: the durable image over every dirty sector, no worker running.
 * off: the power stays off (the target silent) until power_on().
 */
static void power_cut(bool off)
{
	uint64_t lost = 0;

	pthread_rwlock_wrlock(&cut_lock);
	__atomic_store_n(&powered_off, off, __ATOMIC_RELAXED);
	for (size_t i = 0; dirty && i < dirty_words; i++) {
		uint64_t w = dirty[i];

		dirty[i] = 0;
		while (w) {
			uint64_t s = i * 64 + (uint64_t)__builtin_ctzll(w);

			w &= w - 1;
			memcpy(disk + s * 512, durable + s * 512, 512);
			lost++;
		}
	}
	n_cuts++;
	pthread_rwlock_unlock(&cut_lock);
	printf(PROG ": power %s %lu: %llu unflushed sectors lost\n", off ? "off, cut" : "cut",
	       n_cuts, (unsigned long long)lost);
	fflush(stdout);
}

/* ---------------------------------------------------------------- serving */
static void ata_error(struct worker *w, uint8_t *out, uint8_t err)
{
	out[25] = err;
	out[27] = ST_DRDY | ST_ERR;
	STAT_ADD(w, errors, 1);
}

/* The interface's MTU, re-read now and then (it may change under us). */
static int if_mtu(struct iface *ifc)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd >= 0) {
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifc->name);
		if (ioctl(fd, SIOCGIFMTU, &ifr) == 0)
			ifc->mtu = ifr.ifr_mtu;
		close(fd);
	}
	return ifc->mtu;
}

static unsigned int max_sectors(const struct iface *ifc)
{
	int n = (ifc->mtu - ATA_HDR) / 512;

	if (n > MAX_SECT)
		n = MAX_SECT;
	if (opt.maxsect && (unsigned int)n > opt.maxsect)
		n = (int)opt.maxsect;
	return n < 1 ? 1 : (unsigned int)n;
}

/* Query Config. Returns the answer's length, 0 for no answer. */
static size_t serve_config(struct worker *w, struct iface *ifc, const uint8_t *in, size_t len,
			   uint8_t *out)
{
	unsigned int ccmd, slen;

	if (len < CFG_HDR) {
		STAT_ADD(w, bad, 1);
		return 0;
	}
	memset(out + HDR, 0, CFG_HDR - HDR);
	ccmd = in[29] & 0x0f;
	slen = get16(in + 30);
	if (slen > MAX_CFG || CFG_HDR + slen > len) {
		out[14] |= 0x04;
		out[15] = 2;		/* bad argument */
		return CFG_HDR;
	}
	if_mtu(ifc);
	pthread_mutex_lock(&cfg_lock);
	switch (ccmd) {
	case 0:			/* read */
		break;
	case 1:			/* test: answer only on an exact match */
		if (slen != cfg_len || memcmp(in + CFG_HDR, cfg_str, slen)) {
			pthread_mutex_unlock(&cfg_lock);
			return 0;
		}
		break;
	case 2:			/* test prefix */
		if (slen > cfg_len || memcmp(in + CFG_HDR, cfg_str, slen)) {
			pthread_mutex_unlock(&cfg_lock);
			return 0;
		}
		break;
	case 3:			/* set, if empty (or the same) */
		if (cfg_len && (slen != cfg_len || memcmp(in + CFG_HDR, cfg_str, slen))) {
			out[14] |= 0x04;
			out[15] = 4;	/* config string present */
			break;
		}
		/* fall through */
	case 4:			/* force set */
		memcpy(cfg_str, in + CFG_HDR, slen);
		cfg_len = slen;
		break;
	default:
		out[14] |= 0x04;
		out[15] = 2;
		break;
	}
	STAT_ADD(w, config, 1);
	put16(out + 24, (uint16_t)opt.bufcnt);
	put16(out + 26, (uint16_t)opt.fwver);
	out[28] = (uint8_t)max_sectors(ifc);
	out[29] = (uint8_t)(0x10 | ccmd);
	put16(out + 30, (uint16_t)cfg_len);
	memcpy(out + CFG_HDR, cfg_str, cfg_len);
	pthread_mutex_unlock(&cfg_lock);
	return CFG_HDR + cfg_len;
}

static bool ext_cmd(uint8_t c)
{
	return c == 0x24 || c == 0x34 || c == 0x3d || c == 0xea;
}

/*
 * ATA. Returns the answer's length (header + data), data in t->iov[1].
 * For the file backend a read or write is queued as an iocb (w->naio).
 */
static size_t serve_ata(struct worker *w, struct iface *ifc, const uint8_t *in, size_t len,
			uint8_t *out, struct txslot *t)
{
	uint8_t aflags, count, cmd;
	uint64_t lba;
	size_t bytes;
	bool write;

	if (len < ATA_HDR) {
		STAT_ADD(w, bad, 1);
		return 0;
	}
	if (opt.resv_set && memcmp(in + 6, opt.resv_mac, 6)) {
		memcpy(out + 24, in + 24, 12);
		out[14] |= 0x04;
		out[15] = 6;		/* target reserved */
		STAT_ADD(w, refused, 1);
		return ATA_HDR;
	}
	if (opt.drop_every &&
	    __atomic_add_fetch(&ata_seq, 1, __ATOMIC_RELAXED) % opt.drop_every == 0) {
		STAT_ADD(w, dropped, 1);
		return 0;
	}
	aflags = in[24];
	count = in[26];
	cmd = in[27];
	memcpy(out + 24, in + 24, 12);
	out[25] = 0;
	out[27] = ST_DRDY;
	if (ext_cmd(cmd) || (aflags & 0x40)) {
		if (opt.lba28) {
			ata_error(w, out, ER_ABRT);
			return ATA_HDR;
		}
		lba = (uint64_t)in[28] | (uint64_t)in[29] << 8 | (uint64_t)in[30] << 16 |
		      (uint64_t)in[31] << 24 | (uint64_t)in[32] << 32 | (uint64_t)in[33] << 40;
	} else {
		lba = (uint64_t)in[28] | (uint64_t)in[29] << 8 | (uint64_t)in[30] << 16 |
		      (uint64_t)(in[31] & 0x0f) << 24;
	}
	switch (cmd) {
	case 0xec:		/* IDENTIFY DEVICE */
		STAT_ADD(w, identify, 1);
		t->iov[1].iov_base = ident_le;
		t->iov[1].iov_len = 512;
		return ATA_HDR + 512;
	case 0xe7:		/* FLUSH CACHE */
	case 0xea:		/* FLUSH CACHE EXT */
		if (opt.no_flush) {
			/* a broken cache: claimed, but FLUSH is aborted */
			ata_error(w, out, ER_ABRT);
			return ATA_HDR;
		}
		STAT_ADD(w, flushes, 1);
		if (dirty)
			cache_flush();
		else if (file_fd >= 0 && fdatasync(file_fd) < 0)
			ata_error(w, out, ER_ABRT);
		return ATA_HDR;
	case 0x20: case 0x24:	/* READ SECTORS (EXT) */
		write = false;
		break;
	case 0x30: case 0x34: case 0x3d:	/* WRITE SECTORS (EXT), WRITE FUA EXT */
		write = true;
		break;
	default:
		ata_error(w, out, ER_ABRT);
		return ATA_HDR;
	}
	bytes = (size_t)count * 512;
	if (count == 0 || count > max_sectors(ifc) || (size_t)ifc->mtu < ATA_HDR - 14 + bytes) {
		/* 0 would mean 256 sectors: no frame carries that */
		ata_error(w, out, ER_ABRT);
		return ATA_HDR;
	}
	if (write && len < ATA_HDR + bytes) {
		/* a write frame shorter than its data: not a whole request */
		STAT_ADD(w, bad, 1);
		return 0;
	}
	if (lba >= opt.sectors || count > opt.sectors - lba) {
		ata_error(w, out, ER_IDNF);
		return ATA_HDR;
	}
	if (opt.err_set && lba <= opt.err_last && lba + count - 1 >= opt.err_first &&
	    (write ? opt.err_write : opt.err_read)) {
		ata_error(w, out, write ? ER_IDNF : ER_UNC);
		return ATA_HDR;
	}
	if (file_fd >= 0) {
		struct iocb *cb = &w->iocbs[w->naio];

		if (write) {
			memcpy(t->buf, in + ATA_HDR, bytes);
			if (cmd == 0x3d) {
				/* FUA: synchronous, durable before the answer */
				struct iovec v = { t->buf, bytes };

				if (pwritev2(file_fd, &v, 1, (off_t)(lba * 512), RWF_DSYNC) != (ssize_t)bytes)
					ata_error(w, out, ER_ABRT);
				else {
					STAT_ADD(w, fua, 1);
					STAT_ADD(w, writes, 1);
					STAT_ADD(w, sect_w, count);
				}
				return ATA_HDR;
			}
			io_prep_pwrite(cb, file_fd, t->buf, bytes, (long long)(lba * 512));
		} else {
			io_prep_pread(cb, file_fd, t->buf, bytes, (long long)(lba * 512));
			t->iov[1].iov_base = t->buf;
			t->iov[1].iov_len = bytes;
		}
		t->aio_status = w->naio;
		w->iocbp[w->naio] = cb;
		w->iocb_slot[w->naio] = (int)(t - w->tx);
		w->naio++;
		return ATA_HDR + (write ? 0 : bytes);
	}
	if (write) {
		memcpy(disk + lba * 512, in + ATA_HDR, bytes);
		if (dirty) {
			if (cmd == 0x3d) {
				memcpy(durable + lba * 512, in + ATA_HDR, bytes);
				dirty_clear(lba, count);
			} else {
				dirty_set(lba, count);
			}
		}
		if (cmd == 0x3d)
			STAT_ADD(w, fua, 1);
		STAT_ADD(w, writes, 1);
		STAT_ADD(w, sect_w, count);
		return ATA_HDR;
	}
	STAT_ADD(w, reads, 1);
	STAT_ADD(w, sect_r, count);
	t->iov[1].iov_base = disk + lba * 512;
	t->iov[1].iov_len = bytes;
	return ATA_HDR + bytes;
}

/* One request frame: builds its answer in the next tx slot. */
static void serve_frame(struct worker *w, int r, const uint8_t *in, size_t len,
			const struct timespec *now)
{
	struct iface *ifc = &ifs[w->rings[r].ifx];
	struct txslot *t;
	uint8_t *out;
	unsigned int sh;
	size_t n;

	if (__atomic_load_n(&powered_off, __ATOMIC_RELAXED)) {
		STAT_ADD(w, silent, 1);
		return;
	}
	if (len < HDR || get16(in + 12) != ETH_P_AOE) {
		STAT_ADD(w, bad, 1);
		return;
	}
	if ((in[14] & 0x08) || (in[14] >> 4) != 1)
		return;			/* a response, or not AoE version 1 */
	sh = get16(in + 16);
	if (in[19] == 0) {
		if (sh != opt.shelf || in[18] != opt.slot)
			return;		/* ATA is never broadcast */
	} else if ((sh != opt.shelf && sh != 0xffff) || (in[18] != opt.slot && in[18] != 0xff)) {
		return;
	}
	if (w->ntx && w->tx_ring != r)
		return;			/* cannot happen: batches are per ring */
	t = &w->tx[w->ntx];
	out = t->hdr;
	t->aio_status = -1;
	t->t_rx = *now;
	t->iov[1].iov_base = NULL;
	t->iov[1].iov_len = 0;
	memcpy(out, in + 6, 6);
	memcpy(out + 6, ifc->mac, 6);
	put16(out + 12, ETH_P_AOE);
	out[14] = 0x18;			/* version 1, response */
	out[15] = 0;
	put16(out + 16, (uint16_t)opt.shelf);
	out[18] = (uint8_t)opt.slot;
	out[19] = in[19];
	memcpy(out + 20, in + 20, 4);	/* tag */
	switch (in[19]) {
	case 0:
		n = serve_ata(w, ifc, in, len, out, t);
		break;
	case 1:
		n = serve_config(w, ifc, in, len, out);
		break;
	default:
		out[14] |= 0x04;
		out[15] = 1;		/* unrecognized command */
		n = HDR;
		break;
	}
	if (!n)
		return;
	t->iov[0].iov_base = out;
	t->iov[0].iov_len = n - t->iov[1].iov_len;
	if (n < 60) {			/* pad to the Ethernet minimum */
		memset(out + t->iov[0].iov_len, 0, 60 - n);
		t->iov[0].iov_len += 60 - n;
	}
	w->tx_ring = r;
	w->ntx++;
}

/* Waits for the batch's file I/O, fixes up failed answers. */
static void finish_aio(struct worker *w)
{
	struct io_event ev[BATCH];
	int done = 0, n;

	if (!w->naio)
		return;
	n = io_submit(w->aio, w->naio, w->iocbp);
	if (n < 0)
		n = 0;
	for (int i = n; i < w->naio; i++) {	/* not submitted: an error */
		struct txslot *t = &w->tx[w->iocb_slot[i]];

		t->iov[1].iov_len = 0;
		t->iov[0].iov_len = ATA_HDR + 24;
		memset(t->hdr + ATA_HDR, 0, 24);
		ata_error(w, t->hdr, ER_ABRT);
	}
	while (done < n) {
		int got = io_getevents(w->aio, 1, n - done, ev, NULL);

		if (got < 0) {
			if (got == -EINTR)
				continue;
			break;
		}
		for (int i = 0; i < got; i++) {
			struct iocb *cb = ev[i].obj;
			int k = (int)(cb - w->iocbs);
			struct txslot *t = &w->tx[w->iocb_slot[k]];
			bool wr = cb->aio_lio_opcode == IO_CMD_PWRITE;

			if ((long)ev[i].res != (long)cb->u.c.nbytes) {
				t->iov[1].iov_len = 0;
				t->iov[0].iov_len = ATA_HDR + 24;
				memset(t->hdr + ATA_HDR, 0, 24);
				ata_error(w, t->hdr, wr ? ER_IDNF : ER_UNC);
			} else if (wr) {
				STAT_ADD(w, writes, 1);
				STAT_ADD(w, sect_w, cb->u.c.nbytes / 512);
			} else {
				STAT_ADD(w, reads, 1);
				STAT_ADD(w, sect_r, cb->u.c.nbytes / 512);
			}
		}
		done += got;
	}
	w->naio = 0;
}

/* Sends the pending batch in one sendmmsg (after --delay-us, if set). */
static void flush_tx(struct worker *w)
{
	int sent = 0;

	if (!w->ntx)
		return;
	finish_aio(w);
	if (opt.delay_us) {
		struct timespec now;
		uint64_t due = ts_us(&w->tx[0].t_rx) + opt.delay_us, t;

		clock_gettime(CLOCK_MONOTONIC, &now);
		t = ts_us(&now);
		if (t < due)
			usleep((useconds_t)(due - t));
	}
	for (int i = 0; i < w->ntx; i++) {
		memset(&w->msgs[i], 0, sizeof(w->msgs[i]));
		w->msgs[i].msg_hdr.msg_iov = w->tx[i].iov;
		w->msgs[i].msg_hdr.msg_iovlen = w->tx[i].iov[1].iov_len ? 2 : 1;
	}
	while (sent < w->ntx) {
		int n = sendmmsg(w->rings[w->tx_ring].fd, w->msgs + sent,
				 (unsigned int)(w->ntx - sent), 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			/* ENOBUFS & co: this answer is lost, the initiator resends */
			STAT_ADD(w, tx_errors, 1);
			n = 1;
		}
		sent += n;
	}
	w->ntx = 0;
}

/* ---------------------------------------------------------------- rings */
/*
 * Only requests to this target (its shelf and slot, or a broadcast one)
 * reach the ring: the kernel drops the rest before copying or waking us. On
 * a link shared by several targets (make bench's multi4: four processes on
 * one veth) each would otherwise take a copy of every frame.
 */
static void ring_filter(int fd)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 14),			/* ver/flags */
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x08, 7, 0),	/* a response */
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 16),			/* major */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, opt.shelf, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffff, 0, 4),
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 18),			/* minor */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, opt.slot, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xff, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0x40000),			/* take it */
		BPF_STMT(BPF_RET | BPF_K, 0),				/* drop */
	};
	struct sock_fprog prog = { .len = sizeof(code) / sizeof(code[0]), .filter = code };

	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0)
		die("SO_ATTACH_FILTER");
}

static void ring_open(struct ring *rg, int ifx, int group)
{
	struct sockaddr_ll sll = { 0 };
	int one = 1, ver = opt.ring_v3 ? TPACKET_V3 : TPACKET_V2;
	int fanout;

	rg->ifx = ifx;
	rg->fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_AOE));
	if (rg->fd < 0)
		die("socket(AF_PACKET)");
	if (setsockopt(rg->fd, SOL_PACKET, PACKET_VERSION, &ver, sizeof(ver)) < 0)
		die("PACKET_VERSION");
	ring_filter(rg->fd);
	if (opt.ring_v3) {
		struct tpacket_req3 req = { 0 };

		req.tp_block_size = 1 << 17;
		req.tp_block_nr = opt.ring_mb * (1 << 20) / req.tp_block_size;
		if (req.tp_block_nr < 4)
			req.tp_block_nr = 4;
		req.tp_frame_size = 1 << 11;	/* unused by V3 but checked */
		req.tp_frame_nr = req.tp_block_size / req.tp_frame_size * req.tp_block_nr;
		req.tp_retire_blk_tov = opt.block_ms;
		if (setsockopt(rg->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)) < 0)
			die("PACKET_RX_RING (v3)");
		rg->nblocks = req.tp_block_nr;
		rg->block_size = req.tp_block_size;
	} else {
		struct tpacket_req req = { 0 };

		req.tp_block_size = 1 << 16;
		req.tp_frame_size = 1 << 14;	/* a 9000-byte frame fits */
		req.tp_block_nr = opt.ring_mb * (1 << 20) / req.tp_block_size;
		if (req.tp_block_nr < 4)
			req.tp_block_nr = 4;
		req.tp_frame_nr = req.tp_block_size / req.tp_frame_size * req.tp_block_nr;
		if (setsockopt(rg->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)) < 0)
			die("PACKET_RX_RING (v2)");
		rg->nblocks = req.tp_frame_nr;
		rg->block_size = req.tp_frame_size;
	}
	rg->map_len = (size_t)rg->nblocks * rg->block_size;
	rg->map = mmap(NULL, rg->map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_LOCKED, rg->fd, 0);
	if (rg->map == MAP_FAILED)
		rg->map = mmap(NULL, rg->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, rg->fd, 0);
	if (rg->map == MAP_FAILED)
		die("mmap(ring)");
	rg->cur = 0;
	/* our own answers need not come back through the ring (>= 4.20) */
	setsockopt(rg->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	if (opt.qdisc_bypass)
		setsockopt(rg->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_AOE);
	sll.sll_ifindex = ifs[ifx].index;
	if (bind(rg->fd, (struct sockaddr *)&sll, sizeof(sll)) < 0)
		die("bind");
	fanout = (group & 0xffff) | (opt.fanout << 16);
	if (opt.workers > 1 &&
	    setsockopt(rg->fd, SOL_PACKET, PACKET_FANOUT, &fanout, sizeof(fanout)) < 0)
		die("PACKET_FANOUT");
}

/* Serves what the ring holds (at most about one batch). Returns frames. */
static int ring_serve(struct worker *w, int r)
{
	struct ring *rg = &w->rings[r];
	struct timespec now;
	int served = 0;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (opt.ring_v3) {
		while (served < BATCH) {
			struct tpacket_block_desc *bd =
				(void *)(rg->map + (size_t)rg->cur * rg->block_size);
			struct tpacket3_hdr *h;
			unsigned int np;

			if (!(__atomic_load_n(&bd->hdr.bh1.block_status, __ATOMIC_ACQUIRE) &
			      TP_STATUS_USER))
				break;
			np = bd->hdr.bh1.num_pkts;
			h = (void *)((uint8_t *)bd + bd->hdr.bh1.offset_to_first_pkt);
			for (unsigned int i = 0; i < np; i++) {
				if (w->ntx == BATCH)
					flush_tx(w);
				serve_frame(w, r, (uint8_t *)h + h->tp_mac, h->tp_snaplen, &now);
				served++;
				h = (void *)((uint8_t *)h + h->tp_next_offset);
			}
			/* answers point into the disk, not the ring: release now */
			__atomic_store_n(&bd->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
			rg->cur = (rg->cur + 1) % rg->nblocks;
		}
	} else {
		while (served < BATCH) {
			struct tpacket2_hdr *h = (void *)(rg->map + (size_t)rg->cur * rg->block_size);

			if (!(__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER))
				break;
			if (w->ntx == BATCH)
				flush_tx(w);
			serve_frame(w, r, (uint8_t *)h + h->tp_mac, h->tp_snaplen, &now);
			served++;
			__atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
			rg->cur = (rg->cur + 1) % rg->nblocks;
		}
	}
	return served;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct pollfd pfd[MAX_IF];

	if (opt.ncpus) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(opt.cpus[w->id % opt.ncpus], &set);
		if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
			fprintf(stderr, PROG ": worker %d: cannot pin to CPU %d\n", w->id,
				opt.cpus[w->id % opt.ncpus]);
	}
	for (int i = 0; i < opt.nif; i++) {
		pfd[i].fd = w->rings[i].fd;
		pfd[i].events = POLLIN | POLLERR;
	}
	while (!stop) {
		struct timespec t0, t1;
		int any = 0;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		pthread_rwlock_rdlock(&cut_lock);
		for (int i = 0; i < opt.nif; i++) {
			any += ring_serve(w, i);
			flush_tx(w);
		}
		pthread_rwlock_unlock(&cut_lock);
		if (any) {
			clock_gettime(CLOCK_MONOTONIC, &t1);
			STAT_ADD(w, busy_us, ts_us(&t1) - ts_us(&t0));
		} else {
			STAT_ADD(w, wakeups, 1);
			poll(pfd, (nfds_t)opt.nif, 100);
		}
	}
	return NULL;
}

/* ---------------------------------------------------------------- control */
static void print_status(void)
{
	struct stats s = { 0 };
	struct rusage ru;

	for (int i = 0; i < opt.workers; i++) {
		struct stats *p = &workers[i].st;

#define SUM(f) s.f += __atomic_load_n(&p->f, __ATOMIC_RELAXED)
		SUM(reads); SUM(writes); SUM(fua); SUM(flushes); SUM(identify);
		SUM(config); SUM(errors); SUM(dropped); SUM(bad); SUM(tx_errors);
		SUM(sect_r); SUM(sect_w); SUM(busy_us); SUM(wakeups); SUM(silent);
		SUM(refused);
#undef SUM
	}
	getrusage(RUSAGE_SELF, &ru);
	printf(PROG ": reads %lu writes %lu fua %lu flushes %lu identify %lu config %lu cuts %lu "
	       "errors %lu dropped %lu bad %lu tx_errors %lu sectors_read %lu sectors_written %lu "
	       "dirty %llu cpu_ms %llu busy_ms %lu wakeups %lu silent %lu refused %lu\n",
	       s.reads, s.writes, s.fua, s.flushes, s.identify, s.config, n_cuts, s.errors,
	       s.dropped, s.bad, s.tx_errors, s.sect_r, s.sect_w,
	       (unsigned long long)cache_dirty(),
	       (unsigned long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
	       (unsigned long long)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000,
	       s.busy_us / 1000, s.wakeups, s.silent, s.refused);
	fflush(stdout);
}

static void announce(void);

static void control_cmd(char *line)
{
	line[strcspn(line, " \t\r\n")] = 0;
	if (!strcmp(line, "cut")) {
		power_cut(false);
	} else if (!strcmp(line, "off")) {
		power_cut(true);
	} else if (!strcmp(line, "on")) {
		pthread_rwlock_wrlock(&cut_lock);
		__atomic_store_n(&powered_off, 0, __ATOMIC_RELAXED);
		pthread_rwlock_unlock(&cut_lock);
		announce();
		printf(PROG ": power on\n");
		fflush(stdout);
	} else if (!strcmp(line, "status")) {
		print_status();
	} else if (!strcmp(line, "flush")) {
		if (dirty) {
			pthread_rwlock_rdlock(&cut_lock);
			cache_flush();
			pthread_rwlock_unlock(&cut_lock);
		}
		printf(PROG ": flushed\n");
		fflush(stdout);
	} else if (!strcmp(line, "quit")) {
		stop = 1;
	} else if (*line) {
		fprintf(stderr, PROG ": control: unknown command '%s' (cut, off, on, status, flush, quit)\n", line);
	}
}

/* Announces the target as one does when it starts: a broadcast config answer. */
static void announce(void)
{
	for (int i = 0; i < opt.nif; i++) {
		uint8_t f[60] = { 0 };

		memset(f, 0xff, 6);
		memcpy(f + 6, ifs[i].mac, 6);
		put16(f + 12, ETH_P_AOE);
		f[14] = 0x18;
		put16(f + 16, (uint16_t)opt.shelf);
		f[18] = (uint8_t)opt.slot;
		f[19] = 1;
		put16(f + 24, (uint16_t)opt.bufcnt);
		put16(f + 26, (uint16_t)opt.fwver);
		f[28] = (uint8_t)max_sectors(&ifs[i]);
		f[29] = 0x10;
		if (send(workers[0].rings[i].fd, f, sizeof(f), 0) < 0)
			fprintf(stderr, PROG ": announce on %s: %s\n", ifs[i].name, strerror(errno));
	}
}

/* ---------------------------------------------------------------- setup */
static void usage(FILE *f)
{
	fprintf(f,
"usage: " PROG " -i IFACE [-i IFACE]... [options]\n"
"A fast AoE target for tests: serves a RAM disk (or --file) as eSHELF.SLOT.\n"
"\n"
"Disk:\n"
"  -i, --iface IFACE       serve on IFACE (repeatable, up to %d)\n"
"  -s, --size SIZE         RAM disk size: bytes, or with suffix s (sectors), k, M, G\n"
"                          (default 128M); with --file: at most this much of it\n"
"  -f, --file PATH         serve a file or block device (O_DIRECT, libaio) instead\n"
"      --shelf N           shelf (major) address (default 1)\n"
"      --slot N            slot (minor) address (default 2)\n"
"      --lba28             a 28-bit-LBA-only disk: IDENTIFY without LBA48, FUA and\n"
"                          FLUSH CACHE EXT; 0x24/0x34/0x3d/0xea and E-flag frames\n"
"                          aborted; capacity capped at 2^28-1 sectors\n"
"      --volatile          a volatile write cache (RAM disk only): written sectors\n"
"                          are lost on a power cut until FLUSH CACHE (EXT) or a\n"
"                          WRITE FUA EXT commits them; IDENTIFY word 85 bit 5 set\n"
"      --no-volatile       no volatile cache (the default): writes are durable\n"
"      --no-flush          abort FLUSH CACHE (EXT) (ATA ABRT, counted as errors, not\n"
"                          as flushes) while IDENTIFY still claims it (and the cache\n"
"                          with --volatile): a target whose FLUSH does not work\n"
"      --populate          allocate the RAM disk's pages at start (reads of pages never\n"
"                          written otherwise hit the shared zero page: unfairly fast)\n"
"  -b, --bufcnt N          buffer count in Query Config answers, 1..256 (default 64)\n"
"      --maxsect N         cap the sectors-per-frame of Query Config answers\n"
"                          (default: what the interface MTU carries, at most 255)\n"
"      --fwver N           firmware version (default 0x4019)\n"
"      --serial S, --model S   IDENTIFY strings\n"
"\n"
"Performance:\n"
"  -w, --workers N         worker threads (default: half the CPUs, at least 1; max %d)\n"
"      --cpus LIST         pin worker i to the i-th CPU of LIST (e.g. 0,1), round robin\n"
"      --fanout lb|hash|cpu  PACKET_FANOUT mode spreading frames over workers\n"
"                          (default lb: round robin)\n"
"      --ring v2|v3        TPACKET_V2 frame ring (default: one wakeup per frame) or\n"
"                          TPACKET_V3 block ring (blocks handed over when full or\n"
"                          after --block-ms: for many deep-queue initiators)\n"
"      --block-ms N        V3: a block is handed over when full or after N ms (default 1)\n"
"      --ring-mb N         receive ring size per worker and interface (default 4)\n"
"      --qdisc-bypass      PACKET_QDISC_BYPASS (tc/netem on the interface then does\n"
"                          not see the answers)\n"
"\n"
"Test knobs:\n"
"      --delay-us N        send each answer at least N us after its request arrived\n"
"      --error-lba A-B[:r|w|rw]  ATA error for requests touching sectors A..B\n"
"                          (reads UNC, writes IDNF; default both)\n"
"      --drop-every N      ignore every Nth ATA request (no answer)\n"
"      --reserved-for MAC  answer every ATA command (IDENTIFY too) from another\n"
"                          source MAC with AoE error 6 (target reserved)\n"
"  -c, --control PATH      control FIFO (created if missing), one command a line:\n"
"                          cut (power cut: unflushed writes lost, serves on),\n"
"                          off (power cut, then silent: every frame ignored),\n"
"                          on (serves again, announces itself), flush,\n"
"                          status (counters on stdout), quit\n"
"  -q, --quiet             no start-up line\n"
"  -h, --help              this text\n"
"\n"
"Signals: SIGUSR1 power cut, SIGUSR2 counters, SIGTERM/SIGINT counters and exit 0.\n"
"Counter line: " PROG ": reads N writes N fua N flushes N identify N config N cuts N\n"
"  errors N dropped N bad N tx_errors N sectors_read N sectors_written N dirty N cpu_ms N\n"
"  busy_ms N wakeups N silent N refused N (busy_ms: wall time workers spent serving, summed;\n"
"  silent: frames ignored while powered off)\n"
"A power cut prints: " PROG ": power cut N: M unflushed sectors lost\n"
"(\"off\": " PROG ": power off, cut N: M unflushed sectors lost; \"on\": " PROG ": power on)\n",
		MAX_IF, MAX_WORKERS);
}

static unsigned long long parse_num(const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s) {
		fprintf(stderr, PROG ": bad %s '%s'\n", what, s);
		exit(2);
	}
	switch (*end) {
	case 0: break;
	case 's': v *= 512; end++; break;
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	default: end = (char *)"x";
	}
	if (*end) {
		fprintf(stderr, PROG ": bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

static void parse_cpus(char *s)
{
	for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
		if (opt.ncpus == 256) {
			fprintf(stderr, PROG ": too many CPUs in --cpus\n");
			exit(2);
		}
		opt.cpus[opt.ncpus++] = (int)parse_num(tok, "CPU");
	}
}

static void parse_error_lba(const char *s)
{
	char *end;

	opt.err_first = strtoull(s, &end, 0);
	opt.err_last = opt.err_first;
	if (*end == '-')
		opt.err_last = strtoull(end + 1, &end, 0);
	opt.err_read = opt.err_write = true;
	if (*end == ':') {
		end++;
		if (!strcmp(end, "r"))
			opt.err_write = false;
		else if (!strcmp(end, "w"))
			opt.err_read = false;
		else if (strcmp(end, "rw"))
			end = (char *)"x";
		else
			end += 2;
		if (!opt.err_read || !opt.err_write)
			end += 1;
	}
	if (*end || opt.err_last < opt.err_first) {
		fprintf(stderr, PROG ": bad --error-lba '%s' (FIRST-LAST[:r|w|rw])\n", s);
		exit(2);
	}
	opt.err_set = true;
}

static void parse_args(int argc, char **argv)
{
	enum { O_SHELF = 256, O_SLOT, O_LBA28, O_VOL, O_NOVOL, O_MAXSECT, O_FWVER, O_SERIAL,
	       O_MODEL, O_CPUS, O_FANOUT, O_RING, O_BLOCKMS, O_RINGMB, O_BYPASS, O_DELAY,
	       O_ERRLBA, O_DROP, O_POPULATE, O_NOFLUSH, O_RESV };
	static const struct option lopts[] = {
		{ "iface", required_argument, NULL, 'i' },
		{ "size", required_argument, NULL, 's' },
		{ "file", required_argument, NULL, 'f' },
		{ "shelf", required_argument, NULL, O_SHELF },
		{ "slot", required_argument, NULL, O_SLOT },
		{ "lba28", no_argument, NULL, O_LBA28 },
		{ "volatile", no_argument, NULL, O_VOL },
		{ "no-volatile", no_argument, NULL, O_NOVOL },
		{ "populate", no_argument, NULL, O_POPULATE },
		{ "no-flush", no_argument, NULL, O_NOFLUSH },
		{ "bufcnt", required_argument, NULL, 'b' },
		{ "maxsect", required_argument, NULL, O_MAXSECT },
		{ "fwver", required_argument, NULL, O_FWVER },
		{ "serial", required_argument, NULL, O_SERIAL },
		{ "model", required_argument, NULL, O_MODEL },
		{ "workers", required_argument, NULL, 'w' },
		{ "cpus", required_argument, NULL, O_CPUS },
		{ "fanout", required_argument, NULL, O_FANOUT },
		{ "ring", required_argument, NULL, O_RING },
		{ "block-ms", required_argument, NULL, O_BLOCKMS },
		{ "ring-mb", required_argument, NULL, O_RINGMB },
		{ "qdisc-bypass", no_argument, NULL, O_BYPASS },
		{ "delay-us", required_argument, NULL, O_DELAY },
		{ "error-lba", required_argument, NULL, O_ERRLBA },
		{ "drop-every", required_argument, NULL, O_DROP },
		{ "reserved-for", required_argument, NULL, O_RESV },
		{ "control", required_argument, NULL, 'c' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	unsigned long long size = 0;
	int c;

	while ((c = getopt_long(argc, argv, "i:s:f:b:w:c:qh", lopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (opt.nif == MAX_IF) {
				fprintf(stderr, PROG ": at most %d interfaces\n", MAX_IF);
				exit(2);
			}
			opt.ifnames[opt.nif++] = optarg;
			break;
		case 's': size = parse_num(optarg, "size"); break;
		case 'f': opt.file = optarg; break;
		case O_SHELF: opt.shelf = (unsigned int)parse_num(optarg, "shelf"); break;
		case O_SLOT: opt.slot = (unsigned int)parse_num(optarg, "slot"); break;
		case O_LBA28: opt.lba28 = true; break;
		case O_VOL: opt.volatile_cache = true; break;
		case O_NOVOL: opt.volatile_cache = false; break;
		case O_POPULATE: opt.populate = true; break;
		case O_NOFLUSH: opt.no_flush = true; break;
		case 'b': opt.bufcnt = (unsigned int)parse_num(optarg, "buffer count"); break;
		case O_MAXSECT: opt.maxsect = (unsigned int)parse_num(optarg, "maxsect"); break;
		case O_FWVER: opt.fwver = (unsigned int)parse_num(optarg, "firmware version"); break;
		case O_SERIAL: opt.serial = optarg; break;
		case O_MODEL: opt.model = optarg; break;
		case 'w': opt.workers = (int)parse_num(optarg, "workers"); break;
		case O_CPUS: parse_cpus(optarg); break;
		case O_FANOUT:
			if (!strcmp(optarg, "lb"))
				opt.fanout = PACKET_FANOUT_LB;
			else if (!strcmp(optarg, "hash"))
				opt.fanout = PACKET_FANOUT_HASH;
			else if (!strcmp(optarg, "cpu"))
				opt.fanout = PACKET_FANOUT_CPU;
			else {
				fprintf(stderr, PROG ": --fanout lb, hash or cpu\n");
				exit(2);
			}
			break;
		case O_RING:
			if (strcmp(optarg, "v3") && strcmp(optarg, "v2")) {
				fprintf(stderr, PROG ": --ring v3 or v2\n");
				exit(2);
			}
			opt.ring_v3 = !strcmp(optarg, "v3");
			break;
		case O_BLOCKMS: opt.block_ms = (unsigned int)parse_num(optarg, "block-ms"); break;
		case O_RINGMB: opt.ring_mb = (unsigned int)parse_num(optarg, "ring-mb"); break;
		case O_BYPASS: opt.qdisc_bypass = true; break;
		case O_DELAY: opt.delay_us = (unsigned long)parse_num(optarg, "delay"); break;
		case O_ERRLBA: parse_error_lba(optarg); break;
		case O_DROP: opt.drop_every = (unsigned long)parse_num(optarg, "drop-every"); break;
		case O_RESV: {
			unsigned int m[6];
			char tail;

			if (sscanf(optarg, "%x:%x:%x:%x:%x:%x%c", &m[0], &m[1], &m[2], &m[3], &m[4],
				   &m[5], &tail) != 6) {
				fprintf(stderr, PROG ": bad --reserved-for '%s' (a MAC)\n", optarg);
				exit(2);
			}
			for (int i = 0; i < 6; i++) {
				if (m[i] > 0xff) {
					fprintf(stderr, PROG ": bad --reserved-for '%s' (a MAC)\n",
						optarg);
					exit(2);
				}
				opt.resv_mac[i] = (uint8_t)m[i];
			}
			opt.resv_set = true;
			break;
		}
		case 'c': opt.control = optarg; break;
		case 'q': opt.quiet = true; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	if (optind != argc || !opt.nif) {
		usage(stderr);
		exit(2);
	}
	if (opt.bufcnt < 1 || opt.bufcnt > 256 || opt.shelf >= 0xffff || opt.slot >= 0xff ||
	    opt.ring_mb < 1 || opt.ring_mb > 1024 || opt.block_ms > 1000 || opt.fwver > 0xffff ||
	    opt.maxsect > MAX_SECT || (opt.file && opt.volatile_cache)) {
		fprintf(stderr, PROG ": bad option value (bufcnt 1..256, shelf < 65535, slot < 255, "
				"ring-mb 1..1024, --volatile needs the RAM disk)\n");
		exit(2);
	}
	if (size) {
		if (size % 512) {
			fprintf(stderr, PROG ": size is not a multiple of 512\n");
			exit(2);
		}
		opt.sectors = size / 512;
	} else if (opt.file) {
		opt.sectors = 0;
	}
	if (opt.workers <= 0) {
		opt.workers = (int)sysconf(_SC_NPROCESSORS_ONLN) / 2;
		if (opt.workers < 1)
			opt.workers = 1;
	}
	if (opt.workers > MAX_WORKERS)
		opt.workers = MAX_WORKERS;
}

static void open_backend(void)
{
	if (opt.file) {
		struct stat stt;
		uint64_t bytes;

		file_fd = open(opt.file, O_RDWR | O_DIRECT);
		if (file_fd < 0)
			die(opt.file);
		if (fstat(file_fd, &stt) < 0)
			die("fstat");
		bytes = (uint64_t)stt.st_size;
		if (S_ISBLK(stt.st_mode) && ioctl(file_fd, BLKGETSIZE64, &bytes) < 0)
			die("BLKGETSIZE64");
		if (!opt.sectors || opt.sectors > bytes / 512)
			opt.sectors = bytes / 512;
	} else {
		disk = mmap(NULL, opt.sectors * 512, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
			    (opt.populate ? MAP_POPULATE : 0), -1, 0);
		if (disk == MAP_FAILED)
			die("mmap(disk)");
		if (opt.volatile_cache) {
			durable = mmap(NULL, opt.sectors * 512, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
			if (durable == MAP_FAILED)
				die("mmap(durable)");
			dirty_words = (opt.sectors + 63) / 64;
			dirty = calloc(dirty_words, sizeof(*dirty));
			if (!dirty)
				die("calloc(dirty)");
		}
	}
	if (opt.lba28 && opt.sectors > 0x0fffffff)
		opt.sectors = 0x0fffffff;
	if (!opt.sectors) {
		fprintf(stderr, PROG ": empty disk\n");
		exit(2);
	}
}

static void open_ifaces(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		die("socket");
	for (int i = 0; i < opt.nif; i++) {
		struct ifreq ifr = { 0 };

		snprintf(ifs[i].name, sizeof(ifs[i].name), "%s", opt.ifnames[i]);
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", opt.ifnames[i]);
		if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0) {
			fprintf(stderr, PROG ": %s: %s\n", opt.ifnames[i], strerror(errno));
			exit(1);
		}
		memcpy(ifs[i].mac, ifr.ifr_hwaddr.sa_data, 6);
		ifs[i].index = (int)if_nametoindex(opt.ifnames[i]);
		ifs[i].mtu = 1500;
		if_mtu(&ifs[i]);
	}
	close(fd);
}

int main(int argc, char **argv)
{
	struct pollfd pfd[2];
	sigset_t sigs;
	int sfd, cfd = -1, group = (int)(getpid() * 7) & 0xfff0;
	char line[256];
	size_t linelen = 0;

	parse_args(argc, argv);
	{
		/* a power cut must not wait behind an endless stream of batches */
		pthread_rwlockattr_t ra;

		pthread_rwlockattr_init(&ra);
		pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
		pthread_rwlock_init(&cut_lock, &ra);
	}
	open_backend();
	open_ifaces();
	build_identify();

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGUSR1);
	sigaddset(&sigs, SIGUSR2);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);	/* workers inherit it */
	signal(SIGPIPE, SIG_IGN);
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	if (sfd < 0)
		die("signalfd");
	if (opt.control) {
		if (mkfifo(opt.control, 0600) < 0 && errno != EEXIST)
			die(opt.control);
		/* O_RDWR: never an EOF when a writer goes away */
		cfd = open(opt.control, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (cfd < 0)
			die(opt.control);
	}

	workers = aligned_alloc(64, sizeof(*workers) * (size_t)opt.workers);
	if (!workers)
		die("alloc");
	memset(workers, 0, sizeof(*workers) * (size_t)opt.workers);
	for (int i = 0; i < opt.workers; i++) {
		struct worker *w = &workers[i];

		w->id = i;
		for (int k = 0; k < opt.nif; k++)
			ring_open(&w->rings[k], k, group + k);
		if (file_fd >= 0) {
			if (io_setup(BATCH, &w->aio) < 0)
				die("io_setup");
			for (int k = 0; k < BATCH; k++) {
				w->tx[k].buf = aligned_alloc(4096, MAX_SECT * 512 + 512);
				if (!w->tx[k].buf)
					die("alloc");
			}
		}
	}
	for (int i = 0; i < opt.workers; i++) {
		errno = pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]);
		if (errno)
			die("pthread_create");
	}
	announce();
	if (!opt.quiet) {
		printf(PROG ": e%u.%u, %llu sectors (%s%s%s), %d workers, ring %s, bufcnt %u, on",
		       opt.shelf, opt.slot, (unsigned long long)opt.sectors,
		       opt.file ? opt.file : "RAM", opt.volatile_cache ? ", volatile cache" : "",
		       opt.lba28 ? ", LBA28" : "", opt.workers, opt.ring_v3 ? "v3" : "v2", opt.bufcnt);
		for (int i = 0; i < opt.nif; i++)
			printf(" %s (MTU %d)", ifs[i].name, ifs[i].mtu);
		printf("\n");
		fflush(stdout);
	}

	pfd[0].fd = sfd;
	pfd[0].events = POLLIN;
	pfd[1].fd = cfd;
	pfd[1].events = POLLIN;
	while (!stop) {
		if (poll(pfd, cfd >= 0 ? 2 : 1, 500) <= 0)
			continue;
		if (pfd[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGUSR1)
					power_cut(false);
				else if (si.ssi_signo == SIGUSR2)
					print_status();
				else
					stop = 1;
			}
		}
		if (cfd >= 0 && (pfd[1].revents & POLLIN)) {
			ssize_t n = read(cfd, line + linelen, sizeof(line) - 1 - linelen);

			if (n > 0) {
				char *nl;

				linelen += (size_t)n;
				line[linelen] = 0;
				while ((nl = memchr(line, '\n', linelen))) {
					*nl = 0;
					control_cmd(line);
					linelen -= (size_t)(nl + 1 - line);
					memmove(line, nl + 1, linelen);
				}
				if (linelen == sizeof(line) - 1)
					linelen = 0;	/* an overlong line: dropped */
			}
		}
	}
	for (int i = 0; i < opt.workers; i++)
		pthread_join(workers[i].thread, NULL);
	print_status();
	return 0;
}
