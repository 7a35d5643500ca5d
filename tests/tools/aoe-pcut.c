// SPDX-License-Identifier: GPL-2.0
/*
 * aoe-pcut: the file-system workload and checker of the power-cut scenario
 * (tests/vm/scenarios/47-power-cut.sh; `aoe-pcut --help`).
 *
 *   aoe-pcut run DIR LOG SEED [SECONDS]
 *   aoe-pcut check DIR LOG
 *
 * run: one operation after the other in DIR (on the file system under test)
 * until killed or SECONDS (default 120) have passed: create a file (write,
 * fsync the file, fsync DIR), replace one (a new generation written to a
 * temporary name, fsync, rename over it, fsync DIR), rename one to a new name
 * (fsync DIR), unlink one (fsync DIR). File sizes and contents are derived
 * from the file's id and generation only, so the checker can regenerate
 * them. Before each operation a line "B <seq> <op> <args>" goes to LOG (on
 * another file system), after it was acknowledged (every fsync returned 0) a
 * line "A <seq>": each with one write(2), so a SIGKILL loses nothing that
 * was logged. Any failing system call ends the run (exit 1) without its "A".
 *
 * check: replays LOG. Every file acknowledged must exist under its
 * acknowledged name with exactly its acknowledged content, and no other name
 * may exist; only the one operation begun but not acknowledged (the one the
 * cut interrupted) may be found done or not done (a create: the name absent
 * or with any content; a replace: old or new generation, its temporary name
 * absent or with any content; a rename: the old name or the new one, never
 * both nor neither; an unlink: present and intact, or absent). Prints one
 * line per problem and a summary:
 *   aoe-pcut: acked N pending OP files F intact I lost L wrong W unexpected U
 * and exits 0 when nothing was lost, 1 otherwise, 2 on a usage or I/O error.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PROG "aoe-pcut"
#define MAX_LIVE 48		/* files alive at once in a run */
#define MAX_FILES 100000	/* names a check can track */
#define MAX_SIZE (96 * 1024)

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Size of generation GEN of file ID: half of them below 4 KiB. */
static size_t content_size(unsigned int id, unsigned int gen)
{
	uint64_t s = (uint64_t)id << 32 | gen, r = splitmix(&s);

	return r & 1 ? 1 + (size_t)(r >> 8) % 4096 : 1 + (size_t)(r >> 8) % MAX_SIZE;
}

/* Fills BUF with the content of ID/GEN: a text header, then pseudo-random bytes. */
static size_t content(unsigned int id, unsigned int gen, uint8_t *buf)
{
	size_t n = content_size(id, gen), hl;
	uint64_t s = ((uint64_t)gen << 32 | id) ^ 0x5a5a5a5a5a5a5a5aULL;
	char hdr[64];

	for (size_t i = 0; i < n; i += 8) {
		uint64_t r = splitmix(&s);

		memcpy(buf + i, &r, n - i < 8 ? n - i : 8);
	}
	hl = (size_t)snprintf(hdr, sizeof(hdr), "aoe-pcut id %u gen %u size %zu\n", id, gen, n);
	memcpy(buf, hdr, hl < n ? hl : n);
	return n;
}

/* ---------------------------------------------------------------- run */
static int logfd, dirfd_;
static unsigned long seq;

static void fail(const char *what, const char *name)
{
	fprintf(stderr, PROG ": %s %s: %s\n", what, name ? name : "", strerror(errno));
	exit(1);
}

static void logline(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logline(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(line) || write(logfd, line, (size_t)n) != n)
		fail("write", "log");
}

static void dir_sync(void)
{
	if (fsync(dirfd_) < 0)
		fail("fsync", "directory");
}

/* Writes ID/GEN to a new file NAME in chunks of random size, fsyncs it. */
static void write_file(const char *name, unsigned int id, unsigned int gen, uint64_t *rs)
{
	static uint8_t buf[MAX_SIZE];
	size_t n = content(id, gen, buf), off = 0;
	int fd = openat(dirfd_, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);

	if (fd < 0)
		fail("create", name);
	while (off < n) {
		size_t chunk = 1 + (size_t)(splitmix(rs) % 32768);
		ssize_t w;

		if (chunk > n - off)
			chunk = n - off;
		w = write(fd, buf + off, chunk);
		if (w <= 0)
			fail("write", name);
		off += (size_t)w;
	}
	if (fsync(fd) < 0)
		fail("fsync", name);
	if (close(fd) < 0)
		fail("close", name);
}

struct live {
	unsigned int name, id, gen;
};

