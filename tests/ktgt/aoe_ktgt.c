// SPDX-License-Identifier: GPL-2.0
/*
 * aoe_ktgt: an in-kernel AoE test target, for make bench (tests/vm/bench.sh
 * --targets ktgt) and scenario 71. Never part of the package.
 *
 * Why in the kernel: a userspace target on a 2-vCPU test VM (vblade,
 * aoe-fastd) is what a benchmark of the initiator ends up measuring. This
 * one serves each request in the receive softirq that delivered it, as
 * nvmet-tcp serves NVMe/TCP from kernel context: no wakeup, no copy to user
 * space, no system call per batch. The initiator, not the target, is then
 * what limits a row.
 *
 * Serves RAM disks (vzalloc, zeroed) as eSHELF.SLOT on the interfaces
 * named at load, in the initial network namespace:
 *   insmod aoe_ktgt.ko ifaces=b0,b1 shelf=1 slots=2,3,4,5 size_mb=64
 * Speaks Query Config (read, test, test prefix, set, force set), ATA READ
 * and WRITE SECTORS 28-bit (0x20/0x30) and EXT (0x24/0x34), WRITE FUA EXT
 * (0x3D), FLUSH CACHE (EXT) (0xE7/0xEA: the disk has no volatile cache) and
 * IDENTIFY DEVICE (0xEC); every other ATA command is aborted. Every field
 * from the wire is checked as aoe-fastd checks it: a frame shorter than
 * its header or its write data is ignored (counted bad); a sector count of
 * 0 or one that does not fit the interface's MTU is aborted (ABRT); an LBA
 * range beyond the disk gets IDNF. A target announces itself on every
 * interface when loaded, as vblade does.
 *
 * Concurrency: answers are built and sent in the softirq that received
 * the request, on any CPU; requests to the same sectors from two CPUs at
 * once copy at once, as a disk without ordering would (the initiator never
 * has two writes of the same sector in flight). The config string is the
 * one shared state written from the wire: under its target's cfg_lock.
 * Counters are atomic. The pages copied answers are made of are recycled
 * through a ring per CPU, used with BH off (kt_page()). Unloading removes
 * the receive hooks first (netdev_rx_handler_unregister() and
 * dev_remove_pack() wait for running handlers), then frees the disks: an
 * answer in flight holds references to the pages it reads from
 * (kt_add_data()), which outlive the disk.
 *
 * Receive hooks: an rx_handler on each interface served (rx_handler=1, the
 * default; rtnl guards kt_rxdev[], and a netdev notifier lets go of an
 * interface being unregistered), and a packet handler for the interfaces
 * that already had an rx_handler (a bridge port) or with rx_handler=0. The
 * rx_handler takes a request before the core's delivery to packet
 * handlers, which copies the pages of a zero-copy frame
 * (skb_orphan_frags_rx()): write data the veth did not copy either (aoe.ko
 * aoe_zerocopy_forward=Y) is then read in place from the initiator's
 * pages, as a NIC would DMA it, and one copy (into the RAM disk) is made of
 * every written byte (the in-tree driver's frags are not zero-copy and
 * were never copied). A tap (tcpdump) still makes the core copy first.
 * Only requests addressed to one of its targets are taken there: answers,
 * other frames, broadcasts (discovery: the packet handler answers them,
 * and another target on the interface hears them), requests to other
 * targets, frames for another host and VLAN-tagged ones (no VLAN device
 * took them) go on as if it were not there. A served interface cannot
 * become a bridge or bond port while it is loaded (rx_handler=0 for that).
 *
 * Counters: /sys/module/aoe_ktgt/parameters/stats, a line per target:
 *   e1.2 reads N writes N fua N flushes N identify N config N errors N
 *   bad N nomem N sectors_read N sectors_written N dropped N
 *
 * A fault for tests: drop_lba=S (writable) leaves the next read or write
 * frame that starts at sector S, of any target, unanswered, once (it then
 * reads -1; counted as dropped): one frame of a request lost for sure (a
 * write's data is not written either: the request was lost, not its
 * answer).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <net/net_namespace.h>

#define KT_ETH_P_AOE	0x88a2
#define KT_AOE_HDR	10	/* ver/flags, error, major, minor, cmd, tag */
#define KT_ATA_HDR	(KT_AOE_HDR + 12)
#define KT_CFG_HDR	(KT_AOE_HDR + 8)
#define KT_MAX_CFG	1024
#define KT_MAX_SECT	255
#define KT_MAX_TGTS	16
#define KT_MAX_IFS	8
#define KT_MAX_POOL	16384	/* pool_pages: 64 MiB per CPU at most */
#define KT_F_RESP	0x08
#define KT_F_ERR	0x04
#define KT_ST_DRDY	0x40
#define KT_ST_ERR	0x01
#define KT_ER_ABRT	0x04
#define KT_ER_IDNF	0x10

