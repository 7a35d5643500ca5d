/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints (tracefs events/aoe/, bpftrace tracepoint:aoe:*): a frame
 * sent, answered, timed out (its retransmission timer expired), sent again
 * and given up; every change of a path's or a target's state; and every
 * event the netlink family multicasts (target new, up, down, gone; payload
 * and capacity changes).
 *
 * All of them fire with a target's lock held (BH disabled): a probe must not
 * sleep. Fields are copied out of the frame and path at the call, so
 * nothing here points into memory that may be freed before the event is
 * read; strings are padded, fields ordered so that no padding is left.
 *
 * A target is "shelf.slot"; a path is ifindex + target MAC; tag is the
 * transmission's AoE tag; lba and sectors describe the frame's data (0 for
 * FLUSH; IDENTIFY reads 1 sector at 0); cmd: 'R' read, 'W' write,
 * 'F' flush, 'I' IDENTIFY.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM aoe

#if !defined(_AOE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _AOE_TRACE_H

#include <linux/tracepoint.h>
#include <linux/if_ether.h>
#include <linux/netdevice.h>
#include "uapi/aoe_netlink.h"

/* the enum names in the formats, resolved for trace-cmd and perf */
TRACE_DEFINE_ENUM(AOE_CMD_TARGET_NEW);
TRACE_DEFINE_ENUM(AOE_CMD_TARGET_UP);
TRACE_DEFINE_ENUM(AOE_CMD_TARGET_DOWN);
TRACE_DEFINE_ENUM(AOE_CMD_TARGET_GONE);
TRACE_DEFINE_ENUM(AOE_CMD_PAYLOAD_CHANGED);
TRACE_DEFINE_ENUM(AOE_CMD_CAPACITY_CHANGED);
TRACE_DEFINE_ENUM(AOE_TARGET_STATE_UNSPEC);
TRACE_DEFINE_ENUM(AOE_TARGET_STATE_INIT);
TRACE_DEFINE_ENUM(AOE_TARGET_STATE_UP);
TRACE_DEFINE_ENUM(AOE_TARGET_STATE_DOWN);
TRACE_DEFINE_ENUM(AOE_PATH_STATE_UNSPEC);
TRACE_DEFINE_ENUM(AOE_PATH_STATE_UP);
TRACE_DEFINE_ENUM(AOE_PATH_STATE_DOWN);
TRACE_DEFINE_ENUM(AOE_PATH_STATE_CANDIDATE);

#define aoe_show_target_state(s)					\
	__print_symbolic(s, { AOE_TARGET_STATE_UNSPEC, "none" },	\
			 { AOE_TARGET_STATE_INIT, "init" },		\
			 { AOE_TARGET_STATE_UP, "up" },			\
			 { AOE_TARGET_STATE_DOWN, "down" })
#define aoe_show_path_state(s)						\
	__print_symbolic(s, { AOE_PATH_STATE_UNSPEC, "none" },		\
			 { AOE_PATH_STATE_UP, "up" },			\
			 { AOE_PATH_STATE_DOWN, "down" },		\
			 { AOE_PATH_STATE_CANDIDATE, "candidate" })

DECLARE_EVENT_CLASS(aoe_frame_class,
	TP_PROTO(u16 shelf, u8 slot, int ifindex, const u8 *mac, u32 tag,
		 u64 lba, u32 sectors, char cmd, u8 tries),
	TP_ARGS(shelf, slot, ifindex, mac, tag, lba, sectors, cmd, tries),
	TP_STRUCT__entry(
		__field(u64, lba)
		__field(int, ifindex)
		__field(u32, tag)
		__field(u32, sectors)
		__field(u16, shelf)
		__array(u8, mac, ETH_ALEN)
		__field(u8, slot)
		__field(char, cmd)
		__field(u8, tries)
		__field(u8, pad)
	),
	TP_fast_assign(
		__entry->lba = lba;
		__entry->ifindex = ifindex;
		__entry->tag = tag;
		__entry->sectors = sectors;
		__entry->shelf = shelf;
		memcpy(__entry->mac, mac, ETH_ALEN);
		__entry->slot = slot;
		__entry->cmd = cmd;
		__entry->tries = tries;
		__entry->pad = 0;
	),
	TP_printk("e%u.%u if%d %pM tag %08x %c lba %llu sectors %u tries %u",
		  __entry->shelf, __entry->slot, __entry->ifindex, __entry->mac,
		  __entry->tag, __entry->cmd, __entry->lba, __entry->sectors,
		  __entry->tries)
);

