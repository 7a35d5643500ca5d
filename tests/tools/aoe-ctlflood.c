// SPDX-License-Identifier: GPL-2.0
/*
 * aoe-ctlflood: generic netlink requests no well-behaved tool makes.
 *
 *   aoe-ctlflood N SHELF SLOT [TIMEOUT_MS]
 *
 * N AOE_CMD_CTL Query Config reads of eSHELF.SLOT on one socket, then exit
 * (the socket is closed: the module must drop those requests,
 * NETLINK_URELEASE) without waiting for any result. Prints "accepted A busy
 * B other C" (the doit's replies: a cookie, -EBUSY, anything else) and exits
 * 0 when every request got a reply, 1 otherwise. For VM scenario 56: the
 * aoekit tools are C++ binaries too heavy to start 64 of at once under TCG.
 *
 *   aoe-ctlflood --pending-dump WAIT_MS
 *
 * Waits (up to WAIT_MS) for the family to appear, fills the socket's
 * receive buffer with the controller's replies, then asks for an
 * AOE_CMD_GET_TARGET dump: with no room, the dump's first part waits for a
 * recvmsg(). Waits until /sys/module/aoe is gone (up to WAIT_MS), then
 * reads everything, which runs a dump left pending. Prints "dump refused
 * (errno)", "no answer to the dump" (refused, its error dropped for want
 * of room) or "dump ran: N messages". For VM scenario 18: a dump started
 * during a failing init must be refused, or it outlives the module.
 *
 * Exit status 2 on usage or socket errors.
 */
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "aoe_netlink.h"

#define BUFSZ 8192

struct msg {
	struct nlmsghdr n;
	struct genlmsghdr g;
	char attrs[256];
};

static size_t put_attr(struct msg *m, size_t off, uint16_t type, const void *data, uint16_t len)
{
	struct nlattr *a = (struct nlattr *)(m->attrs + off);

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((char *)a + NLA_HDRLEN, data, len);
	return off + NLA_ALIGN(a->nla_len);
}

static void send_msg(int fd, struct msg *m, size_t alen, uint16_t type, uint8_t cmd, uint32_t seq,
		     uint16_t flags)
{
	m->n.nlmsg_len = (uint32_t)(NLMSG_HDRLEN + GENL_HDRLEN + alen);
	m->n.nlmsg_type = type;
	m->n.nlmsg_flags = (uint16_t)(NLM_F_REQUEST | flags);
	m->n.nlmsg_seq = seq;
	m->n.nlmsg_pid = 0;
	m->g.cmd = cmd;
	m->g.version = AOE_GENL_VERSION;
	m->g.reserved = 0;
	if (send(fd, m, m->n.nlmsg_len, 0) < 0) {
		perror("aoe-ctlflood: send");
		exit(2);
	}
}