static char *ifaces = "";
module_param(ifaces, charp, 0444);
MODULE_PARM_DESC(ifaces, "Interfaces to serve on, comma separated (initial network namespace)");
static ushort shelf = 1;
module_param(shelf, ushort, 0444);
MODULE_PARM_DESC(shelf, "AoE shelf (major) of every target, < 65535");
static int slots[KT_MAX_TGTS] = { 1 };
static int nslots = 1;
module_param_array(slots, int, &nslots, 0444);
MODULE_PARM_DESC(slots, "AoE slots (minors), one target each, < 255");
static uint size_mb = 64;
module_param(size_mb, uint, 0444);
MODULE_PARM_DESC(size_mb, "Size of each target's RAM disk in MiB");
static bool rx_handler = true;
module_param(rx_handler, bool, 0444);
MODULE_PARM_DESC(rx_handler, "Take requests in an rx_handler on each interface, before the core copies zero-copy pages for packet handlers (0: a packet handler only)");
static bool zc_reads;
module_param(zc_reads, bool, 0444);
MODULE_PARM_DESC(zc_reads, "Answer reads with frags of the RAM disk's own pages instead of copies (kt_add_data())");
static uint pool_pages = 2048;
module_param(pool_pages, uint, 0444);
MODULE_PARM_DESC(pool_pages, "Pages per CPU that copied answers are recycled through, held until unload (kt_page(); at most 16384; 0: a fresh page each time)");
static long drop_lba = -1;
module_param(drop_lba, long, 0644);
MODULE_PARM_DESC(drop_lba, "The next read or write frame starting at this sector goes unanswered, once (then -1); -1: none");
static ushort bufcnt = 256;
module_param(bufcnt, ushort, 0444);
MODULE_PARM_DESC(bufcnt, "Buffer count announced in Query Config answers");

struct kt_stats {
	atomic_long_t reads, writes, fua, flushes, identify, config, errors,
		bad, nomem, sect_r, sect_w, dropped;
};

struct kt_target {
	u8 slot;
	u64 sectors;
	u8 *disk;
	u8 ident[512];
	struct kt_stats st;
	spinlock_t cfg_lock;	/* cfg, cfg_len */
	u16 cfg_len;
	u8 cfg[KT_MAX_CFG];
};