/*
 * A frame went to the device's queue: @tries 0 for its first transmission
 * (the tail of a frame split after an MTU shrink is a first transmission
 * of its own).
 */
DEFINE_EVENT(aoe_frame_class, aoe_frame_sent,
	TP_PROTO(u16 shelf, u8 slot, int ifindex, const u8 *mac, u32 tag,
		 u64 lba, u32 sectors, char cmd, u8 tries),
	TP_ARGS(shelf, slot, ifindex, mac, tag, lba, sectors, cmd, tries));

/*
 * The answer to the transmission with @tag on path @ifindex/@mac came:
 * @rtt_us since that transmission; @status the ATA status byte, @error the
 * AoE error (0: none).
 */
TRACE_EVENT(aoe_frame_answered,
	TP_PROTO(u16 shelf, u8 slot, int ifindex, const u8 *mac, u32 tag,
		 u64 lba, u32 sectors, char cmd, s64 rtt_us, u8 status,
		 u8 error),
	TP_ARGS(shelf, slot, ifindex, mac, tag, lba, sectors, cmd, rtt_us,
		status, error),
	TP_STRUCT__entry(
		__field(u64, lba)
		__field(s64, rtt_us)
		__field(int, ifindex)
		__field(u32, tag)
		__field(u32, sectors)
		__field(u16, shelf)
		__array(u8, mac, ETH_ALEN)
		__field(u8, slot)
		__field(char, cmd)
		__field(u8, status)
		__field(u8, error)
	),
	TP_fast_assign(
		__entry->lba = lba;
		__entry->rtt_us = rtt_us;
		__entry->ifindex = ifindex;
		__entry->tag = tag;
		__entry->sectors = sectors;
		__entry->shelf = shelf;
		memcpy(__entry->mac, mac, ETH_ALEN);
		__entry->slot = slot;
		__entry->cmd = cmd;
		__entry->status = status;
		__entry->error = error;
	),
	TP_printk("e%u.%u if%d %pM tag %08x %c lba %llu sectors %u rtt_us %lld status 0x%02x error %u",
		  __entry->shelf, __entry->slot, __entry->ifindex, __entry->mac,
		  __entry->tag, __entry->cmd, __entry->lba, __entry->sectors,
		  __entry->rtt_us, __entry->status, __entry->error)
);

/*
 * The retransmission timer of the transmission with @tag expired after
 * @waited_us; @rto_us is the timeout it had (a FLUSH's is the disk's, in
 * seconds). The frame waits to be sent again.
 */
TRACE_EVENT(aoe_frame_timeout,
	TP_PROTO(u16 shelf, u8 slot, int ifindex, const u8 *mac, u32 tag,
		 u64 lba, u32 sectors, char cmd, s64 waited_us, u32 rto_us),
	TP_ARGS(shelf, slot, ifindex, mac, tag, lba, sectors, cmd, waited_us,
		rto_us),
	TP_STRUCT__entry(
		__field(u64, lba)
		__field(s64, waited_us)
		__field(int, ifindex)
		__field(u32, tag)
		__field(u32, sectors)
		__field(u32, rto_us)
		__field(u16, shelf)
		__array(u8, mac, ETH_ALEN)
		__field(u8, slot)
		__field(char, cmd)
		__array(u8, pad, 6)
	),
	TP_fast_assign(
		__entry->lba = lba;
		__entry->waited_us = waited_us;
		__entry->ifindex = ifindex;
		__entry->tag = tag;
		__entry->sectors = sectors;
		__entry->rto_us = rto_us;
		__entry->shelf = shelf;
		memcpy(__entry->mac, mac, ETH_ALEN);
		__entry->slot = slot;
		__entry->cmd = cmd;
		memset(__entry->pad, 0, sizeof(__entry->pad));
	),
	TP_printk("e%u.%u if%d %pM tag %08x %c lba %llu sectors %u waited_us %lld rto_us %u",
		  __entry->shelf, __entry->slot, __entry->ifindex, __entry->mac,
		  __entry->tag, __entry->cmd, __entry->lba, __entry->sectors,
		  __entry->waited_us, __entry->rto_us)
);

