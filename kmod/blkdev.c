// SPDX-License-Identifier: GPL-2.0
/*
 * Block devices: one blk-mq disk per identified target, named as the in-tree
 * driver names them (/dev/etherd/eS.L, partitions eS.LpN, sysfs
 * /sys/block/etherd!eS.L) with its sysfs attributes, so aoetools work.
 *
 * Locking: target->openers under aoe_tgt_lock, target->bd written under it
 * and t->lock (target.h); the sysfs attributes read under t->lock; the
 * disk is added and deleted in process context (target work, flush,
 * reaper).
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/etherdevice.h>
#include <linux/hdreg.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "ata.h"
#include "blkdev.h"
#include "compat.h"
#include "params.h"
#include "policy.h"

struct aoe_blkdev {
	struct gendisk *disk;
	struct blk_mq_tag_set tag_set;
	int index;
	bool dyn;
};

/*
 * The backstop behind the engine's deadlines: blk-mq's timeout fails any
 * request that made no progress for its target's deadsecs (aoe_deadsecs or
 * the target's own, policy.c) plus this margin, whatever the engine did.
 * Progress is a frame of it carved or accounted, and for a request with
 * bytes still to carve, an answer from its target to any I/O (the requests
 * ahead of it move). The age once counted from the request's start, and
 * failed requests that had only queued that long behind a slow but live
 * link (67-slow-link). A frame waits at most deadsecs for its answer from
 * its first transmission, a held request deadsecs from its start (fence.c),
 * so the backstop comes after those deadlines (an answered write draining
 * its last copy has deadsecs from the answer: the backstop may be first
 * there, with the same outcome). The timeout is rechecked at most
 * AOE_RQ_CHECK_SECS apart, so a lowered deadsecs applies to requests
 * already in flight.
 */
#define AOE_RQ_MARGIN_SECS	5
#define AOE_RQ_CHECK_SECS	5

static DEFINE_IDA(aoe_minor_ida);
#define AOE_MAX_INDEX ((MINORMASK + 1) / AOE_PARTITIONS)

static unsigned long rq_limit(const struct aoe_target *t)
{
	return aoe_policy_dead_jiffies(t) + AOE_RQ_MARGIN_SECS * HZ;
}

/*
 * When @rq last made progress (see above): its start, a frame of it carved
 * or accounted, and while bytes of it are still to carve (or nothing was
 * yet: a flush has none) its target's last answer to I/O, whichever is
 * latest. Words the engine writes under t->lock (0: not yet), read
 * without it: a stale value only moves the next check.
 */
static unsigned long rq_moved(const struct aoe_target *t, struct request *rq)
{
	const struct aoe_rq *r = blk_mq_rq_to_pdu(rq);
	unsigned long moved = READ_ONCE(r->moved);
	unsigned long answered = READ_ONCE(t->answered);
	unsigned long at = r->start;

	if (moved && time_after(moved, at))
		at = moved;
	if ((!moved || READ_ONCE(r->sent) < blk_rq_bytes(rq)) && answered &&
	    time_after(answered, at))
		at = answered;
	return at;
}

/* When to look at a request of age @age again: at its limit, or sooner. */
static unsigned int rq_check_in(const struct aoe_target *t, unsigned long age)
{
	unsigned long limit = rq_limit(t);
	unsigned long left = age < limit ? limit - age : 1;

	return min_t(unsigned long, left, AOE_RQ_CHECK_SECS * HZ);
}

static blk_status_t aoe_queue_rq(struct blk_mq_hw_ctx *hctx,
				 const struct blk_mq_queue_data *bd)
{
	struct aoe_target *t = hctx->queue->queuedata;
	struct request *rq = bd->rq;

	switch (req_op(rq)) {
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		break;
	case REQ_OP_FLUSH:
		/* only while the queue declares a write cache (target.c) */
		((struct aoe_rq *)blk_mq_rq_to_pdu(rq))->start = jiffies;
		rq->timeout = rq_check_in(t, 0);
		blk_mq_start_request(rq);
		return aoe_ata_submit(t, rq) ? BLK_STS_OK : BLK_STS_IOERR;
	default:
		return BLK_STS_NOTSUPP;
	}
	((struct aoe_rq *)blk_mq_rq_to_pdu(rq))->start = jiffies;
	rq->timeout = rq_check_in(t, 0);
	blk_mq_start_request(rq);
	if (!blk_rq_bytes(rq)) {
		blk_mq_end_request(rq, BLK_STS_OK);
		return BLK_STS_OK;
	}
	/*
	 * The block layer checks a bio against the size when it is submitted;
	 * a request queued before a revalidate shrank the disk ends here
	 * rather than asking the target for sectors it no longer has.
	 */
	if (blk_rq_pos(rq) + blk_rq_sectors(rq) > get_capacity(rq->q->disk))
		return BLK_STS_IOERR;
	if (!aoe_ata_submit(t, rq))
		return BLK_STS_IOERR;
	return BLK_STS_OK;
}