/* Wire fields are big-endian and unaligned (IDENTIFY words little-endian). */
static void kt_put16(u8 *p, u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static u16 kt_get16(const u8 *p)
{
	return p[0] << 8 | p[1];
}

static struct kt_target *kt_tgts;
static int kt_ntgts;
static int kt_ifindex[KT_MAX_IFS];
static int kt_nifs;

static bool kt_serves(const struct net_device *dev)
{
	int i;

	if (!net_eq(dev_net(dev), &init_net))
		return false;
	for (i = 0; i < kt_nifs; i++)
		if (kt_ifindex[i] == dev->ifindex)
			return true;
	return false;
}

/* Sectors in one frame on @dev: its MTU less the AoE and ATA headers. */
static unsigned int kt_max_sect(const struct net_device *dev)
{
	int n = ((int)READ_ONCE(dev->mtu) - KT_ATA_HDR) / 512;

	n = min_t(int, n, KT_MAX_SECT);
	n = min_t(int, n, (MAX_SKB_FRAGS - 1) * PAGE_SIZE / 512);
	return n < 1 ? 1 : n;
}

/*
 * The pages copied answers are made of, recycled: a ring per CPU
 * (pool_pages slots) of pages the ring holds a reference to. A page whose
 * count is back to 1 is the ring's alone: every answer that had it was
 * freed, and an answer is the only holder that can give out a reference
 * that lasts (code scanning pages by frame number takes one briefly,
 * without reading them: the page is then replaced for nothing). It is
 * used again without the page allocator, which zeroes each page under
 * init_on_alloc (Debian's default: that clear_page was a fifth of the
 * VM's CPU on make bench's seqread row, perf call graph). A page an answer
 * still holds is let go of (the answer frees it) and its slot gets a
 * fresh page, unless that came from the emergency reserves
 * (pfmemalloc, as page_pool keeps none): an answer made of one is
 * dropped by a receiver with a memalloc socket, and the ring would hold
 * it for good. Only the bytes copied go out: a frag covers those alone,
 * never the rest of a page used before (another read's data). A ring is
 * used by its CPU with BH off (callers are softirq handlers); kt_free()
 * empties the rings once the receive hooks are gone (answers in flight
 * keep their pages).
 */
struct kt_pool {
	unsigned int next;
	struct page *pg[];
};

static struct kt_pool **kt_pools;	/* [nr_cpu_ids]; NULL: no recycling */

static struct page *kt_page(void)
{
	struct kt_pool *pl;
	struct page *pg, *fresh;
	unsigned int slot;

	if (!kt_pools)
		return alloc_page(GFP_ATOMIC);
	local_bh_disable();
	pl = kt_pools[smp_processor_id()];
	slot = pl->next;
	pl->next = (slot + 1) % pool_pages;
	pg = pl->pg[slot];
	if (pg && page_ref_count(pg) == 1) {
		/* the last answer's put_page() before our copy into it */
		smp_acquire__after_ctrl_dep();
		get_page(pg);	/* the answer's; the ring keeps its own */
		local_bh_enable();
		return pg;
	}
	fresh = alloc_page(GFP_ATOMIC);
	if (fresh) {
		if (pg)
			put_page(pg);
		pl->pg[slot] = NULL;
		if (!page_is_pfmemalloc(fresh)) {
			get_page(fresh);
			pl->pg[slot] = fresh;
		}
	}
	local_bh_enable();
	return fresh;
}

static void kt_pools_free(void)
{
	unsigned int cpu, i;

	if (!kt_pools)
		return;
	for_each_possible_cpu(cpu) {
		struct kt_pool *pl = kt_pools[cpu];

		if (!pl)
			continue;
		for (i = 0; i < pool_pages; i++)
			if (pl->pg[i])
				put_page(pl->pg[i]);
		kvfree(pl);
	}
	kfree(kt_pools);
	kt_pools = NULL;
}

static int kt_pools_alloc(void)
{
	unsigned int cpu;

	if (!pool_pages)
		return 0;
	kt_pools = kcalloc(nr_cpu_ids, sizeof(*kt_pools), GFP_KERNEL);
	if (!kt_pools)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		kt_pools[cpu] = kvzalloc(struct_size(kt_pools[cpu], pg,
						     pool_pages), GFP_KERNEL);
		if (!kt_pools[cpu]) {
			kt_pools_free();
			return -ENOMEM;
		}
	}
	return 0;
}

/*
 * @dlen bytes from @from as page frags of @skb. With zc_reads, data of a
 * RAM disk (vmalloc) is not copied: the frag holds a reference to the
 * disk's own page, as a target serving reads with sendfile() sends its
 * page cache, and the skb is marked SKBFL_SHARED_FRAG as sendfile()'s are
 * (its frags may change under it: whoever must checksum or decrypt in
 * place copies first). The page outlives the disk if an answer still holds it (vfree()
 * only drops the disk's reference: VM scenario 71 unloads the target with
 * answers held by netem). A write to those sectors before the initiator
 * copies the answer shows through, as it would in a read served after
 * that write (overlapping requests have no order), and so does a tap or a
 * queue holding the answer: it shows the disk as it is when read out.
 * Anything else (IDENTIFY), and everything without zc_reads (the
 * default), is copied into pages of kt_page(): the in-tree driver
 * on 6.1 stalled on 1 MiB reads at qd 8 against zero-copy answers (make
 * bench's paths1 row; not on 6.12, and not with copies), not explained
 * yet. kt_max_sect() leaves a frag for a range not page-aligned.
 */
