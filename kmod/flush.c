// SPDX-License-Identifier: GPL-2.0
/*
 * Cache flush and FUA in the I/O engine: a flush request (REQ_OP_FLUSH) is
 * one FLUSH CACHE (EXT) frame without data, sent on one path; a REQ_FUA
 * write is WRITE DMA FUA EXT where the target has it (the queue declares
 * FUA only then). ARCHITECTURE.md says why one FLUSH on one path covers the
 * writes on every path.
 *
 * A flush request carries no data: one frame of length 0 whose answer ends
 * it. blk-mq's flush machinery hands it to us only after every write it
 * covers has completed, i.e. was answered by the target (on whichever path)
 * and its pages were released, so one FLUSH on any path covers them: the
 * target is one device behind all of its paths (ARCHITECTURE.md, aoe(4)).
 * It is sent on the next path with window left, like any frame.
 *
 * Its timer is aoe_flush_rto(), seconds, not the path's RTO: a real disk
 * takes that long to write its cache, and resending a FLUSH every RTO would
 * only queue more flushes there. Its timeouts do not back the path off, do
 * not shrink its window, do not count towards taking the path down, and a
 * flush is never presumed lost because later frames were answered first.
 *
 * Locking: called by the other engine files, under the target's lock.
 */
#include <linux/blk-mq.h>
#include <linux/net.h>

#include "io.h"
#include "target.h"

/* A request in the engine's units: its bytes; a flush (no data) is one. */
u32 aoe_rq_units(struct request *rq)
{
	return blk_rq_bytes(rq) ?: 1;
}

/* What the new frame @io of its request is: a flush, a FUA write. */
void aoe_io_cache_setup(struct aoe_target *t, struct aoe_io *io)
{
	io->flush = req_op(io->rq) == REQ_OP_FLUSH;
	if (io->flush) {
		io->len = 0;
		io->lba = 0;
	}
	/*
	 * REQ_FUA comes only while the queue declares FUA, which it does only
	 * for a target with WRITE DMA FUA EXT (target.c). A write queued
	 * before a revalidate took FUA away still goes out as one: the block
	 * layer sends no flush after it, so a plain write could be acknowledged
	 * from a volatile cache; a target without FUA aborts it and the write
	 * fails instead.
	 */
	io->fua = io->write && (io->rq->cmd_flags & REQ_FUA);
}

u8 aoe_io_cache_cmd(const struct aoe_target *t, const struct aoe_io *io)
{
	return io->flush ? aoe_identify_flush_cmd(&t->id) : ATA_CMD_WRITE_FUA48;
}

/* The first transmission of @io, on @p: flushes and FUA writes counted. */
void aoe_io_cache_sent(struct aoe_target *t, struct aoe_io *io,
		       struct aoe_path *p)
{
	if (io->flush) {
		p->cnt.flushes_sent++;
		t->cnt.flushes_sent++;
	} else if (io->fua) {
		p->cnt.fua_writes++;
		t->cnt.fua_writes++;
	}
}

/* Flush frame @io ends with @st (on the path it last went out on). */
void aoe_io_flush_done(struct aoe_target *t, struct aoe_io *io,
		       blk_status_t st)
{
	if (st) {
		t->cnt.flushes_failed++;
		if (io->path)
			io->path->cnt.flushes_failed++;
	} else {
		t->cnt.flushes_answered++;
		if (io->path)
			io->path->cnt.flushes_answered++;
	}
}

/*
 * The target answered a FLUSH with an error: the flush request fails. An
 * abort (ABRT) means it does not do FLUSH: target.c remembers that and
 * stops declaring the write cache.
 */
void aoe_io_flush_error(struct aoe_target *t, const struct aoe_frame *f,
			bool aoe_error)
{
	if (!aoe_error && (f->ata.status & AOE_ATA_STATUS_ERR) &&
	    (f->ata.err & AOE_ATA_ERR_ABRT)) {
		aoe_target_flush_refused(t);
		return;
	}
	net_err_ratelimited("e%u.%u: FLUSH CACHE failed (AoE error %u, status 0x%02x, error 0x%02x)\n",
			    t->shelf, t->slot, aoe_error ? f->error : 0,
			    f->ata.status, f->ata.err);
}