/*
 * The engine fails a request at its deadline (aoe_deadsecs); this is the
 * backstop should it ever not. Races with the engine ending the request are
 * settled under t->lock by aoe_ata_timeout(): one of them ends it.
 */
static enum blk_eh_timer_return aoe_rq_timeout(struct request *rq)
{
	struct aoe_target *t = rq->q->queuedata;
	unsigned long at = rq_moved(t, rq), now = jiffies;
	/* jiffies|1 can be one jiffy ahead: no age, not a wrapped one */
	unsigned long age = time_after(now, at) ? now - at : 0;

	if (age < rq_limit(t)) {
		rq->timeout = rq_check_in(t, age);
		return BLK_EH_RESET_TIMER;
	}
	if (!aoe_ata_timeout(t, rq))
		return BLK_EH_DONE;	/* the engine is ending it */
	pr_warn_ratelimited("e%u.%u: request at sector %llu timed out: no progress for %u s (deadsecs %u + %d s); failed by the blk-mq timeout\n",
			    t->shelf, t->slot, (u64)blk_rq_pos(rq),
			    jiffies_to_msecs(age) / 1000,
			    aoe_policy_target_deadsecs(t),
			    AOE_RQ_MARGIN_SECS);
	blk_mq_end_request(rq, BLK_STS_IOERR);
	return BLK_EH_DONE;
}

static const struct blk_mq_ops aoe_mq_ops = {
	.queue_rq = aoe_queue_rq,
	.timeout = aoe_rq_timeout,
};

static int aoe_getgeo(struct block_device *bdev, struct hd_geometry *geo)
{
	geo->heads = 255;
	geo->sectors = 63;
	geo->cylinders = get_capacity(bdev->bd_disk) / (255 * 63);
	return 0;
}

/*
 * Opens are counted in the target under aoe_tgt_lock, where a flush or an
 * eviction decides whether a target may go: either the open comes first
 * and the target stays, or the target was unlinked first and the open is
 * refused. (The block layer's own count, disk_openers(), is raised only
 * after .open returns, and the disk stays openable until del_gendisk(),
 * which runs after the unlink.) The block layer calls .open and .release in
 * pairs, for every open of the disk or of a partition's first open.
 */
static int aoe_open(AOE_BDOPS_OPEN_ARGS)
{
	struct aoe_target *t = AOE_BDOPS_OPEN_DISK->private_data;
	int ret = 0;

	spin_lock_bh(&aoe_tgt_lock);
	if (t->removed)
		ret = -ENXIO;
	else
		t->openers++;
	spin_unlock_bh(&aoe_tgt_lock);
	return ret;
}

static void aoe_release(AOE_BDOPS_RELEASE_ARGS)
{
	struct aoe_target *t = disk->private_data;

	spin_lock_bh(&aoe_tgt_lock);
	t->openers--;
	spin_unlock_bh(&aoe_tgt_lock);
}

static const struct block_device_operations aoe_bdops = {
	.owner = THIS_MODULE,
	.open = aoe_open,
	.release = aoe_release,
	.getgeo = aoe_getgeo,
};

static struct aoe_target *dev_target(struct device *dev)
{
	return dev_to_disk(dev)->private_data;
}

static ssize_t state_show(struct device *dev, struct device_attribute *attr,
			  char *page)
{
	struct gendisk *disk = dev_to_disk(dev);
	struct aoe_target *t = disk->private_data;
	bool up;

	spin_lock_bh(&t->lock);
	up = t->state == AOE_TARGET_STATE_UP;
	spin_unlock_bh(&t->lock);
	return sysfs_emit(page, "%s%s\n", up ? "up" : "down",
			  !up && disk_openers(disk) ? ",closewait" : "");
}

