// SPDX-License-Identifier: GPL-2.0
/*
 * aoe-target28: a minimal scripted AoE target for the VM suite. Raw
 * AF_PACKET, one interface, the disk kept sparsely in memory (only written
 * sectors take memory; unwritten ones read as zeros).
 *
 * Default (28-bit) mode: IDENTIFY reports the capacity in words 60-61 and no
 * LBA48 support (word 83 bit 10 clear, words 100-103 zero); READ SECTORS
 * (0x20) and WRITE SECTORS (0x30) work; LBA48 commands (0x24, 0x34, or the
 * AoE extended-LBA flag) are aborted and counted.
 *
 * --lba48: a 48-bit device (word 83 bit 10, capacity in words 100-103, words
 * 60-61 hold min(capacity, 2^28 - 1)); 0x20/0x30 and 0x24/0x34 all work, so
 * a capacity above 2^28 sectors can be addressed.
 *
 * --ident-ctl FILE: read before every IDENTIFY answer; its first word picks
 * what the answer says (a missing or empty file means "normal"):
 *   normal   the device as configured
 *   zeros    512 zero bytes (no capacity)
 *   garbage  512 pseudo-random bytes (the same every time)
 *   small    the capacity minus --small-by sectors (default 1024)
 *   lba28    a 28-bit-only device of 2^28 - 1 sectors (word 83 bit 10 clear)
 * Only the answer changes: the disk itself keeps its mode and capacity.
 *
 * --log FILE: one line per ATA command received, flushed at once:
 *   ata cmd 0x34 lba 268435461 count 2
 *
 *   aoe-target28 -i IFACE [-s SECTORS] [--lba48] [--ident-ctl FILE]
 *                [--small-by N] [--log FILE] [--shelf N] [--slot N]
 *
 * On SIGTERM/SIGINT it prints a summary line:
 *   aoe-target28: reads N writes N identify N lba48 N other N
 * (lba48 counts aborted LBA48 commands in 28-bit mode) and exits 0.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef ETH_P_AOE
#define ETH_P_AOE 0x88a2
#endif
#define HDR 24
#define ATA_HDR 36
#define LBA28_MAX 0x0fffffffULL

static volatile sig_atomic_t stop;
static unsigned long n_read, n_write, n_ident, n_lba48, n_other;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

/* ATA IDENTIFY strings: two characters per 16-bit word, high byte first. */
static void ident_str(uint16_t *id, int word, int len, const char *s)
{
	int i;

	for (i = 0; i < len; i += 2) {
		char a = *s ? *s++ : ' ';
		char b = *s ? *s++ : ' ';

		id[word + i / 2] = (uint16_t)((uint8_t)a << 8 | (uint8_t)b);
	}
}

/*
 * The sparse disk: open addressing from sector number to a 512-byte block.
 * Slot keys are sector + 1 (0 marks an empty slot).
 */
static uint64_t *map_key;
static uint8_t **map_blk;
static size_t map_cap, map_used;

static size_t map_slot(uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ULL;
	size_t i = (size_t)(h >> 20) & (map_cap - 1);

	while (map_key[i] && map_key[i] != key)
		i = (i + 1) & (map_cap - 1);
	return i;
}

static int map_grow(void)
{
	uint64_t *ok = map_key;
	uint8_t **ob = map_blk;
	size_t ocap = map_cap, i;

	map_cap = ocap ? 2 * ocap : 4096;
	map_key = calloc(map_cap, sizeof(*map_key));
	map_blk = calloc(map_cap, sizeof(*map_blk));
	if (!map_key || !map_blk)
		return -1;
	for (i = 0; i < ocap; i++) {
		if (ok[i]) {
			size_t s = map_slot(ok[i]);

			map_key[s] = ok[i];
			map_blk[s] = ob[i];
		}
	}
	free(ok);
	free(ob);
	return 0;
}

static const uint8_t *disk_read(uint64_t sector)
{
	static const uint8_t zero[512];
	size_t s;

	if (!map_cap)
		return zero;
	s = map_slot(sector + 1);
	return map_key[s] ? map_blk[s] : zero;
}

static int disk_write(uint64_t sector, const uint8_t *data)
{
	size_t s;

	if (2 * (map_used + 1) > map_cap && map_grow())
		return -1;
	s = map_slot(sector + 1);
	if (!map_key[s]) {
		map_blk[s] = malloc(512);
		if (!map_blk[s])
			return -1;
		map_key[s] = sector + 1;
		map_used++;
	}
	memcpy(map_blk[s], data, 512);
	return 0;
}

/* The device's model string: its own (--lba48), whatever an answer says. */
static int dev_lba48;