/*
 * A frame went out again: @old_tag was its last transmission, on
 * @old_ifindex/@old_mac (0 and 00:..:00 if that path is gone); @tag the
 * new one, on @ifindex/@mac.
 */
TRACE_EVENT(aoe_frame_retransmit,
	TP_PROTO(u16 shelf, u8 slot, int old_ifindex, const u8 *old_mac,
		 u32 old_tag, int ifindex, const u8 *mac, u32 tag, u64 lba,
		 u32 sectors, char cmd, u8 tries),
	TP_ARGS(shelf, slot, old_ifindex, old_mac, old_tag, ifindex, mac, tag,
		lba, sectors, cmd, tries),
	TP_STRUCT__entry(
		__field(u64, lba)
		__field(int, old_ifindex)
		__field(u32, old_tag)
		__field(int, ifindex)
		__field(u32, tag)
		__field(u32, sectors)
		__array(u8, old_mac, ETH_ALEN)
		__array(u8, mac, ETH_ALEN)
		__field(u16, shelf)
		__field(u8, slot)
		__field(char, cmd)
		__field(u8, tries)
		__array(u8, pad, 3)
	),
	TP_fast_assign(
		__entry->lba = lba;
		__entry->old_ifindex = old_ifindex;
		__entry->old_tag = old_tag;
		__entry->ifindex = ifindex;
		__entry->tag = tag;
		__entry->sectors = sectors;
		memcpy(__entry->old_mac, old_mac, ETH_ALEN);
		memcpy(__entry->mac, mac, ETH_ALEN);
		__entry->shelf = shelf;
		__entry->slot = slot;
		__entry->cmd = cmd;
		__entry->tries = tries;
		memset(__entry->pad, 0, sizeof(__entry->pad));
	),
	TP_printk("e%u.%u tag %08x if%d %pM -> tag %08x if%d %pM %c lba %llu sectors %u tries %u",
		  __entry->shelf, __entry->slot, __entry->old_tag,
		  __entry->old_ifindex, __entry->old_mac, __entry->tag,
		  __entry->ifindex, __entry->mac, __entry->cmd, __entry->lba,
		  __entry->sectors, __entry->tries)
);

/*
 * A frame is given up and its request (or IDENTIFY) ends with @status
 * (a blk_status_t: 10 BLK_STS_IOERR; reservation conflicts 16 or 6 by
 * kernel), sent @tries times, @age_ms after its first transmission.
 */
TRACE_EVENT(aoe_frame_failed,
	TP_PROTO(u16 shelf, u8 slot, u64 lba, u32 sectors, char cmd, u8 tries,
		 u8 status, u32 age_ms),
	TP_ARGS(shelf, slot, lba, sectors, cmd, tries, status, age_ms),
	TP_STRUCT__entry(
		__field(u64, lba)
		__field(u32, sectors)
		__field(u32, age_ms)
		__field(u16, shelf)
		__field(u8, slot)
		__field(char, cmd)
		__field(u8, tries)
		__field(u8, status)
		__field(u16, pad)
	),
	TP_fast_assign(
		__entry->lba = lba;
		__entry->sectors = sectors;
		__entry->age_ms = age_ms;
		__entry->shelf = shelf;
		__entry->slot = slot;
		__entry->cmd = cmd;
		__entry->tries = tries;
		__entry->status = status;
		__entry->pad = 0;
	),
	TP_printk("e%u.%u %c lba %llu sectors %u tries %u status %u age_ms %u",
		  __entry->shelf, __entry->slot, __entry->cmd, __entry->lba,
		  __entry->sectors, __entry->tries, __entry->status,
		  __entry->age_ms)
);