static int kt_add_data(struct sk_buff *skb, const u8 *from, unsigned int dlen)
{
	unsigned int i;

	for (i = 0; dlen; i++) {
		unsigned int off = offset_in_page(from);
		unsigned int n = min_t(unsigned int, dlen, PAGE_SIZE - off);
		unsigned int truesize = n;
		struct page *pg;

		if (zc_reads && is_vmalloc_addr(from)) {
			pg = vmalloc_to_page(from);
			get_page(pg);
			skb_shinfo(skb)->flags |= SKBFL_SHARED_FRAG;
		} else {
			pg = kt_page();
			if (!pg)
				return -ENOMEM;
			memcpy(page_address(pg), from, n);
			off = 0;
			truesize = PAGE_SIZE;
		}
		skb_add_rx_frag(skb, i, pg, off, n, truesize);
		from += n;
		dlen -= n;
	}
	return 0;
}

/*
 * An answer to @dst on @dev: Ethernet header and @hlen bytes of AoE header
 * in the linear part (padded to the Ethernet minimum), then @dlen bytes
 * from @from in page frags (kt_add_data()). NULL when memory is short (the
 * initiator sends again).
 */
static struct sk_buff *kt_alloc(struct kt_target *tg, struct net_device *dev,
				const u8 *dst, unsigned int hlen,
				const u8 *from, unsigned int dlen)
{
	unsigned int lin = max_t(unsigned int, hlen, ETH_ZLEN - ETH_HLEN);
	struct sk_buff *skb;
	struct ethhdr *eh;

	skb = alloc_skb(LL_RESERVED_SPACE(dev) + ETH_HLEN + lin +
			dev->needed_tailroom, GFP_ATOMIC);
	if (!skb)
		goto nomem;
	skb_reserve(skb, LL_RESERVED_SPACE(dev));
	skb_reset_mac_header(skb);
	eh = skb_put(skb, ETH_HLEN);
	ether_addr_copy(eh->h_dest, dst);
	ether_addr_copy(eh->h_source, dev->dev_addr);
	eh->h_proto = htons(KT_ETH_P_AOE);
	skb_set_network_header(skb, ETH_HLEN);
	/* dlen: the answer is exactly hlen + dlen, no padding in between */
	skb_put_zero(skb, dlen ? hlen : lin);
	if (kt_add_data(skb, from, dlen)) {
		kfree_skb(skb);
		goto nomem;
	}
	skb->dev = dev;
	skb->protocol = htons(KT_ETH_P_AOE);
	return skb;
nomem:
	atomic_long_inc(&tg->st.nomem);
	return NULL;
}

/* The AoE header of an answer to @in (10 bytes) for @tg. */
static void kt_aoe_hdr(struct kt_target *tg, u8 *out, const u8 *in)
{
	out[0] = 0x10 | KT_F_RESP;	/* version 1, response */
	out[1] = 0;
	kt_put16(out + 2, shelf);
	out[4] = tg->slot;
	out[5] = in[5];
	memcpy(out + 6, in + 6, 4);	/* tag */
}

/* Query Config answer (also the announcement, @in NULL). */
static void kt_config(struct kt_target *tg, struct net_device *dev,
		      const u8 *src, const u8 *in, struct sk_buff *req)
{
	static const u8 announce[KT_CFG_HDR] = { 0x10, 0, 0, 0, 0, 1 };
	u8 *out, err = 0, ccmd = 0;
	unsigned int slen = 0;
	struct sk_buff *skb;
	u8 *str = NULL;

	if (!in) {
		in = announce;
	} else {
		ccmd = in[KT_AOE_HDR + 5] & 0x0f;
		slen = kt_get16(in + KT_AOE_HDR + 6);
		if (slen > KT_MAX_CFG || KT_CFG_HDR + slen > req->len) {
			err = 2;	/* bad argument */
			slen = 0;
		} else if (slen) {
			str = kmalloc(slen, GFP_ATOMIC);
			if (!str || skb_copy_bits(req, KT_CFG_HDR, str, slen)) {
				kfree(str);
				atomic_long_inc(&tg->st.nomem);
				return;
			}
		}
	}
	spin_lock_bh(&tg->cfg_lock);
	if (err)
		goto answer;
	switch (ccmd) {
	case 0:			/* read */
		break;
	case 1:			/* test: answer only on an exact match */
		if (slen != tg->cfg_len || memcmp(str, tg->cfg, slen))
			goto silent;
		break;
	case 2:			/* test prefix */
		if (slen > tg->cfg_len || memcmp(str, tg->cfg, slen))
			goto silent;
		break;
	case 3:			/* set, if empty (or the same) */
		if (tg->cfg_len &&
		    (slen != tg->cfg_len || memcmp(str, tg->cfg, slen))) {
			err = 4;	/* config string present */
			break;
		}
		fallthrough;
	case 4:			/* force set */
		if (slen)
			memcpy(tg->cfg, str, slen);
		tg->cfg_len = slen;
		break;
	default:
		err = 2;
		break;
	}
answer:
	skb = kt_alloc(tg, dev, src, KT_CFG_HDR + tg->cfg_len, NULL, 0);
	if (!skb)
		goto silent;
	out = skb_network_header(skb);
	kt_aoe_hdr(tg, out, in);
	if (err) {
		out[0] |= KT_F_ERR;
		out[1] = err;
	}
	kt_put16(out + KT_AOE_HDR, bufcnt);
	kt_put16(out + KT_AOE_HDR + 2, 0x4001);	/* firmware */
	out[KT_AOE_HDR + 4] = kt_max_sect(dev);
	out[KT_AOE_HDR + 5] = 0x10 | ccmd;
	kt_put16(out + KT_AOE_HDR + 6, tg->cfg_len);
	memcpy(out + KT_CFG_HDR, tg->cfg, tg->cfg_len);
	spin_unlock_bh(&tg->cfg_lock);
	kfree(str);
	atomic_long_inc(&tg->st.config);
	dev_queue_xmit(skb);
	return;
silent:
	spin_unlock_bh(&tg->cfg_lock);
	kfree(str);
}

