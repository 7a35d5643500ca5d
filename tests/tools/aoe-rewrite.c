// SPDX-License-Identifier: GPL-2.0
/*
 * aoe-rewrite: the stale-write workload of scenario 65. One thread per
 * block writes the block's old data (O_DIRECT) and, the moment that write
 * returns, its new data: the newer write reaches the driver while copies of
 * the old one may still be in the network. --check reads every block back
 * and names each 512-byte sector that does not hold the new data (old: a
 * stale copy landed after the newer write). The data of block i in round r
 * is a function of (r, i, old/new, offset): the check needs no state.
 *
 *   aoe-rewrite [--check] DEVICE ROUND BLOCKS BLOCK_BYTES
 *
 * Blocks are BLOCK_BYTES apart, 2 * BLOCK_BYTES (one gap) between them,
 * round r from block r * BLOCKS on. Prints one line per block: the two
 * write latencies in ms (a write held by the fence shows in the second),
 * or with --check the sectors that are not new. Exit: 0, 1 a sector not
 * new (--check), 2 usage, 3 an I/O error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_BLOCKS 256
#define SECTOR 512

static const char *dev;
static unsigned long round_no, nblocks, bsize;

struct job {
	unsigned long i;
	double ms[2];
	int err;
	pthread_t th;
};

static void fill(unsigned char *buf, unsigned long i, int gen)
{
	uint64_t x = (round_no << 40) ^ (i << 8) ^ (uint64_t)(gen + 1);
	unsigned long k;

	for (k = 0; k < bsize; k += 8) {
		/* splitmix64: every sector different, no two blocks alike */
		uint64_t z = (x += 0x9e3779b97f4a7c15ull);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		z ^= z >> 31;
		memcpy(buf + k, &z, 8);
	}
}

static off_t where(unsigned long i)
{
	return (off_t)((round_no * nblocks + i) * 2) * (off_t)bsize;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void *writer(void *arg)
{
	struct job *j = arg;
	unsigned char *buf;
	int fd, gen;

	if (posix_memalign((void **)&buf, 4096, bsize)) {
		j->err = ENOMEM;
		return NULL;
	}
	fd = open(dev, O_WRONLY | O_DIRECT);
	if (fd < 0) {
		j->err = errno;
		free(buf);
		return NULL;
	}
	for (gen = 0; gen < 2 && !j->err; gen++) {
		double t0 = now_ms();

		fill(buf, j->i, gen);
		if (pwrite(fd, buf, bsize, where(j->i)) != (ssize_t)bsize)
			j->err = errno ? errno : EIO;
		j->ms[gen] = now_ms() - t0;
	}
	close(fd);
	free(buf);
	return NULL;
}

static int check(void)
{
	unsigned char *got, *want_new, *want_old;
	unsigned long i, s;
	int fd, bad = 0;

	want_new = malloc(bsize);
	want_old = malloc(bsize);
	if (posix_memalign((void **)&got, 4096, bsize))
		got = NULL;
	if (!got || !want_new || !want_old) {
		bad = 3;
		goto out;
	}
	fd = open(dev, O_RDONLY | O_DIRECT);
	if (fd < 0) {
		fprintf(stderr, "aoe-rewrite: %s: %s\n", dev, strerror(errno));
		bad = 3;
		goto out;
	}
	for (i = 0; i < nblocks; i++) {
		char line[4096];
		int n = 0, stale = 0;

		if (pread(fd, got, bsize, where(i)) != (ssize_t)bsize) {
			fprintf(stderr, "aoe-rewrite: read of block %lu: %s\n", i, strerror(errno));
			bad = 3;
			break;
		}
		fill(want_new, i, 1);
		fill(want_old, i, 0);
		for (s = 0; s < bsize / SECTOR; s++) {
			const unsigned char *g = got + s * SECTOR;

			if (!memcmp(g, want_new + s * SECTOR, SECTOR))
				continue;
			stale = 1;
			n += snprintf(line + n, sizeof(line) - n, " %lu:%s", s,
				      memcmp(g, want_old + s * SECTOR, SECTOR) ? "other" : "old");
			if (n >= (int)sizeof(line) - 32)
				break;
		}
		if (stale) {
			printf("block %lu at byte %jd: sectors not new:%s\n", i,
			       (intmax_t)where(i), line);
			bad = 1;
		}
	}
	close(fd);
out:
	free(got);
	free(want_new);
	free(want_old);
	return bad;
}

int main(int argc, char **argv)
{
	struct job jobs[MAX_BLOCKS];
	int docheck = 0, rc = 0;
	unsigned long i;

	if (argc > 1 && !strcmp(argv[1], "--check")) {
		docheck = 1;
		argv++;
		argc--;
	}
	if (argc != 5) {
		fprintf(stderr, "usage: aoe-rewrite [--check] DEVICE ROUND BLOCKS BLOCK_BYTES\n");
		return 2;
	}
	dev = argv[1];
	round_no = strtoul(argv[2], NULL, 0);
	nblocks = strtoul(argv[3], NULL, 0);
	bsize = strtoul(argv[4], NULL, 0);
	if (!nblocks || nblocks > MAX_BLOCKS || !bsize || bsize % SECTOR || bsize > (1ul << 20)) {
		fprintf(stderr, "aoe-rewrite: BLOCKS 1-%d, BLOCK_BYTES a multiple of %d up to 1 MiB\n",
			MAX_BLOCKS, SECTOR);
		return 2;
	}
	if (docheck)
		return check();
	for (i = 0; i < nblocks; i++) {
		jobs[i] = (struct job){ .i = i };
		if (pthread_create(&jobs[i].th, NULL, writer, &jobs[i])) {
			fprintf(stderr, "aoe-rewrite: pthread_create failed\n");
			return 3;
		}
	}
	for (i = 0; i < nblocks; i++) {
		pthread_join(jobs[i].th, NULL);
		if (jobs[i].err) {
			fprintf(stderr, "aoe-rewrite: block %lu: %s\n", i, strerror(jobs[i].err));
			rc = 3;
		}
		printf("block %lu: old %.1f ms, new %.1f ms\n", i, jobs[i].ms[0], jobs[i].ms[1]);
	}
	return rc;
}
