// SPDX-License-Identifier: GPL-2.0
/*
 * aoe-inject: send hand-made AoE response frames out of an interface, valid
 * or malformed in one specific way, to test an initiator's receive path.
 * Test tool of the VM suite (tests/vm); built by tests/vm/run.sh with
 *   gcc -I kmod -I kmod/uapi tests/tools/aoe-inject.c kmod/aoe_codec.c
 * Run "aoe-inject --help" for the usage.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "aoe_codec.h"
#include "aoe_netlink.h"

#define FRAME_MAX 9018

enum kind {
	K_CONFIG, K_SHORT, K_VERSION, K_NOT_RESPONSE, K_RESERVED_FLAGS,
	K_ERROR, K_BCAST_ADDR, K_MCAST_SRC, K_ZERO_SRC, K_CFG_OVERRUN,
	K_CFG_TOO_LONG, K_UNKNOWN_CMD, K_ATA_UNKNOWN_TAG, K_USER_TAG,
	K_GARBAGE, K_CONFIG_FLOOD, K_ATA_GUESS, K_CONFIG_MACS,
};

static const struct {
	const char *name;
	const char *help;
} kinds[] = {
	[K_CONFIG] = { "config", "valid Query Config response" },
	[K_SHORT] = { "short", "config response cut to --len bytes (default: 14..31 in turn)" },
	[K_VERSION] = { "bad-version", "protocol version 2 (then 0, 3, ...)" },
	[K_NOT_RESPONSE] = { "not-response", "R flag clear (a request)" },
	[K_RESERVED_FLAGS] = { "reserved-flags", "R plus reserved flag bits 0x1/0x2" },
	[K_ERROR] = { "error", "E flag set, error code 2 (bad argument)" },
	[K_BCAST_ADDR] = { "bcast-addr", "shelf 0xffff or slot 0xff, alternately" },
	[K_MCAST_SRC] = { "mcast-src", "multicast source MAC 01:00:5e:00:00:01" },
	[K_ZERO_SRC] = { "zero-src", "source MAC 00:00:00:00:00:00" },
	[K_CFG_OVERRUN] = { "cfg-overrun", "config length 100 bytes beyond the frame" },
	[K_CFG_TOO_LONG] = { "cfg-too-long", "config length 1025 (all bytes present)" },
	[K_UNKNOWN_CMD] = { "unknown-cmd", "AoE command --cmd (default 0x0a)" },
	[K_ATA_UNKNOWN_TAG] = { "ata-unknown-tag", "ATA response with a tag never sent (bit 31 clear)" },
	[K_USER_TAG] = { "user-tag", "ATA response with tag bit 31 set" },
	[K_GARBAGE] = { "garbage", "random bytes after the EtherType, 14..1514 long" },
	[K_CONFIG_FLOOD] = { "config-flood", "valid Query Config announcements, frame i for shelf --shelf + i / 250,\n"
			     "                   slot i % 250, from source MAC 02:ae:00:i (ignores -s)" },
	[K_ATA_GUESS] = { "ata-guess", "forged ATA READ answers carrying --data bytes of 0x5a, tags by --tags:\n"
			  "                   seq (--tag + i, modulo --tag-span when given) or random (31 bits)" },
	[K_CONFIG_MACS] = { "config-macs", "valid Query Config announcements for --shelf.--slot, frame i from\n"
			    "                   source MAC 02:ad:00:i (ignores -s): a spoofer of many MACs" },
};

struct opts {
	const char *ifname;
	uint8_t dst[6], src[6];
	int have_src;
	unsigned long count, interval_us, burst, seed;
	uint16_t shelf, bufcnt, fwver;
	uint8_t slot, maxsect, cmd;
	uint32_t tag, tag_span;
	const char *config;
	long len;
	unsigned long duration_ms, data;
	int random_tags;
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"usage: aoe-inject -i IFACE [-d DSTMAC] [-s SRCMAC] [-n COUNT] [options] KIND\n"
		"Send COUNT AoE response frames of one KIND out of IFACE (needs CAP_NET_RAW).\n\n"
		"  -i, --iface IFACE     interface to send on (required)\n"
		"  -d, --dst MAC         destination (default ff:ff:ff:ff:ff:ff)\n"
		"  -s, --src MAC         source, i.e. the pretended target (default: IFACE's)\n"
		"  -n, --count N         frames to send (default 1)\n"
		"  -w, --interval-us N   pause between frames (default 0)\n"
		"  -b, --burst N         pause only after every N frames (default 1)\n"
		"      --shelf N         major address (default 1)\n"
		"      --slot N          minor address (default 2)\n"
		"      --bufcnt N        Query Config buffer count (default 16)\n"
		"      --fwver N         firmware version (default 0x4019)\n"
		"      --maxsect N       sectors per frame (default 2)\n"
		"      --config STR      config string (default empty)\n"
		"      --tag N           tag (default 0; per-frame tags for ATA kinds)\n"
		"      --cmd N           command for unknown-cmd (default 0x0a)\n"
		"      --len N           frame length for short (14..)\n"
		"      --seed N          random seed for garbage and random tags (default 1)\n"
		"      --tags seq|random how ata-guess picks tags (default seq)\n"
		"      --tag-span N      seq tags wrap after N (default 0: never)\n"
		"      --data N          data bytes in an ata-guess answer (default 1024)\n"
		"      --duration-ms N   stop after N ms even when COUNT frames are not all sent\n"
		"  -h, --help            this text\n\nKIND:\n");
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		fprintf(f, "  %-16s %s\n", kinds[i].name, kinds[i].help);
	fprintf(f, "\nExit status: 0 all sent, 1 send error, 2 usage error.\n");
}

static int parse_mac(const char *s, uint8_t *mac)
{
	unsigned int b[6];
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4],
		   &b[5]) != 6)
		return -1;
	for (i = 0; i < 6; i++) {
		if (b[i] > 0xff)
			return -1;
		mac[i] = b[i];
	}
	return 0;
}

static unsigned long num(const char *s, unsigned long max, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || end == s || v > max) {
		fprintf(stderr, "aoe-inject: bad %s '%s' (0..%lu)\n", what, s, max);
		exit(2);
	}
	return v;
}

/* A Query Config response; returns the frame length. */
static size_t build_config(uint8_t *buf, const struct opts *o, uint8_t flags,
			   size_t cfglen_field, size_t cfglen_real)
{
	aoe_encode_hdr(buf, o->dst, o->src, AOE_FL_RESP | flags, o->shelf,
		       o->slot, AOE_CMD_CFG, o->tag);
	aoe_put_be16(buf + 24, o->bufcnt);
	aoe_put_be16(buf + 26, o->fwver);
	buf[28] = o->maxsect;
	buf[29] = AOE_PROTO_VERSION << 4 | AOE_CCMD_READ;
	aoe_put_be16(buf + 30, cfglen_field);
	if (cfglen_real > strlen(o->config))
		memset(buf + AOE_CFG_HDR_LEN, 'x', cfglen_real);
	memcpy(buf + AOE_CFG_HDR_LEN, o->config,
	       cfglen_real < strlen(o->config) ? cfglen_real : strlen(o->config));
	return AOE_CFG_HDR_LEN + cfglen_real;
}