/* The path sysfs shows: the first verified one, else none. Under the lock. */
static struct aoe_path *shown_path(struct aoe_target *t)
{
	struct aoe_path *p;

	list_for_each_entry(p, &t->paths, node)
		if (p->state == AOE_PATH_STATE_UP)
			return p;
	list_for_each_entry(p, &t->paths, node)
		if (p->verified)
			return p;
	return NULL;
}

/* The identity's strings (IDENTIFY), for persistent names (udev). */
static ssize_t ident_show(struct device *dev, char *page, bool serial)
{
	struct aoe_target *t = dev_target(dev);
	char buf[sizeof(t->id.model)];

	spin_lock_bh(&t->lock);
	strscpy(buf, serial ? t->id.serial : t->id.model, sizeof(buf));
	spin_unlock_bh(&t->lock);
	return sysfs_emit(page, "%s\n", buf);
}

static ssize_t serial_show(struct device *dev, struct device_attribute *attr,
			   char *page)
{
	return ident_show(dev, page, true);
}

static ssize_t model_show(struct device *dev, struct device_attribute *attr,
			  char *page)
{
	return ident_show(dev, page, false);
}

static ssize_t mac_show(struct device *dev, struct device_attribute *attr,
			char *page)
{
	struct aoe_target *t = dev_target(dev);
	struct aoe_path *p;
	u8 mac[ETH_ALEN];
	bool any = false;

	spin_lock_bh(&t->lock);
	p = shown_path(t);
	if (p) {
		ether_addr_copy(mac, p->mac);
		any = true;
	}
	spin_unlock_bh(&t->lock);
	if (!any)
		return sysfs_emit(page, "none\n");
	return sysfs_emit(page, "%pm\n", mac);
}

static ssize_t netif_show(struct device *dev, struct device_attribute *attr,
			  char *page)
{
	struct aoe_target *t = dev_target(dev);
	char names[AOE_MAX_PATHS][IFNAMSIZ];
	int i, n = 0, len = 0;
	struct aoe_path *p;

	spin_lock_bh(&t->lock);
	list_for_each_entry(p, &t->paths, node) {
		if (p->state == AOE_PATH_STATE_CANDIDATE)
			continue;	/* not (yet) the target's */
		for (i = 0; i < n; i++)
			if (!strcmp(names[i], p->ifname))
				break;
		if (i == n && n < AOE_MAX_PATHS)
			strscpy(names[n++], p->ifname, IFNAMSIZ);
	}
	spin_unlock_bh(&t->lock);
	if (!n)
		return sysfs_emit(page, "none\n");
	for (i = 0; i < n; i++)
		len += sysfs_emit_at(page, len, "%s%s", i ? "," : "", names[i]);
	len += sysfs_emit_at(page, len, "\n");
	return len;
}

static ssize_t fwver_show(struct device *dev, struct device_attribute *attr,
			  char *page)
{
	struct aoe_target *t = dev_target(dev);
	struct aoe_path *p;
	u16 fw = 0;

	spin_lock_bh(&t->lock);
	p = shown_path(t);
	if (p)
		fw = p->fwver;
	spin_unlock_bh(&t->lock);
	return sysfs_emit(page, "0x%04x\n", fw);
}

static ssize_t payload_show(struct device *dev, struct device_attribute *attr,
			    char *page)
{
	struct aoe_target *t = dev_target(dev);
	u32 payload;

	spin_lock_bh(&t->lock);
	payload = aoe_target_payload(t);
	spin_unlock_bh(&t->lock);
	return sysfs_emit(page, "%u\n", payload);
}

/* the effective failure policy (policy.c): seconds, fast_fail 0 = off */
static ssize_t deadsecs_show(struct device *dev, struct device_attribute *attr,
			     char *page)
{
	return sysfs_emit(page, "%u\n",
			  aoe_policy_target_deadsecs(dev_target(dev)));
}

static ssize_t fast_fail_show(struct device *dev,
			      struct device_attribute *attr, char *page)
{
	struct aoe_target *t = dev_target(dev);
	u32 secs;

	spin_lock_bh(&t->lock);
	secs = aoe_policy_target_fast_fail(t);
	spin_unlock_bh(&t->lock);
	return sysfs_emit(page, "%u\n", secs);
}