/* The family id of "aoe", from the controller; 0 if there is none. */
static uint16_t family_id(int fd)
{
	static char buf[BUFSZ];
	struct msg m = { 0 };
	size_t off = put_attr(&m, 0, CTRL_ATTR_FAMILY_NAME, AOE_GENL_NAME, sizeof(AOE_GENL_NAME));
	ssize_t n;

	send_msg(fd, &m, off, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, 0);
	n = recv(fd, buf, sizeof(buf), 0);
	for (struct nlmsghdr *h = (struct nlmsghdr *)buf; n > 0 && NLMSG_OK(h, (size_t)n);
	     h = NLMSG_NEXT(h, n)) {
		struct nlattr *a;
		int left;

		if (h->nlmsg_type != GENL_ID_CTRL)
			break;
		a = (struct nlattr *)((char *)NLMSG_DATA(h) + GENL_HDRLEN);
		left = (int)h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
		while (left >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= left) {
			if (a->nla_type == CTRL_ATTR_FAMILY_ID && a->nla_len >= NLA_HDRLEN + 2) {
				uint16_t id;

				memcpy(&id, (char *)a + NLA_HDRLEN, 2);
				return id;
			}
			left -= NLA_ALIGN(a->nla_len);
			a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
		}
	}
	return 0;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static int pending_dump(int fd, long wait_ms)
{
	static char buf[BUFSZ];
	long t0 = now_ms();
	int small = 1, msgs = 0, refused = 0;
	struct stat st;
	uint16_t fam;
	ssize_t len;

	while (!(fam = family_id(fd))) {
		if (now_ms() - t0 > wait_ms) {
			fprintf(stderr, "aoe-ctlflood: no family \"%s\" within %ld ms\n",
				AOE_GENL_NAME, wait_ms);
			return 2;
		}
		usleep(20000);
	}
	/* the smallest buffer, filled with replies nobody reads yet */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small))) {
		perror("aoe-ctlflood: SO_RCVBUF");
		return 2;
	}
	for (uint32_t i = 0; i < 32; i++) {
		struct msg m = { 0 };
		size_t off = put_attr(&m, 0, CTRL_ATTR_FAMILY_NAME, AOE_GENL_NAME,
				      sizeof(AOE_GENL_NAME));

		send_msg(fd, &m, off, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 10 + i, 0);
	}
	{
		struct msg m = { 0 };

		send_msg(fd, &m, 0, fam, AOE_CMD_GET_TARGET, 99, NLM_F_DUMP);
	}
	printf("family %u: dump asked with the receive buffer full\n", fam);
	fflush(stdout);
	while (!stat("/sys/module/aoe", &st) && now_ms() - t0 < 2 * wait_ms)
		usleep(50000);
	printf("module %s; reading\n", stat("/sys/module/aoe", &st) ? "gone" : "still loaded");
	fflush(stdout);
	for (;;) {
		len = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (len < 0 && errno == ENOBUFS)
			continue;	/* the replies dropped for want of room */
		if (len <= 0)
			break;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)len);
		     h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_seq != 99)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR &&
			    h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct nlmsgerr))) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				if (e->error)
					refused = -e->error;
			}
			msgs++;
		}
	}
	if (refused)
		printf("dump refused (%s)\n", strerror(refused));
	else if (msgs)
		printf("dump ran: %d messages\n", msgs);
	else
		printf("no answer to the dump (refused while the buffer was full)\n");
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	static char buf[BUFSZ];
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 5 };
	unsigned int n, got = 0, accepted = 0, busy = 0, other = 0;
	uint32_t tmo = 10000;
	uint16_t shelf, fam;
	uint8_t slot, cmd = 1;	/* Query Config */
	int fd;

	if (argc == 3 && !strcmp(argv[1], "--pending-dump")) {
		fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
		if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
		    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
			perror("aoe-ctlflood: socket");
			return 2;
		}
		return pending_dump(fd, strtol(argv[2], NULL, 0));
	}
	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: aoe-ctlflood N SHELF SLOT [TIMEOUT_MS]\n"
			"       aoe-ctlflood --pending-dump WAIT_MS\n");
		return 2;
	}
	n = (unsigned int)strtoul(argv[1], NULL, 0);
	shelf = (uint16_t)strtoul(argv[2], NULL, 0);
	slot = (uint8_t)strtoul(argv[3], NULL, 0);
	if (argc == 5)
		tmo = (uint32_t)strtoul(argv[4], NULL, 0);
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		perror("aoe-ctlflood: socket");
		return 2;
	}
	fam = family_id(fd);
	if (!fam) {
		fprintf(stderr, "aoe-ctlflood: no generic netlink family \"%s\"\n", AOE_GENL_NAME);
		return 2;
	}
	for (unsigned int i = 0; i < n; i++) {
		struct msg m = { 0 };
		uint32_t cookie = i + 1;
		size_t off = 0;

		off = put_attr(&m, off, AOE_A_SHELF, &shelf, 2);
		off = put_attr(&m, off, AOE_A_SLOT, &slot, 1);
		off = put_attr(&m, off, AOE_A_CTL_CMD, &cmd, 1);
		off = put_attr(&m, off, AOE_A_CTL_COOKIE, &cookie, 4);
		off = put_attr(&m, off, AOE_A_CTL_TIMEOUT_MS, &tmo, 4);
		send_msg(fd, &m, off, fam, AOE_CMD_CTL, 100 + i, NLM_F_ACK);
	}
	/* each request: a reply with the cookie and an ack, or an error */
	while (got < n) {
		ssize_t len = recv(fd, buf, sizeof(buf), 0);

		if (len < 0)
			break;		/* SO_RCVTIMEO: a reply missing */
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)len);
		     h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_type == NLMSG_ERROR &&
			    h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct nlmsgerr))) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				got++;
				if (!e->error)
					accepted++;
				else if (e->error == -EBUSY)
					busy++;
				else
					other++;
			}
		}
	}
	printf("accepted %u busy %u other %u\n", accepted, busy, other);
	close(fd);
	return got == n ? 0 : 1;
}