static bool kt_ext_cmd(u8 c)
{
	return c == 0x24 || c == 0x34 || c == 0x3d || c == 0xea;
}

/* ATA: the answer, or none for a frame that is not a whole request. */
static void kt_ata(struct kt_target *tg, struct net_device *dev,
		   const u8 *src, const u8 *in, struct sk_buff *req)
{
	const u8 *a = in + KT_AOE_HDR;
	unsigned int count = a[2], bytes = 0;
	const u8 *from = NULL;
	u8 cmd = a[3], err = 0;
	struct sk_buff *skb;
	bool write = false;
	u64 lba;
	u8 *out;

	if (kt_ext_cmd(cmd) || (a[0] & 0x40))
		lba = (u64)a[4] | (u64)a[5] << 8 | (u64)a[6] << 16 |
		      (u64)a[7] << 24 | (u64)a[8] << 32 | (u64)a[9] << 40;
	else
		lba = (u64)a[4] | (u64)a[5] << 8 | (u64)a[6] << 16 |
		      (u64)(a[7] & 0x0f) << 24;
	switch (cmd) {
	case 0xec:		/* IDENTIFY DEVICE */
		bytes = 512;
		atomic_long_inc(&tg->st.identify);
		goto answer;
	case 0xe7:		/* FLUSH CACHE (EXT): no volatile cache */
	case 0xea:
		atomic_long_inc(&tg->st.flushes);
		goto answer;
	case 0x20:		/* READ SECTORS (EXT) */
	case 0x24:
		break;
	case 0x30:		/* WRITE SECTORS (EXT), WRITE FUA EXT */
	case 0x34:
	case 0x3d:
		write = true;
		break;
	default:
		err = KT_ER_ABRT;
		goto answer;
	}
	/* 0 would mean 256 sectors: no frame carries that */
	if (count == 0 || count > kt_max_sect(dev)) {
		err = KT_ER_ABRT;
		goto answer;
	}
	if (write && req->len < KT_ATA_HDR + count * 512) {
		atomic_long_inc(&tg->st.bad);
		return;
	}
	if (lba >= tg->sectors || count > tg->sectors - lba) {
		err = KT_ER_IDNF;
		goto answer;
	}
	if ((long)lba == READ_ONCE(drop_lba) &&
	    cmpxchg(&drop_lba, (long)lba, -1L) == (long)lba) {
		atomic_long_inc(&tg->st.dropped);
		return;
	}
	if (write) {
		if (skb_copy_bits(req, KT_ATA_HDR, tg->disk + lba * 512,
				  count * 512)) {
			atomic_long_inc(&tg->st.bad);
			return;
		}
		atomic_long_inc(&tg->st.writes);
		atomic_long_add(count, &tg->st.sect_w);
		if (cmd == 0x3d)
			atomic_long_inc(&tg->st.fua);
	} else {
		bytes = count * 512;
		atomic_long_inc(&tg->st.reads);
		atomic_long_add(count, &tg->st.sect_r);
	}
answer:
	if (err)
		bytes = 0;
	if (bytes)
		from = cmd == 0xec ? tg->ident : tg->disk + lba * 512;
	skb = kt_alloc(tg, dev, src, KT_ATA_HDR, from, bytes);
	if (!skb)
		return;
	out = skb_network_header(skb);
	kt_aoe_hdr(tg, out, in);
	memcpy(out + KT_AOE_HDR, a, 12);
	out[KT_AOE_HDR + 1] = err;
	out[KT_AOE_HDR + 3] = err ? KT_ST_DRDY | KT_ST_ERR : KT_ST_DRDY;
	if (err)
		atomic_long_inc(&tg->st.errors);
	dev_queue_xmit(skb);
}

