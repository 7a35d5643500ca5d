// SPDX-License-Identifier: GPL-2.0
/*
 * IDENTIFY DEVICE over exactly one path (ata.h): a frame without a request
 * whose answer is copied into the struct aoe_ident its caller waits on.
 * Never sent on another path: resent on its own at most AOE_IDENT_RESENDS
 * times (timers.c), failed when that path goes away or is refused
 * (send.c).
 *
 * Locking: aoe_ata_identify_start(): the caller holds RCU and t->lock;
 * it transmits before it returns. aoe_ata_identify_wait(): process context,
 * no lock held; it takes t->lock itself to fail a frame that got no
 * answer. aoe_ata_identify_free(): no lock, after the caller looked its
 * path up by the handle.
 */
#include <linux/completion.h>
#include <linux/err.h>
#include <linux/skbuff.h>
#include <linux/slab.h>

#include "ata.h"
#include "io.h"
#include "target.h"

static struct aoe_io *find_ident(struct aoe_target *t, struct aoe_ident *id)
{
	struct aoe_io *io;

	list_for_each_entry(io, &t->frames, node)
		if (io->ident == id)
			return io;
	return NULL;
}

struct aoe_ident *aoe_ata_identify_start(struct aoe_target *t,
					 struct aoe_path *p)
{
	struct aoe_ident *id;
	struct sk_buff_head q;
	struct aoe_io *io;

	aoe_t_assert(t);
	if (t->removed || !p)
		return ERR_PTR(-ENODEV);
	id = kzalloc(sizeof(*id), GFP_ATOMIC);
	io = aoe_io_alloc(t, GFP_ATOMIC);
	if (!id || !io) {
		kfree(id);
		if (io)
			kmem_cache_free(aoe_io_cache, io);
		return ERR_PTR(-ENOMEM);
	}
	init_completion(&id->done);
	io->ident = id;
	io->len = AOE_SECTOR_SIZE;
	io->first_sent = jiffies;
	__skb_queue_head_init(&q);
	list_add_tail(&io->node, &t->frames);
	t->outstanding++;
	aoe_io_send(t, io, p, &q);	/* arms its resend */
	aoe_ata_xmit_locked(t, &q);
	return id;
}

int aoe_ata_identify_wait(struct aoe_target *t, struct aoe_ident *id,
			  unsigned long timeout, struct aoe_identity *out)
{
	struct aoe_io *io;
	LIST_HEAD(done);
	int ret;

	if (!wait_for_completion_timeout(&id->done, timeout)) {
		spin_lock_bh(&t->lock);
		io = find_ident(t, id);
		if (io)
			aoe_io_finish(t, io, BLK_STS_TIMEOUT, &done);
		spin_unlock_bh(&t->lock);
		/* completed by aoe_io_finish() above or by a late answer */
		wait_for_completion(&id->done);
		ret = -ETIMEDOUT;
	} else {
		ret = id->error;
	}
	/* into the caller's copy: t->id is published by the caller */
	if (!ret)
		ret = aoe_parse_identify(id->data, out);
	return ret;
}

void aoe_ata_identify_free(struct aoe_ident *id)
{
	kfree(id);
}
