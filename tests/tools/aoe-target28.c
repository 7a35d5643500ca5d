// SPDX-License-Identifier: GPL-2.0
/*
 * aoe-target28: a minimal scripted AoE target for the VM suite that only
 * speaks 28-bit LBA: IDENTIFY reports the capacity in words 60-61 and no
 * LBA48 support (word 83 bit 10 clear, words 100-103 zero); READ SECTORS
 * (0x20) and WRITE SECTORS (0x30) work on an in-memory disk; LBA48 commands
 * (0x24, 0x34) are aborted and counted. Raw AF_PACKET, one interface.
 *
 *   aoe-target28 -i IFACE [-s SECTORS] [--shelf N] [--slot N]
 *
 * On SIGTERM/SIGINT it prints a summary line:
 *   aoe-target28: reads N writes N identify N lba48 N other N
 * and exits 0.
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

static void usage(FILE *f)
{
	fprintf(f, "usage: aoe-target28 -i IFACE [-s SECTORS] [--shelf N] [--slot N]\n"
		   "  a 28-bit-LBA-only AoE target on an in-memory disk (default 40000 sectors)\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "iface", required_argument, NULL, 'i' },
		{ "sectors", required_argument, NULL, 's' },
		{ "shelf", required_argument, NULL, 'S' },
		{ "slot", required_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *ifname = NULL;
	unsigned long sectors = 40000;
	unsigned int shelf = 1, slot = 2;
	struct sockaddr_ll sll = { 0 };
	struct sigaction sa = { 0 };
	uint8_t mymac[6], buf[9100], out[9100];
	uint16_t ident[256] = { 0 };
	struct ifreq ifr = { 0 };
	uint8_t *disk;
	int c, fd;

	while ((c = getopt_long(argc, argv, "i:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i': ifname = optarg; break;
		case 's': sectors = strtoul(optarg, NULL, 0); break;
		case 'S': shelf = strtoul(optarg, NULL, 0); break;
		case 'L': slot = strtoul(optarg, NULL, 0); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!ifname || sectors == 0 || sectors >= (1UL << 28)) {
		usage(stderr);
		return 2;
	}
	disk = calloc(sectors, 512);
	if (!disk) {
		perror("aoe-target28: calloc");
		return 1;
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

	ident[0] = 0x0040;			/* fixed device */
	ident_str(ident, 10, 20, "AOE28SERIAL");
	ident_str(ident, 23, 8, "1.0");
	ident_str(ident, 27, 40, "aoekit lba28 test target");
	ident[47] = 0x8001;
	ident[49] = 0x0200;			/* LBA supported */
	ident[60] = sectors & 0xffff;		/* 28-bit capacity */
	ident[61] = sectors >> 16;
	ident[83] = 0x4000;			/* valid, no LBA48 (bit 10) */
	ident[86] = 0x0000;

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
			unsigned long lba = buf[28] | buf[29] << 8 | (unsigned long)buf[30] << 16 |
					    (unsigned long)(buf[31] & 0x0f) << 24;
			size_t bytes = (size_t)count * 512;

			memcpy(out + 24, buf + 24, 12);
			out[25] = 0;
			out[27] = 0x40;			/* DRDY */
			len = ATA_HDR;
			if (aflags & 0x40 || ata == 0x24 || ata == 0x34) {
				n_lba48++;
				fprintf(stderr, "aoe-target28: LBA48 command 0x%02x (aflags 0x%02x) aborted\n",
					ata, aflags);
				out[25] = 0x04;		/* ABRT */
				out[27] = 0x41;		/* DRDY | ERR */
			} else if (ata == 0xec) {
				n_ident++;
				for (int i = 0; i < 256; i++) {
					out[ATA_HDR + 2 * i] = ident[i] & 0xff;
					out[ATA_HDR + 2 * i + 1] = ident[i] >> 8;
				}
				len += 512;
			} else if ((ata == 0x20 || ata == 0x30) && lba + count <= sectors &&
				   ATA_HDR + bytes <= sizeof(out)) {
				if (ata == 0x20) {
					n_read++;
					memcpy(out + ATA_HDR, disk + lba * 512, bytes);
					len += bytes;
				} else if ((size_t)n >= ATA_HDR + bytes) {
					n_write++;
					memcpy(disk + lba * 512, buf + ATA_HDR, bytes);
				} else {
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