static DEVICE_ATTR_RO(state);
static DEVICE_ATTR_RO(mac);
static DEVICE_ATTR_RO(netif);
static DEVICE_ATTR_RO(payload);
static DEVICE_ATTR_RO(serial);
static DEVICE_ATTR_RO(model);
static DEVICE_ATTR_RO(deadsecs);
static DEVICE_ATTR_RO(fast_fail);
static struct device_attribute dev_attr_firmware_version =
	__ATTR(firmware-version, 0444, fwver_show, NULL);

static struct attribute *aoe_attrs[] = {
	&dev_attr_state.attr,
	&dev_attr_mac.attr,
	&dev_attr_netif.attr,
	&dev_attr_firmware_version.attr,
	&dev_attr_payload.attr,
	&dev_attr_serial.attr,
	&dev_attr_model.attr,
	&dev_attr_deadsecs.attr,
	&dev_attr_fast_fail.attr,
	NULL,
};

static const struct attribute_group aoe_attr_group = {
	.attrs = aoe_attrs,
};

static const struct attribute_group *aoe_attr_groups[] = {
	&aoe_attr_group,
	NULL,
};

static int alloc_index(struct aoe_target *t, struct aoe_blkdev *bd)
{
	int idx;

	if (aoe_dyndevs) {
		idx = ida_alloc_max(&aoe_minor_ida, AOE_MAX_INDEX - 1,
				    GFP_KERNEL);
		if (idx < 0)
			return idx;
		bd->dyn = true;
		bd->index = idx;
		return 0;
	}
	idx = t->shelf * AOE_NPERSHELF + t->slot;
	if (t->slot >= AOE_NPERSHELF || idx >= AOE_MAX_INDEX) {
		pr_err("e%u.%u: no static minor for this address; load with aoe_dyndevs=1\n",
		       t->shelf, t->slot);
		return -ERANGE;
	}
	bd->index = idx;
	return 0;
}

static struct gendisk *alloc_disk(struct aoe_blkdev *bd, struct aoe_target *t)
{
	unsigned int maxsect = aoe_maxsectors ? aoe_maxsectors : 2048;
#ifdef AOE_HAVE_QUEUE_LIMITS
	struct queue_limits lim = {
		.logical_block_size = AOE_SECTOR_SIZE,
		.max_hw_sectors = maxsect,
	};

	return blk_mq_alloc_disk(&bd->tag_set, &lim, t);
#else
	struct gendisk *disk = blk_mq_alloc_disk(&bd->tag_set, t);

	if (!IS_ERR(disk)) {
		blk_queue_logical_block_size(disk->queue, AOE_SECTOR_SIZE);
		blk_queue_max_hw_sectors(disk->queue, maxsect);
	}
	return disk;
#endif
}

/*
 * Declare a volatile write cache (@wc: flush requests come) and FUA, or
 * neither. Process context (the update sleeps on 6.12). Requests already
 * queued keep what they were submitted with: the block layer decides per
 * request whether to send a flush.
 */
static void disk_set_cache(struct aoe_target *t, struct gendisk *disk,
			   bool wc, bool fua)
{
	struct request_queue *q = disk->queue;
#ifdef AOE_HAVE_QUEUE_FEATURES
	struct queue_limits lim;
	int ret;


	lim = queue_limits_start_update(q);
	lim.features &= ~(BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA);
	if (wc)
		lim.features |= BLK_FEAT_WRITE_CACHE;
	if (fua)
		lim.features |= BLK_FEAT_FUA;
	ret = queue_limits_commit_update(q, &lim);
	if (ret)
		pr_warn("e%u.%u: cannot declare the write cache (%d)\n",
			t->shelf, t->slot, ret);
#else
	blk_queue_write_cache(q, wc, fua);
#endif
}