/* An ATA read response carrying no data (status: ready). */
static size_t build_ata(uint8_t *buf, const struct opts *o, uint32_t tag)
{
	aoe_encode_ata(buf, o->dst, o->src, o->shelf, o->slot, tag,
		       ATA_CMD_READ48, false, true, 0, 0);
	buf[14] |= AOE_FL_RESP;
	buf[27] = 0x40;	/* DRDY */
	return AOE_ATA_HDR_LEN;
}

/* 64-bit xorshift: good enough to spread blind tag guesses. */
static uint64_t xorshift64(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* A forged answer to a READ: status ready and --data bytes of 0x5a. */
static size_t build_guess(uint8_t *buf, const struct opts *o, unsigned long i,
			  uint64_t *rng)
{
	uint32_t tag;

	if (o->random_tags)
		tag = (uint32_t)(xorshift64(rng) >> 16) & ~AOE_TAG_USER;
	else if (o->tag_span)
		tag = o->tag + (uint32_t)(i % o->tag_span);
	else
		tag = o->tag + (uint32_t)i;
	aoe_encode_ata(buf, o->dst, o->src, o->shelf, o->slot, tag,
		       ATA_CMD_READ48, false, true, 0,
		       (uint8_t)(o->data / AOE_SECTOR_SIZE));
	buf[14] |= AOE_FL_RESP;
	buf[27] = 0x40;	/* DRDY */
	memset(buf + AOE_ATA_HDR_LEN, 0x5a, o->data);
	return AOE_ATA_HDR_LEN + o->data;
}

static size_t build(uint8_t *buf, enum kind k, const struct opts *o,
		    unsigned long i, unsigned int *rnd, uint64_t *rng)
{
	size_t n, cl = strlen(o->config);
	struct opts t = *o;
	struct aoe_frame f;

	switch (k) {
	case K_CONFIG:
		return build_config(buf, o, 0, cl, cl);
	case K_SHORT:
		build_config(buf, o, 0, cl, cl);
		return o->len ? (size_t)o->len : 14 + i % (AOE_CFG_HDR_LEN - 14);
	case K_VERSION:
		n = build_config(buf, o, 0, cl, cl);
		buf[14] = (uint8_t)((i % 2 ? 0 : 2 + i % 14) << 4 | AOE_FL_RESP);
		return n;
	case K_NOT_RESPONSE:
		n = build_config(buf, o, 0, cl, cl);
		buf[14] &= ~AOE_FL_RESP;
		return n;
	case K_RESERVED_FLAGS:
		return build_config(buf, o, 1 + i % 3, cl, cl);
	case K_ERROR:
		n = build_config(buf, o, AOE_FL_ERR, cl, cl);
		buf[15] = 2;
		return n;
	case K_BCAST_ADDR:
		if (i % 2)
			t.shelf = AOE_SHELF_ANY;
		else
			t.slot = AOE_SLOT_ANY;
		return build_config(buf, &t, 0, cl, cl);
	case K_MCAST_SRC:
		memcpy(t.src, "\x01\x00\x5e\x00\x00\x01", 6);
		return build_config(buf, &t, 0, cl, cl);
	case K_ZERO_SRC:
		memset(t.src, 0, 6);
		return build_config(buf, &t, 0, cl, cl);
	case K_CFG_OVERRUN:
		return build_config(buf, o, 0, cl + 100, cl);
	case K_CFG_TOO_LONG:
		return build_config(buf, o, 0, AOE_CONFIG_MAXLEN + 1,
				    AOE_CONFIG_MAXLEN + 1);
	case K_UNKNOWN_CMD:
		n = build_config(buf, o, 0, cl, cl);
		buf[19] = o->cmd;
		return n;
	case K_ATA_UNKNOWN_TAG:
		return build_ata(buf, o, (o->tag ? o->tag : 0x7eadbe00u) + i);
	case K_USER_TAG:
		return build_ata(buf, o, (AOE_TAG_USER | o->tag) + i);
	case K_CONFIG_FLOOD:
		t.shelf = (uint16_t)(o->shelf + i / 250);
		t.slot = (uint8_t)(i % 250);
		t.src[0] = 0x02;
		t.src[1] = 0xae;
		t.src[2] = 0;
		t.src[3] = (uint8_t)(i >> 16);
		t.src[4] = (uint8_t)(i >> 8);
		t.src[5] = (uint8_t)i;
		return build_config(buf, &t, 0, cl, cl);
	case K_CONFIG_MACS:
		t.src[0] = 0x02;
		t.src[1] = 0xad;
		t.src[2] = 0;
		t.src[3] = (uint8_t)(i >> 16);
		t.src[4] = (uint8_t)(i >> 8);
		t.src[5] = (uint8_t)i;
		return build_config(buf, &t, 0, cl, cl);
	case K_ATA_GUESS:
		return build_guess(buf, o, i, rng);
	case K_GARBAGE:
		do {
			size_t j;

			n = 14 + rand_r(rnd) % (1514 - 14 + 1);
			memcpy(buf, o->dst, 6);
			memcpy(buf + 6, o->src, 6);
			aoe_put_be16(buf + 12, AOE_ETH_P);
			for (j = 14; j < n; j++)
				buf[j] = rand_r(rnd) & 0xff;
			/* never a valid config response: that would add a target */
		} while (aoe_decode_response(buf, n, n, &f) == 0 &&
			 f.cmd == AOE_CMD_CFG);
		return n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "iface", required_argument, NULL, 'i' },
		{ "dst", required_argument, NULL, 'd' },
		{ "src", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'n' },
		{ "interval-us", required_argument, NULL, 'w' },
		{ "burst", required_argument, NULL, 'b' },
		{ "shelf", required_argument, NULL, 1 },
		{ "slot", required_argument, NULL, 2 },
		{ "bufcnt", required_argument, NULL, 3 },
		{ "fwver", required_argument, NULL, 4 },
		{ "maxsect", required_argument, NULL, 5 },
		{ "config", required_argument, NULL, 6 },
		{ "tag", required_argument, NULL, 7 },
		{ "cmd", required_argument, NULL, 8 },
		{ "len", required_argument, NULL, 9 },
		{ "seed", required_argument, NULL, 10 },
		{ "tags", required_argument, NULL, 11 },
		{ "tag-span", required_argument, NULL, 12 },
		{ "data", required_argument, NULL, 13 },
		{ "duration-ms", required_argument, NULL, 14 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = {
		.count = 1, .burst = 1, .seed = 1, .shelf = 1, .slot = 2, .bufcnt = 16,
		.fwver = 0x4019, .maxsect = 2, .cmd = 0x0a, .config = "",
		.data = 1024,
	};
	static uint8_t buf[FRAME_MAX];
	struct sockaddr_ll sll = { 0 };
	struct timespec t0, now;
	unsigned int rnd;
	uint64_t rng;
	unsigned long i;
	struct ifreq ifr;
	enum kind k;
	size_t ki;
	int c, fd;

	memset(o.dst, 0xff, 6);
	while ((c = getopt_long(argc, argv, "i:d:s:n:w:b:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'i': o.ifname = optarg; break;
		case 'd':
			if (parse_mac(optarg, o.dst)) {
				fprintf(stderr, "aoe-inject: bad MAC '%s'\n", optarg);
				return 2;
			}
			break;
		case 's':
			if (parse_mac(optarg, o.src)) {
				fprintf(stderr, "aoe-inject: bad MAC '%s'\n", optarg);
				return 2;
			}
			o.have_src = 1;
			break;
		case 'n': o.count = num(optarg, 100000000, "count"); break;
		case 'w': o.interval_us = num(optarg, 10000000, "interval"); break;
		case 'b': o.burst = num(optarg, 1000000, "burst"); break;
		case 1: o.shelf = num(optarg, 0xffff, "shelf"); break;
		case 2: o.slot = num(optarg, 0xff, "slot"); break;
		case 3: o.bufcnt = num(optarg, 0xffff, "bufcnt"); break;
		case 4: o.fwver = num(optarg, 0xffff, "fwver"); break;
		case 5: o.maxsect = num(optarg, 0xff, "maxsect"); break;
		case 6:
			o.config = optarg;
			if (strlen(o.config) > AOE_CONFIG_MAXLEN) {
				fprintf(stderr, "aoe-inject: config longer than %d\n",
					AOE_CONFIG_MAXLEN);
				return 2;
			}
			break;
		case 7: o.tag = num(optarg, 0xffffffff, "tag"); break;
		case 8: o.cmd = num(optarg, 0xff, "cmd"); break;
		case 9: o.len = num(optarg, FRAME_MAX, "len"); break;
		case 10: o.seed = num(optarg, 0xffffffff, "seed"); break;
		case 11:
			if (!strcmp(optarg, "random")) {
				o.random_tags = 1;
			} else if (strcmp(optarg, "seq")) {
				fprintf(stderr, "aoe-inject: --tags seq or random\n");
				return 2;
			}
			break;
		case 12: o.tag_span = num(optarg, 0xffffffff, "tag-span"); break;
		case 13:
			o.data = num(optarg, FRAME_MAX - AOE_ATA_HDR_LEN, "data");
			if (o.data % AOE_SECTOR_SIZE || o.data / AOE_SECTOR_SIZE > 255) {
				fprintf(stderr, "aoe-inject: --data must be whole sectors, at most 255\n");
				return 2;
			}
			break;
		case 14: o.duration_ms = num(optarg, 3600000, "duration-ms"); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!o.ifname || optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	for (ki = 0; ki < sizeof(kinds) / sizeof(kinds[0]); ki++)
		if (!strcmp(argv[optind], kinds[ki].name))
			break;
	if (ki == sizeof(kinds) / sizeof(kinds[0])) {
		fprintf(stderr, "aoe-inject: unknown kind '%s' (see --help)\n",
			argv[optind]);
		return 2;
	}
	k = ki;
	if (o.len && o.len < ETH_HLEN) {
		fprintf(stderr, "aoe-inject: --len must be at least %d\n", ETH_HLEN);
		return 2;
	}

	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0) {
		perror("aoe-inject: socket(AF_PACKET) (root or CAP_NET_RAW needed)");
		return 1;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", o.ifname);
	if (ioctl(fd, SIOCGIFINDEX, &ifr) < 0) {
		fprintf(stderr, "aoe-inject: no interface '%s': %s\n", o.ifname,
			strerror(errno));
		return 1;
	}
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = ifr.ifr_ifindex;
	sll.sll_halen = 6;
	if (!o.have_src) {
		if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0) {
			perror("aoe-inject: SIOCGIFHWADDR");
			return 1;
		}
		memcpy(o.src, ifr.ifr_hwaddr.sa_data, 6);
	}

	rnd = o.seed;
	rng = 0x9e3779b97f4a7c15ull ^ o.seed;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < o.count; i++) {
		size_t len = build(buf, k, &o, i, &rnd, &rng);

		if (o.duration_ms && i % 64 == 0) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			if ((now.tv_sec - t0.tv_sec) * 1000 +
			    (now.tv_nsec - t0.tv_nsec) / 1000000 >= (long)o.duration_ms)
				break;
		}

		memcpy(sll.sll_addr, buf, 6);
		if (sendto(fd, buf, len, 0, (struct sockaddr *)&sll,
			   sizeof(sll)) != (ssize_t)len) {
			fprintf(stderr, "aoe-inject: send of %zu bytes on %s: %s\n",
				len, o.ifname, strerror(errno));
			return 1;
		}
		if (o.interval_us && o.burst && (i + 1) % o.burst == 0)
			usleep(o.interval_us);
	}
	printf("aoe-inject: sent %lu %s frame%s on %s\n", i, kinds[k].name,
	       i == 1 ? "" : "s", o.ifname);
	close(fd);
	return 0;
}