static int kt_rcv(struct sk_buff *skb, struct net_device *dev,
		  struct packet_type *pt, struct net_device *orig_dev)
{
	u8 buf[KT_ATA_HDR];
	const u8 *in;
	unsigned int major, minor, i;

	if (!kt_serves(dev) || skb->pkt_type == PACKET_OTHERHOST)
		goto out;
	in = skb_header_pointer(skb, 0, KT_AOE_HDR, buf);
	if (!in)
		goto bad;
	/* a response, or not AoE version 1 */
	if ((in[0] & KT_F_RESP) || (in[0] >> 4) != 1)
		goto out;
	major = kt_get16(in + 2);
	minor = in[4];
	in = skb_header_pointer(skb, 0, in[5] ? KT_CFG_HDR : KT_ATA_HDR, buf);
	if (!in)
		goto bad;
	for (i = 0; i < kt_ntgts; i++) {
		struct kt_target *tg = &kt_tgts[i];

		if (in[5] == 0) {
			/* ATA is never broadcast */
			if (major == shelf && minor == tg->slot)
				kt_ata(tg, dev, eth_hdr(skb)->h_source, in, skb);
		} else if ((major == shelf || major == 0xffff) &&
			   (minor == tg->slot || minor == 0xff)) {
			if (in[5] == 1)
				kt_config(tg, dev, eth_hdr(skb)->h_source, in,
					  skb);
		}
	}
	goto out;
bad:
	if (kt_ntgts)
		atomic_long_inc(&kt_tgts[0].st.bad);
out:
	consume_skb(skb);
	return NET_RX_SUCCESS;
}

static struct packet_type kt_pt = {
	.type = cpu_to_be16(KT_ETH_P_AOE),
	.func = kt_rcv,
};

/* Interfaces with kt_rx_handler registered, each held. Under rtnl. */
static struct net_device *kt_rxdev[KT_MAX_IFS];

static rx_handler_result_t kt_rx_handler(struct sk_buff **pskb)
{
	struct sk_buff *skb = *pskb;
	u8 hdr[KT_AOE_HDR];
	const u8 *in;
	unsigned int major, i;

	/* requests to these targets only; the rest as without the handler */
	if (skb->protocol != htons(KT_ETH_P_AOE) ||
	    skb->pkt_type == PACKET_OTHERHOST || skb_vlan_tag_present(skb))
		return RX_HANDLER_PASS;
	in = skb_header_pointer(skb, 0, KT_AOE_HDR, hdr);
	if (!in || (in[0] & KT_F_RESP) || (in[0] >> 4) != 1)
		return RX_HANDLER_PASS;
	/* broadcast (discovery) goes on: the packet handler serves it too */
	major = kt_get16(in + 2);
	if (major != shelf)
		return RX_HANDLER_PASS;
	for (i = 0; i < kt_ntgts; i++)
		if (in[4] == kt_tgts[i].slot)
			break;
	if (i == kt_ntgts)
		return RX_HANDLER_PASS;
	kt_rcv(skb, skb->dev, &kt_pt, skb->dev);
	return RX_HANDLER_CONSUMED;
}

/* Caller: rtnl. */
static void kt_rx_release(int i)
{
	netdev_rx_handler_unregister(kt_rxdev[i]);	/* waits for handlers */
	dev_put(kt_rxdev[i]);
	kt_rxdev[i] = NULL;
}

static int kt_netdev_event(struct notifier_block *nb, unsigned long event,
			   void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	int i;

	if (event != NETDEV_UNREGISTER)
		return NOTIFY_DONE;
	for (i = 0; i < kt_nifs; i++)
		if (kt_rxdev[i] == dev)
			kt_rx_release(i);
	return NOTIFY_DONE;
}