int aoe_blkdev_add(struct aoe_target *t)
{
	struct aoe_blkdev *bd;
	struct gendisk *disk;
	unsigned int nq;
	bool wc, fua;
	int ret;

	if (t->bd)
		return 0;
	bd = kzalloc(sizeof(*bd), GFP_KERNEL);
	if (!bd)
		return -ENOMEM;
	ret = alloc_index(t, bd);
	if (ret)
		goto err_free;

	bd->tag_set.ops = &aoe_mq_ops;
	/*
	 * Several hardware queues (aoe_hw_queues; blk-mq keeps at most one per
	 * possible CPU): the CPUs' submissions are spread over them instead of
	 * sharing one's lock and dispatch list, and blk-mq picks no I/O
	 * scheduler by default. queue_rq() takes each request into the engine
	 * under the target's lock whichever queue it came from (their order
	 * across queues was never defined). The disk's 128 requests are
	 * shared among the queues, so the engine holds as many as with one
	 * (the fence walks the held ones: fence.c). A CPU going offline waits
	 * for the requests on a queue it was the last online CPU of: up to
	 * the target's deadline for a target that stopped answering.
	 */
	nq = min_t(unsigned int, aoe_hw_queues, nr_cpu_ids);
	bd->tag_set.nr_hw_queues = nq;
	bd->tag_set.queue_depth = 128 / nq;
	bd->tag_set.numa_node = NUMA_NO_NODE;
	bd->tag_set.cmd_size = sizeof(struct aoe_rq);
	bd->tag_set.flags = BLK_MQ_F_SHOULD_MERGE;
	bd->tag_set.timeout = AOE_RQ_CHECK_SECS * HZ;
	ret = blk_mq_alloc_tag_set(&bd->tag_set);
	if (ret)
		goto err_index;

	disk = alloc_disk(bd, t);
	if (IS_ERR(disk)) {
		ret = PTR_ERR(disk);
		goto err_tagset;
	}
	disk->major = AOE_MAJOR;
	disk->first_minor = bd->index * AOE_PARTITIONS;
	disk->minors = AOE_PARTITIONS;
	disk->fops = &aoe_bdops;
	disk->private_data = t;
	snprintf(disk->disk_name, DISK_NAME_LEN, "etherd/e%u.%u", t->shelf,
		 t->slot);
	set_capacity(disk, t->id.sectors);
	bd->disk = disk;
	/* the write cache is declared before anyone can open the disk */
	spin_lock_bh(&t->lock);
	aoe_target_cache_declare(t, &wc, &fua);
	spin_unlock_bh(&t->lock);
	disk_set_cache(t, disk, wc, fua);

	ret = device_add_disk(NULL, disk, aoe_attr_groups);
	if (ret)
		goto err_disk;
	aoe_tl_lock(t);
	t->bd = bd;
	aoe_tl_unlock(t);
	return 0;

err_disk:
	put_disk(disk);
err_tagset:
	blk_mq_free_tag_set(&bd->tag_set);
err_index:
	if (bd->dyn)
		ida_free(&aoe_minor_ida, bd->index);
err_free:
	kfree(bd);
	return ret;
}

void aoe_blkdev_set_cache(struct aoe_target *t, bool wc, bool fua)
{
	if (t->bd)
		disk_set_cache(t, t->bd->disk, wc, fua);
}

void aoe_blkdev_set_capacity(struct aoe_target *t, u64 sectors)
{
	if (t->bd)
		set_capacity_and_notify(t->bd->disk, sectors);
}

void aoe_blkdev_del(struct aoe_target *t)
{
	struct aoe_blkdev *bd = t->bd;

	if (!bd)
		return;
	del_gendisk(bd->disk);
	put_disk(bd->disk);
	blk_mq_free_tag_set(&bd->tag_set);
	if (bd->dyn)
		ida_free(&aoe_minor_ida, bd->index);
	WRITE_ONCE(t->bd, NULL);	/* unlinked: read only as a hint */
	kfree(bd);
}

/* Opens of @t's disk (see aoe_open()). Caller holds aoe_tgt_lock. */
unsigned int aoe_blkdev_openers(struct aoe_target *t)
{
	return t->openers;
}

int aoe_blkdev_init(void)
{
	int ret = register_blkdev(AOE_MAJOR, "aoe");

	if (ret)
		pr_err("cannot register block major %d: is the in-tree aoe driver loaded?\n",
		       AOE_MAJOR);
	return ret;
}

void aoe_blkdev_uninit(void)
{
	unregister_blkdev(AOE_MAJOR, "aoe");
	ida_destroy(&aoe_minor_ida);
}

MODULE_ALIAS_BLOCKDEV_MAJOR(AOE_MAJOR);