static int cmd_run(const char *dir, const char *logpath, uint64_t seed, unsigned int secs)
{
	struct live files[MAX_LIVE];
	unsigned int nlive = 0, next_name = 0, next_id = 0;
	struct timespec t0, t;
	uint64_t rs = seed;

	logfd = open(logpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (logfd < 0)
		fail("open", logpath);
	dirfd_ = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd_ < 0)
		fail("open", dir);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		unsigned int r = (unsigned int)(splitmix(&rs) % 10), k;
		char a[32], b[32];

		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec >= (time_t)secs)
			return 0;
		seq++;
		k = nlive ? (unsigned int)(splitmix(&rs) % nlive) : 0;
		if (nlive < 4 || (r < 4 && nlive < MAX_LIVE)) {
			struct live *f = &files[nlive];

			f->name = next_name++;
			f->id = next_id++;
			f->gen = 0;
			snprintf(a, sizeof(a), "n%u", f->name);
			logline("B %lu create %s %u %u\n", seq, a, f->id, f->gen);
			write_file(a, f->id, f->gen, &rs);
			dir_sync();
			nlive++;
		} else if (r < 6) {
			struct live *f = &files[k];

			snprintf(a, sizeof(a), "n%u", f->name);
			snprintf(b, sizeof(b), "t%u", f->name);
			logline("B %lu replace %s %u %u %s\n", seq, a, f->id, f->gen + 1, b);
			write_file(b, f->id, f->gen + 1, &rs);
			if (renameat(dirfd_, b, dirfd_, a) < 0)
				fail("rename", b);
			dir_sync();
			f->gen++;
		} else if (r < 8) {
			struct live *f = &files[k];

			snprintf(a, sizeof(a), "n%u", f->name);
			snprintf(b, sizeof(b), "n%u", next_name);
			logline("B %lu rename %s %s\n", seq, a, b);
			if (renameat(dirfd_, a, dirfd_, b) < 0)
				fail("rename", a);
			dir_sync();
			f->name = next_name++;
		} else {
			snprintf(a, sizeof(a), "n%u", files[k].name);
			logline("B %lu unlink %s\n", seq, a);
			if (unlinkat(dirfd_, a, 0) < 0)
				fail("unlink", a);
			dir_sync();
			files[k] = files[--nlive];
		}
		logline("A %lu\n", seq);
	}
}

/* ---------------------------------------------------------------- check */
struct entry {
	char name[32];
	unsigned int id, gen;
	bool used;
};

static struct entry model[MAX_FILES];
static unsigned int nmodel;

static struct entry *find(const char *name)
{
	for (unsigned int i = 0; i < nmodel; i++)
		if (model[i].used && !strcmp(model[i].name, name))
			return &model[i];
	return NULL;
}

static struct entry *add(const char *name)
{
	struct entry *e = find(name);

	if (e)
		return e;
	if (nmodel == MAX_FILES) {
		fprintf(stderr, PROG ": too many files in the log\n");
		exit(2);
	}
	e = &model[nmodel++];
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->used = true;
	return e;
}

struct op {
	char kind[16], a[32], b[32];
	unsigned int id, gen;
	unsigned long seq;
};

static int parse_op(const char *line, struct op *o)
{
	memset(o, 0, sizeof(*o));
	if (sscanf(line, "B %lu %15s", &o->seq, o->kind) != 2)
		return -1;
	if (!strcmp(o->kind, "create"))
		return sscanf(line, "B %*u %*s %31s %u %u", o->a, &o->id, &o->gen) == 3 ? 0 : -1;
	if (!strcmp(o->kind, "replace"))
		return sscanf(line, "B %*u %*s %31s %u %u %31s", o->a, &o->id, &o->gen, o->b) == 4 ? 0 : -1;
	if (!strcmp(o->kind, "rename"))
		return sscanf(line, "B %*u %*s %31s %31s", o->a, o->b) == 2 ? 0 : -1;
	if (!strcmp(o->kind, "unlink"))
		return sscanf(line, "B %*u %*s %31s", o->a) == 1 ? 0 : -1;
	return -1;
}

static void apply(const struct op *o)
{
	struct entry *e;

	if (!strcmp(o->kind, "create") || !strcmp(o->kind, "replace")) {
		e = add(o->a);
		e->id = o->id;
		e->gen = o->gen;
	} else if (!strcmp(o->kind, "rename")) {
		struct entry tmp, *n;

		e = find(o->a);
		if (!e)
			return;
		tmp = *e;
		e->used = false;
		n = add(o->b);
		n->id = tmp.id;
		n->gen = tmp.gen;
	} else if ((e = find(o->a))) {
		e->used = false;
	}
}

/* 1: NAME exists with the content of ID/GEN; 0: absent; -1: other content. */
static int file_state(const char *dir, const char *name, unsigned int id, unsigned int gen)
{
	static uint8_t want[MAX_SIZE], got[MAX_SIZE + 1];
	char path[4096];
	size_t n = content(id, gen, want), have = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		exit(2);
	}
	for (;;) {
		ssize_t r = read(fd, got + have, sizeof(got) - have);

		if (r < 0) {
			fprintf(stderr, PROG ": read %s: %s\n", path, strerror(errno));
			exit(2);
		}
		if (!r || (have += (size_t)r) == sizeof(got))
			break;
	}
	close(fd);
	return have == n && !memcmp(want, got, n) ? 1 : -1;
}