static struct notifier_block kt_nb = {
	.notifier_call = kt_netdev_event,
};

static void kt_rx_register(void)
{
	int i, err;

	rtnl_lock();
	for (i = 0; i < kt_nifs; i++) {
		struct net_device *dev = __dev_get_by_index(&init_net,
							    kt_ifindex[i]);

		if (!dev)
			continue;
		err = netdev_rx_handler_register(dev, kt_rx_handler, NULL);
		if (err) {
			pr_info("%s: rx_handler: %d, packet handler only\n",
				dev->name, err);
			continue;
		}
		dev_hold(dev);
		kt_rxdev[i] = dev;
	}
	rtnl_unlock();
}

static void kt_rx_unregister(void)
{
	int i;

	rtnl_lock();
	for (i = 0; i < kt_nifs; i++)
		if (kt_rxdev[i])
			kt_rx_release(i);
	rtnl_unlock();
}

/* ATA strings: two characters per 16-bit word, the first in the high byte. */
static void kt_ident_str(u8 *id, int word, int len, const char *s)
{
	int i;

	for (i = 0; i < len; i += 2) {
		char a = *s ? *s++ : ' ';
		char b = *s ? *s++ : ' ';

		id[2 * (word + i / 2)] = b;
		id[2 * (word + i / 2) + 1] = a;
	}
}

static void kt_ident_w(u8 *id, int word, u16 v)
{
	id[2 * word] = v;
	id[2 * word + 1] = v >> 8;
}

static void kt_build_identify(struct kt_target *tg)
{
	u64 s28 = min_t(u64, tg->sectors, 0x0fffffff);
	char serial[21];

	snprintf(serial, sizeof(serial), "KTGT-%u-%u", shelf, tg->slot);
	memset(tg->ident, 0, sizeof(tg->ident));
	kt_ident_w(tg->ident, 0, 0x0040);		/* fixed device */
	kt_ident_str(tg->ident, 10, 20, serial);
	kt_ident_str(tg->ident, 23, 8, "4001");
	kt_ident_str(tg->ident, 27, 40, "aoe_ktgt RAM disk");
	kt_ident_w(tg->ident, 47, 0x8000 | KT_MAX_SECT);
	kt_ident_w(tg->ident, 49, 0x0200);		/* LBA */
	kt_ident_w(tg->ident, 53, 0x0006);
	kt_ident_w(tg->ident, 60, s28 & 0xffff);
	kt_ident_w(tg->ident, 61, s28 >> 16);
	kt_ident_w(tg->ident, 80, 0x00f0);
	kt_ident_w(tg->ident, 82, 0x4020);		/* write cache supported */
	/* 83: valid, FLUSH CACHE EXT, FLUSH CACHE, LBA48 */
	kt_ident_w(tg->ident, 83, 0x4000 | 0x2000 | 0x1000 | 0x0400);
	kt_ident_w(tg->ident, 84, 0x4000 | 0x0040);	/* FUA EXT */
	kt_ident_w(tg->ident, 85, 0);			/* no write cache */
	kt_ident_w(tg->ident, 86, 0x2000 | 0x1000 | 0x0400);
	kt_ident_w(tg->ident, 87, 0x4000 | 0x0040);
	kt_ident_w(tg->ident, 100, tg->sectors & 0xffff);
	kt_ident_w(tg->ident, 101, tg->sectors >> 16);
	kt_ident_w(tg->ident, 102, tg->sectors >> 32);
	kt_ident_w(tg->ident, 103, tg->sectors >> 48);
}