/* A path's state changed (enum aoe_path_state), seen through @ifname. */
TRACE_EVENT(aoe_path_state,
	TP_PROTO(u16 shelf, u8 slot, int ifindex, const char *ifname,
		 const u8 *mac, u32 old, u32 new),
	TP_ARGS(shelf, slot, ifindex, ifname, mac, old, new),
	TP_STRUCT__entry(
		__field(int, ifindex)
		__field(u32, old)
		__field(u32, new)
		__array(char, ifname, IFNAMSIZ)
		__field(u16, shelf)
		__array(u8, mac, ETH_ALEN)
		__field(u8, slot)
		__field(u8, pad1)
		__field(u16, pad2)
	),
	TP_fast_assign(
		__entry->ifindex = ifindex;
		__entry->old = old;
		__entry->new = new;
		strscpy_pad(__entry->ifname, ifname, IFNAMSIZ);
		__entry->shelf = shelf;
		memcpy(__entry->mac, mac, ETH_ALEN);
		__entry->slot = slot;
		__entry->pad1 = 0;
		__entry->pad2 = 0;
	),
	TP_printk("e%u.%u %s (if%d) %pM %s -> %s", __entry->shelf,
		  __entry->slot, __entry->ifname, __entry->ifindex,
		  __entry->mac, aoe_show_path_state(__entry->old),
		  aoe_show_path_state(__entry->new))
);

/* A target's state changed (enum aoe_target_state; "none": it is new). */
TRACE_EVENT(aoe_target_state,
	TP_PROTO(u16 shelf, u8 slot, u32 old, u32 new),
	TP_ARGS(shelf, slot, old, new),
	TP_STRUCT__entry(
		__field(u32, old)
		__field(u32, new)
		__field(u16, shelf)
		__field(u8, slot)
		__field(u8, pad)
	),
	TP_fast_assign(
		__entry->old = old;
		__entry->new = new;
		__entry->shelf = shelf;
		__entry->slot = slot;
		__entry->pad = 0;
	),
	TP_printk("e%u.%u %s -> %s", __entry->shelf, __entry->slot,
		  aoe_show_target_state(__entry->old),
		  aoe_show_target_state(__entry->new))
);

/*
 * A target event as the netlink family announces it (@event: new, up,
 * down, gone, payload_changed, capacity_changed); @state the target's
 * state when it was sent, @sectors its capacity, @payload its data bytes
 * per frame.
 */
TRACE_EVENT(aoe_target_event,
	TP_PROTO(u16 shelf, u8 slot, u8 event, u32 state, u64 sectors,
		 u32 payload),
	TP_ARGS(shelf, slot, event, state, sectors, payload),
	TP_STRUCT__entry(
		__field(u64, sectors)
		__field(u32, state)
		__field(u32, payload)
		__field(u16, shelf)
		__field(u8, slot)
		__field(u8, event)
		__field(u32, pad)
	),
	TP_fast_assign(
		__entry->sectors = sectors;
		__entry->state = state;
		__entry->payload = payload;
		__entry->shelf = shelf;
		__entry->slot = slot;
		__entry->event = event;
		__entry->pad = 0;
	),
	TP_printk("e%u.%u %s state %s sectors %llu payload %u",
		  __entry->shelf, __entry->slot,
		  __print_symbolic(__entry->event,
				   { AOE_CMD_TARGET_NEW, "new" },
				   { AOE_CMD_TARGET_UP, "up" },
				   { AOE_CMD_TARGET_DOWN, "down" },
				   { AOE_CMD_TARGET_GONE, "gone" },
				   { AOE_CMD_PAYLOAD_CHANGED, "payload_changed" },
				   { AOE_CMD_CAPACITY_CHANGED, "capacity_changed" }),
		  aoe_show_target_state(__entry->state),
		  __entry->sectors, __entry->payload)
);

#endif /* _AOE_TRACE_H */

/* an out-of-tree module: the header is found beside this file */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE aoe_trace
#include <trace/define_trace.h>