static void ident_build(uint16_t *id, int lba48, uint64_t sectors)
{
	uint64_t s28 = sectors > LBA28_MAX ? LBA28_MAX : sectors;

	memset(id, 0, 512);
	id[0] = 0x0040;				/* fixed device */
	ident_str(id, 10, 20, "AOE28SERIAL");
	ident_str(id, 23, 8, "1.0");
	ident_str(id, 27, 40, dev_lba48 ? "aoekit lba48 test target" :
					  "aoekit lba28 test target");
	id[47] = 0x8001;
	id[49] = 0x0200;			/* LBA supported */
	id[60] = s28 & 0xffff;			/* 28-bit capacity */
	id[61] = (uint16_t)(s28 >> 16);
	id[83] = lba48 ? 0x4400 : 0x4000;	/* valid, LBA48 in bit 10 */
	id[86] = lba48 ? 0x0400 : 0x0000;
	if (lba48) {
		id[100] = sectors & 0xffff;
		id[101] = (sectors >> 16) & 0xffff;
		id[102] = (sectors >> 32) & 0xffff;
		id[103] = (sectors >> 48) & 0xffff;
	}
}

/* The IDENTIFY answer, as --ident-ctl says now. */
static void ident_answer(uint16_t *id, const char *ctl, int lba48,
			 uint64_t sectors, uint64_t small_by, FILE *log)
{
	char mode[32] = "normal";
	FILE *f = ctl ? fopen(ctl, "r") : NULL;

	if (f) {
		if (fscanf(f, "%31s", mode) != 1)
			strcpy(mode, "normal");
		fclose(f);
	}
	if (!strcmp(mode, "zeros")) {
		memset(id, 0, 512);
	} else if (!strcmp(mode, "garbage")) {
		uint32_t x = 0x2545f491;	/* xorshift32, fixed seed */

		for (int i = 0; i < 256; i++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			id[i] = (uint16_t)(x >> 8);
		}
	} else if (!strcmp(mode, "small")) {
		ident_build(id, lba48, sectors > small_by ? sectors - small_by : 1);
	} else if (!strcmp(mode, "lba28")) {
		ident_build(id, 0, LBA28_MAX);
	} else {
		if (strcmp(mode, "normal"))
			fprintf(stderr, "aoe-target28: unknown IDENTIFY mode \"%s\", answering normal\n",
				mode);
		strcpy(mode, "normal");
		ident_build(id, lba48, sectors);
	}
	if (log)
		fprintf(log, "identify %s\n", mode);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: aoe-target28 -i IFACE [-s SECTORS] [--lba48] [--ident-ctl FILE]\n"
		   "                    [--small-by N] [--log FILE] [--shelf N] [--slot N]\n"
		   "  an AoE target on a sparse in-memory disk (default 40000 sectors, 28-bit LBA\n"
		   "  only); see the comment at the top of tests/tools/aoe-target28.c\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "iface", required_argument, NULL, 'i' },
		{ "sectors", required_argument, NULL, 's' },
		{ "shelf", required_argument, NULL, 'S' },
		{ "slot", required_argument, NULL, 'L' },
		{ "lba48", no_argument, NULL, '4' },
		{ "ident-ctl", required_argument, NULL, 'c' },
		{ "small-by", required_argument, NULL, 'b' },
		{ "log", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *ifname = NULL, *ctl = NULL, *logname = NULL;
	unsigned long long sectors = 40000, small_by = 1024;
	unsigned int shelf = 1, slot = 2;
	struct sockaddr_ll sll = { 0 };
	struct sigaction sa = { 0 };
	uint8_t mymac[6], buf[9100], out[9100];
	uint16_t ident[256];
	struct ifreq ifr = { 0 };
	FILE *log = NULL;
	int c, fd, lba48 = 0;

	while ((c = getopt_long(argc, argv, "i:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i': ifname = optarg; break;
		case 's': sectors = strtoull(optarg, NULL, 0); break;
		case 'S': shelf = strtoul(optarg, NULL, 0); break;
		case 'L': slot = strtoul(optarg, NULL, 0); break;
		case '4': lba48 = dev_lba48 = 1; break;
		case 'c': ctl = optarg; break;
		case 'b': small_by = strtoull(optarg, NULL, 0); break;
		case 'l': logname = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!ifname || sectors == 0 || (!lba48 && sectors > LBA28_MAX) ||
	    sectors > (1ULL << 48)) {
		usage(stderr);
		return 2;
	}
	if (logname) {
		log = fopen(logname, "w");
		if (!log) {
			perror("aoe-target28: log");
			return 1;
		}
		setvbuf(log, NULL, _IOLBF, 0);
	}
	fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_AOE));
	if (fd < 0) {
		perror("aoe-target28: socket");
		return 1;
	}
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0) {
		perror("aoe-target28: SIOCGIFHWADDR");
		return 1;
	}
	memcpy(mymac, ifr.ifr_hwaddr.sa_data, 6);
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_AOE);
	sll.sll_ifindex = (int)if_nametoindex(ifname);
	if (!sll.sll_ifindex || bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		perror("aoe-target28: bind");
		return 1;
	}
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	for (int first = 1; !stop; first = 0) {
		ssize_t n;
		size_t len = 0;
		uint8_t ver_flags, cmd;

		if (first) {
			/* Announce ourselves as a target does when it starts. */
			n = 0;
			buf[14] = 0x10;
			buf[19] = 1;
			memset(buf, 0xff, 6);
			memset(buf + 6, 0, 6);
			memset(buf + 20, 0, 4);
			put16(buf + 16, (uint16_t)shelf);
			buf[18] = (uint8_t)slot;
		} else {
			n = recv(fd, buf, sizeof(buf), 0);
			if (n < 0) {
				if (errno == EINTR)
					continue;
				perror("aoe-target28: recv");
				return 1;
			}
			if (n < HDR)
				continue;
		}
		ver_flags = buf[14];
		cmd = buf[19];
		if (!first && ((ver_flags >> 4) != 1 || (ver_flags & 0x08)))
			continue;	/* not AoE v1, or a response */
		{
			unsigned int sh = (unsigned int)buf[16] << 8 | buf[17];

			if ((sh != shelf && sh != 0xffff) || (buf[18] != slot && buf[18] != 0xff))
				continue;
		}
		memcpy(out, first ? (const uint8_t[6]){ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } : buf + 6, 6);
		memcpy(out + 6, mymac, 6);
		put16(out + 12, ETH_P_AOE);
		out[14] = 0x18;				/* version 1, response */
		out[15] = 0;
		put16(out + 16, (uint16_t)shelf);
		out[18] = (uint8_t)slot;
		out[19] = cmd;
		memcpy(out + 20, buf + 20, 4);		/* tag */
		if (cmd == 1) {				/* Query Config */
			memset(out + 24, 0, 8);
			put16(out + 24, 16);		/* buffer count */
			put16(out + 26, 0x4019);	/* firmware version */
			out[28] = 2;			/* sectors per frame */
			out[29] = 0x10;			/* AoE version 1, ccmd read */
			len = 32;
		} else if (cmd == 0 && n >= ATA_HDR) {
			uint8_t aflags = buf[24], count = buf[26], ata = buf[27];
			int ext = ata == 0x24 || ata == 0x34;
			uint64_t lba = buf[28] | buf[29] << 8 | (uint64_t)buf[30] << 16;
			size_t bytes = (size_t)count * 512;

			if (ext || (aflags & 0x40))
				lba |= (uint64_t)buf[31] << 24 | (uint64_t)buf[32] << 32 |
				       (uint64_t)buf[33] << 40;
			else
				lba |= (uint64_t)(buf[31] & 0x0f) << 24;
			if (log)
				fprintf(log, "ata cmd 0x%02x lba %llu count %u\n", ata,
					(unsigned long long)lba, count);
			memcpy(out + 24, buf + 24, 12);
			out[25] = 0;
			out[27] = 0x40;			/* DRDY */
			len = ATA_HDR;
			if (!lba48 && (aflags & 0x40 || ext)) {
				n_lba48++;
				fprintf(stderr, "aoe-target28: LBA48 command 0x%02x (aflags 0x%02x) aborted\n",
					ata, aflags);
				out[25] = 0x04;		/* ABRT */
				out[27] = 0x41;		/* DRDY | ERR */
			} else if (ata == 0xec) {
				n_ident++;
				ident_answer(ident, ctl, lba48, sectors, small_by, log);
				for (int i = 0; i < 256; i++) {
					out[ATA_HDR + 2 * i] = ident[i] & 0xff;
					out[ATA_HDR + 2 * i + 1] = ident[i] >> 8;
				}
				len += 512;
			} else if ((ata == 0x20 || ata == 0x30 || ata == 0x24 || ata == 0x34) &&
				   lba + count <= sectors && ATA_HDR + bytes <= sizeof(out)) {
				int ok = 1;

				if (ata == 0x20 || ata == 0x24) {
					n_read++;
					for (unsigned int i = 0; i < count; i++)
						memcpy(out + ATA_HDR + 512 * i,
						       disk_read(lba + i), 512);
					len += bytes;
				} else if ((size_t)n >= ATA_HDR + bytes) {
					n_write++;
					for (unsigned int i = 0; i < count && ok; i++)
						ok = !disk_write(lba + i, buf + ATA_HDR + 512 * i);
				} else {
					ok = 0;
				}
				if (!ok) {
					out[25] = 0x04;
					out[27] = 0x41;
				}
			} else if (ata == 0xe7 || ata == 0xea) {
				n_other++;		/* flush: nothing to do */
			} else {
				n_other++;
				out[25] = 0x04;
				out[27] = 0x41;
			}
		} else {
			continue;
		}
		if (len < 60) {
			memset(out + len, 0, 60 - len);
			len = 60;
		}
		if (send(fd, out, len, 0) < 0 && errno != EINTR)
			perror("aoe-target28: send");
	}
	printf("aoe-target28: reads %lu writes %lu identify %lu lba48 %lu other %lu\n",
	       n_read, n_write, n_ident, n_lba48, n_other);
	return 0;
}