static bool exists(const char *dir, const char *name)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return lstat(path, &st) == 0;
}

static int cmd_check(const char *dir, const char *logpath)
{
	FILE *f = fopen(logpath, "r");
	char line[512];
	struct op cur, pending;
	bool have_pending = false;
	unsigned long acked = 0;
	unsigned int intact = 0, lost = 0, wrong = 0, unexpected = 0, files = 0;
	const char *pa = "", *pb = "";
	DIR *d;
	struct dirent *de;

	if (!f) {
		fprintf(stderr, PROG ": %s: %s\n", logpath, strerror(errno));
		return 2;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long s;

		if (line[0] == 'B') {
			if (have_pending || parse_op(line, &cur) < 0) {
				fprintf(stderr, PROG ": log: %s: %s", have_pending ?
					"an operation begun before the last one was acknowledged" :
					"bad line", line);
				return 2;
			}
			pending = cur;
			have_pending = true;
		} else if (sscanf(line, "A %lu", &s) == 1 && have_pending && s == pending.seq) {
			apply(&pending);
			have_pending = false;
			acked++;
		} else if (line[0] != '\n') {
			/* a torn last line is impossible: one write(2) a line */
			fprintf(stderr, PROG ": log: bad line: %s", line);
			return 2;
		}
	}
	fclose(f);
	if (have_pending) {
		pa = pending.a;
		pb = pending.b;
		printf(PROG ": pending (not acknowledged): %s %s %s\n", pending.kind, pa, pb);
	}

	/* Every acknowledged file. */
	for (unsigned int i = 0; i < nmodel; i++) {
		struct entry *e = &model[i];
		int st;

		if (!e->used)
			continue;
		files++;
		st = file_state(dir, e->name, e->id, e->gen);
		if (have_pending && !strcmp(pa, e->name)) {
			if (!strcmp(pending.kind, "replace") && st != 1)
				st = file_state(dir, e->name, pending.id, pending.gen);
			else if (!strcmp(pending.kind, "unlink") && st == 0)
				st = 1;
			else if (!strcmp(pending.kind, "rename") && st == 0) {
				/* moved: the new name must hold the content */
				st = file_state(dir, pb, e->id, e->gen);
				if (st == 1 && exists(dir, pa))
					st = -1;
			}
		}
		if (have_pending && !strcmp(pending.kind, "rename") && !strcmp(pa, e->name) &&
		    st == 1 && exists(dir, e->name) && exists(dir, pb)) {
			printf(PROG ": %s and %s both exist after a rename\n", pa, pb);
			unexpected++;
		}
		if (st == 1) {
			intact++;
		} else if (st == 0) {
			printf(PROG ": LOST %s (id %u gen %u): missing\n", e->name, e->id, e->gen);
			lost++;
		} else {
			printf(PROG ": WRONG %s (id %u gen %u): other content\n", e->name, e->id, e->gen);
			wrong++;
		}
	}

	/* No name the log does not explain. */
	d = opendir(dir);
	if (!d) {
		fprintf(stderr, PROG ": %s: %s\n", dir, strerror(errno));
		return 2;
	}
	while ((de = readdir(d))) {
		const char *n = de->d_name;

		if (!strcmp(n, ".") || !strcmp(n, "..") || find(n))
			continue;
		if (have_pending && (!strcmp(n, pa) || !strcmp(n, pb)))
			continue;	/* the pending create, rename target or temporary */
		printf(PROG ": UNEXPECTED %s\n", n);
		unexpected++;
	}
	closedir(d);
	printf(PROG ": acked %lu pending %s files %u intact %u lost %u wrong %u unexpected %u\n",
	       acked, have_pending ? pending.kind : "none", files, intact, lost, wrong, unexpected);
	return lost || wrong || unexpected ? 1 : 0;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: " PROG " run DIR LOG SEED [SECONDS]\n"
"       " PROG " check DIR LOG\n"
"run: creates, replaces (write a temporary, fsync, rename), renames and unlinks\n"
"files in DIR, every step fsync'ed (file and DIR), until killed or SECONDS\n"
"(default 120); logs \"B <seq> <op> ...\" before and \"A <seq>\" after each\n"
"acknowledged step to LOG (one write(2) a line).\n"
"check: every acknowledged file intact under its name, nothing unexplained;\n"
"only the last, unacknowledged step may be either done or not. Exit 0 intact,\n"
"1 something lost, 2 usage or I/O error.\n");
}

int main(int argc, char **argv)
{
	if (argc >= 5 && argc <= 6 && !strcmp(argv[1], "run")) {
		unsigned long secs = argc == 6 ? strtoul(argv[5], NULL, 0) : 120;

		return cmd_run(argv[2], argv[3], strtoull(argv[4], NULL, 0), (unsigned int)secs);
	}
	if (argc == 4 && !strcmp(argv[1], "check"))
		return cmd_check(argv[2], argv[3]);
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	usage(stderr);
	return 2;
}