static int kt_parse_ifaces(void)
{
	char *s, *p, *name;
	int ret = 0;

	s = kstrdup(ifaces, GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	p = s;
	while ((name = strsep(&p, ",")) != NULL) {
		struct net_device *dev;

		if (!*name)
			continue;
		if (kt_nifs == KT_MAX_IFS) {
			pr_err("more than %d interfaces\n", KT_MAX_IFS);
			ret = -EINVAL;
			break;
		}
		dev = dev_get_by_name(&init_net, name);
		if (!dev) {
			pr_err("no interface %s\n", name);
			ret = -ENODEV;
			break;
		}
		kt_ifindex[kt_nifs++] = dev->ifindex;
		dev_put(dev);
	}
	kfree(s);
	if (!ret && !kt_nifs) {
		pr_err("ifaces= names no interface\n");
		ret = -EINVAL;
	}
	return ret;
}

static void kt_free(void)
{
	int i;

	for (i = 0; i < kt_ntgts; i++)
		vfree(kt_tgts[i].disk);
	kfree(kt_tgts);
	kt_tgts = NULL;
	kt_pools_free();
}

static void kt_announce(void)
{
	int i, j;

	for (i = 0; i < kt_nifs; i++) {
		struct net_device *dev = dev_get_by_index(&init_net,
							  kt_ifindex[i]);

		if (!dev)
			continue;
		for (j = 0; j < kt_ntgts; j++)
			kt_config(&kt_tgts[j], dev, dev->broadcast, NULL, NULL);
		dev_put(dev);
	}
}

static int kt_stats_get(char *buf, const struct kernel_param *kp)
{
	int i, n = 0;

	for (i = 0; i < kt_ntgts; i++) {
		struct kt_stats *s = &kt_tgts[i].st;

		n += scnprintf(buf + n, PAGE_SIZE - n,
			       "e%u.%u reads %ld writes %ld fua %ld flushes %ld identify %ld config %ld errors %ld bad %ld nomem %ld sectors_read %ld sectors_written %ld dropped %ld\n",
			       shelf, kt_tgts[i].slot,
			       atomic_long_read(&s->reads),
			       atomic_long_read(&s->writes),
			       atomic_long_read(&s->fua),
			       atomic_long_read(&s->flushes),
			       atomic_long_read(&s->identify),
			       atomic_long_read(&s->config),
			       atomic_long_read(&s->errors),
			       atomic_long_read(&s->bad),
			       atomic_long_read(&s->nomem),
			       atomic_long_read(&s->sect_r),
			       atomic_long_read(&s->sect_w),
			       atomic_long_read(&s->dropped));
	}
	return n;
}

static const struct kernel_param_ops kt_stats_ops = {
	.get = kt_stats_get,
};
module_param_cb(stats, &kt_stats_ops, NULL, 0444);
MODULE_PARM_DESC(stats, "Counters, a line per target");

static int __init kt_init(void)
{
	int i, j, ret;

	if (shelf == 0xffff || nslots < 1 || !size_mb || size_mb > 4096)
		return -EINVAL;
	if (pool_pages > KT_MAX_POOL) {
		pr_err("pool_pages %u: at most %u\n", pool_pages, KT_MAX_POOL);
		return -EINVAL;
	}
	ret = kt_parse_ifaces();
	if (ret)
		return ret;
	kt_tgts = kcalloc(nslots, sizeof(*kt_tgts), GFP_KERNEL);
	if (!kt_tgts)
		return -ENOMEM;
	for (i = 0; i < nslots; i++) {
		struct kt_target *tg = &kt_tgts[i];

		if (slots[i] < 0 || slots[i] >= 0xff)
			ret = -EINVAL;
		for (j = 0; j < i; j++)
			if (slots[j] == slots[i])
				ret = -EINVAL;
		if (ret) {
			pr_err("slot %d: not a slot, or named twice\n",
			       slots[i]);
			goto err;
		}
		tg->slot = slots[i];
		tg->sectors = (u64)size_mb << 11;
		spin_lock_init(&tg->cfg_lock);
		tg->disk = vzalloc((size_t)size_mb << 20);
		if (!tg->disk) {
			ret = -ENOMEM;
			goto err;
		}
		kt_build_identify(tg);
		kt_ntgts = i + 1;
	}
	ret = kt_pools_alloc();
	if (ret)
		goto err;
	dev_add_pack(&kt_pt);
	if (rx_handler) {
		ret = register_netdevice_notifier(&kt_nb);
		if (ret) {
			dev_remove_pack(&kt_pt);
			goto err;
		}
		kt_rx_register();
	}
	kt_announce();
	pr_info("serving %d target(s) of %u MiB on %d interface(s)\n",
		kt_ntgts, size_mb, kt_nifs);
	return 0;
err:
	kt_free();
	kt_ntgts = 0;
	return ret;
}

static void __exit kt_exit(void)
{
	if (rx_handler) {
		kt_rx_unregister();
		unregister_netdevice_notifier(&kt_nb);
	}
	dev_remove_pack(&kt_pt);	/* waits for running handlers */
	kt_free();
}

module_init(kt_init);
module_exit(kt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("In-kernel AoE test target (aoekit tests)");
