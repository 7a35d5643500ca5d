/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aoekit: the failure policy of a target in portable C (module and unit
 * tests): its own deadsecs and fast-fail time, set over netlink
 * (AOE_CMD_SET_TARGET), or the module's aoe_deadsecs / aoe_fast_fail.
 *
 * deadsecs: a frame unanswered this long from its first transmission, a
 * request waiting this long for a path, fails; when the target as a whole
 * has not answered for as long, it is failed (state down, all its I/O
 * fails, new I/O fails at once until it answers a Query Config again).
 *
 * fast-fail (NVMe's fast_io_fail_tmo): while the target has I/O (queued or
 * in flight) and no usable path, a clock runs; when it reaches the
 * fast-fail time the I/O fails (EIO) and the target enters "failing": new
 * I/O fails at once while there is still no usable path and no answer came
 * from the target since. The target stays up; deadsecs still decides when
 * it is failed. A usable path or any answer ends "failing". 0: off (the
 * in-tree behaviour, the default).
 *
 * Times are in the caller's ticks (jiffies in the module) and compared
 * wrap-safe as the kernel's time_after() does.
 */
#ifndef AOE_POLICY_H
#define AOE_POLICY_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stdint.h>
#endif

#include "uapi/aoe_netlink.h"

#ifdef __cplusplus
extern "C" {
#endif

struct aoe_policy {
	/*
	 * The target's own settings, written under t->lock. deadsecs is
	 * one word (0: the module's) so that the blk-mq timeout reads it
	 * without the lock (READ_ONCE in the module).
	 */
	uint32_t deadsecs;		/* 1..AOE_POLICY_SECS_MAX, 0: module's */
	uint32_t fast_fail;		/* 0..AOE_POLICY_SECS_MAX when set */
	bool fast_fail_set;
	/* fast-fail state */
	bool failing;			/* fired; no usable path since */
	unsigned long nopath_since;	/* ticks | 1: I/O and no path; 0: not */
	unsigned long failed_at;	/* ticks: when it fired */
	uint64_t fires;			/* times it failed the target's I/O */
};

enum aoe_policy_err {
	AOE_POLICY_OK,
	AOE_POLICY_BAD_DEADSECS,
	AOE_POLICY_BAD_FAST_FAIL,
};

#define AOE_POLICY_MSG_DEADSECS \
	"deadsecs must be 1..86400 seconds, or default"
#define AOE_POLICY_MSG_FAST_FAIL \
	"fast-fail must be 0 (off) or 1..86400 seconds, or default"

/* A value for SET_TARGET: in range, or AOE_POLICY_DEFAULT. */
enum aoe_policy_err aoe_policy_check(const uint32_t *deadsecs,
				     const uint32_t *fast_fail);
/* What is wrong, in words (extack, tools). */
const char *aoe_policy_strerror(enum aoe_policy_err e);

/*
 * Apply checked values (NULL: unchanged; AOE_POLICY_DEFAULT: follow the
 * module again). A fast-fail time of 0 (off) ends "failing".
 */
void aoe_policy_apply(struct aoe_policy *p, const uint32_t *deadsecs,
		      const uint32_t *fast_fail, uint32_t module_fast_fail);

/* Effective values: the target's own, else the module's (clamped). */
uint32_t aoe_policy_deadsecs(const struct aoe_policy *p, int module_deadsecs);
/* the same from a target's own deadsecs word (read once, without the lock) */
uint32_t aoe_policy_deadsecs_of(uint32_t own, int module_deadsecs);
uint32_t aoe_policy_fast_fail(const struct aoe_policy *p,
			      int module_fast_fail);

/*
 * One timer tick for a target that is up: @pending: it has I/O queued or
 * in flight; @nopath: none of its paths is usable; @ff_secs: the effective
 * fast-fail time (0 off); @hz: ticks per second. Returns true when its I/O
 * is to fail now (and the policy is "failing" from then).
 */
bool aoe_policy_tick(struct aoe_policy *p, bool pending, bool nopath,
		     unsigned long now, unsigned long hz, uint32_t ff_secs);

/*
 * A new request: true when it is to fail at once ("failing", still no
 * usable path and no answer since @last_rx). Ends "failing" otherwise.
 */
bool aoe_policy_refuse(struct aoe_policy *p, bool nopath,
		       unsigned long last_rx);

#ifdef __cplusplus
}
#endif

#endif
