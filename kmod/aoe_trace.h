/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints (tracefs events/aoe/, bpftrace tracepoint:aoe:*): a frame
 * sent, answered, timed out (its retransmission timer expired) and sent
 * again; and every event the netlink family multicasts (target new, up,
 * down, gone; path up, down; payload and capacity changes).
 *
 * The frame events fire under aoe_tgt_lock (BH disabled) from ata.c, the
 * state events from aoe_netlink_notify(), under the same lock: a probe must
 * not sleep. Fields are copied out of the frame and path at the call, so
 * nothing here points into memory that may be freed before the event is read.
 *
 * A target is "shelf.slot"; a path is ifindex + target MAC; tag is the
 * transmission's AoE tag; lba and sectors describe the frame's data (0 for
 * FLUSH and IDENTIFY); cmd: 'R' read, 'W' write, 'F' flush, 'I' IDENTIFY.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM aoe

#if !defined(_AOE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _AOE_TRACE_H

#include <linux/tracepoint.h>
#include <linux/if_ether.h>
#include "uapi/aoe_netlink.h"

/* the enum names in the formats, resolved for trace-cmd and perf */
TRACE_DEFINE_ENUM(AOE_CMD_TARGET_NEW);
TRACE_DEFINE_ENUM(AOE_CMD_TARGET_UP);
TRACE_DEFINE_ENUM(AOE_CMD_TARGET_DOWN);
TRACE_DEFINE_ENUM(AOE_CMD_TARGET_GONE);
TRACE_DEFINE_ENUM(AOE_CMD_PAYLOAD_CHANGED);
TRACE_DEFINE_ENUM(AOE_CMD_CAPACITY_CHANGED);
TRACE_DEFINE_ENUM(AOE_TARGET_STATE_INIT);
TRACE_DEFINE_ENUM(AOE_TARGET_STATE_UP);
TRACE_DEFINE_ENUM(AOE_TARGET_STATE_DOWN);

DECLARE_EVENT_CLASS(aoe_frame_class,
	TP_PROTO(u16 shelf, u8 slot, int ifindex, const u8 *mac, u32 tag,
		 u64 lba, u32 sectors, char cmd, u8 tries),
	TP_ARGS(shelf, slot, ifindex, mac, tag, lba, sectors, cmd, tries),
	TP_STRUCT__entry(
		__field(u16, shelf)
		__field(u8, slot)
		__field(int, ifindex)
		__array(u8, mac, ETH_ALEN)
		__field(u32, tag)
		__field(u64, lba)
		__field(u32, sectors)
		__field(char, cmd)
		__field(u8, tries)
	),
	TP_fast_assign(
		__entry->shelf = shelf;
		__entry->slot = slot;
		__entry->ifindex = ifindex;
		memcpy(__entry->mac, mac, ETH_ALEN);
		__entry->tag = tag;
		__entry->lba = lba;
		__entry->sectors = sectors;
		__entry->cmd = cmd;
		__entry->tries = tries;
	),
	TP_printk("e%u.%u if%d %pM tag %08x %c lba %llu sectors %u tries %u",
		  __entry->shelf, __entry->slot, __entry->ifindex, __entry->mac,
		  __entry->tag, __entry->cmd, __entry->lba, __entry->sectors,
		  __entry->tries)
);

/* A frame went to the device's queue (first transmission or again). */
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
		__field(u16, shelf)
		__field(u8, slot)
		__field(int, ifindex)
		__array(u8, mac, ETH_ALEN)
		__field(u32, tag)
		__field(u64, lba)
		__field(u32, sectors)
		__field(char, cmd)
		__field(s64, rtt_us)
		__field(u8, status)
		__field(u8, error)
	),
	TP_fast_assign(
		__entry->shelf = shelf;
		__entry->slot = slot;
		__entry->ifindex = ifindex;
		memcpy(__entry->mac, mac, ETH_ALEN);
		__entry->tag = tag;
		__entry->lba = lba;
		__entry->sectors = sectors;
		__entry->cmd = cmd;
		__entry->rtt_us = rtt_us;
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
 * @waited_us (its RTO was @rto_us): the frame waits to be sent again.
 */
TRACE_EVENT(aoe_frame_timeout,
	TP_PROTO(u16 shelf, u8 slot, int ifindex, const u8 *mac, u32 tag,
		 u64 lba, u32 sectors, char cmd, s64 waited_us, u32 rto_us),
	TP_ARGS(shelf, slot, ifindex, mac, tag, lba, sectors, cmd, waited_us,
		rto_us),
	TP_STRUCT__entry(
		__field(u16, shelf)
		__field(u8, slot)
		__field(int, ifindex)
		__array(u8, mac, ETH_ALEN)
		__field(u32, tag)
		__field(u64, lba)
		__field(u32, sectors)
		__field(char, cmd)
		__field(s64, waited_us)
		__field(u32, rto_us)
	),
	TP_fast_assign(
		__entry->shelf = shelf;
		__entry->slot = slot;
		__entry->ifindex = ifindex;
		memcpy(__entry->mac, mac, ETH_ALEN);
		__entry->tag = tag;
		__entry->lba = lba;
		__entry->sectors = sectors;
		__entry->cmd = cmd;
		__entry->waited_us = waited_us;
		__entry->rto_us = rto_us;
	),
	TP_printk("e%u.%u if%d %pM tag %08x %c lba %llu sectors %u waited_us %lld rto_us %u",
		  __entry->shelf, __entry->slot, __entry->ifindex, __entry->mac,
		  __entry->tag, __entry->cmd, __entry->lba, __entry->sectors,
		  __entry->waited_us, __entry->rto_us)
);

/*
 * A frame goes out again: @old_tag was its last transmission, on
 * @old_ifindex/@old_mac; @new_tag the new one, on @ifindex/@mac.
 */
TRACE_EVENT(aoe_frame_retransmit,
	TP_PROTO(u16 shelf, u8 slot, int old_ifindex, const u8 *old_mac,
		 u32 old_tag, int ifindex, const u8 *mac, u32 tag, u64 lba,
		 u32 sectors, char cmd, u8 tries),
	TP_ARGS(shelf, slot, old_ifindex, old_mac, old_tag, ifindex, mac, tag,
		lba, sectors, cmd, tries),
	TP_STRUCT__entry(
		__field(u16, shelf)
		__field(u8, slot)
		__field(int, old_ifindex)
		__array(u8, old_mac, ETH_ALEN)
		__field(u32, old_tag)
		__field(int, ifindex)
		__array(u8, mac, ETH_ALEN)
		__field(u32, tag)
		__field(u64, lba)
		__field(u32, sectors)
		__field(char, cmd)
		__field(u8, tries)
	),
	TP_fast_assign(
		__entry->shelf = shelf;
		__entry->slot = slot;
		__entry->old_ifindex = old_ifindex;
		memcpy(__entry->old_mac, old_mac, ETH_ALEN);
		__entry->old_tag = old_tag;
		__entry->ifindex = ifindex;
		memcpy(__entry->mac, mac, ETH_ALEN);
		__entry->tag = tag;
		__entry->lba = lba;
		__entry->sectors = sectors;
		__entry->cmd = cmd;
		__entry->tries = tries;
	),
	TP_printk("e%u.%u tag %08x if%d %pM -> tag %08x if%d %pM %c lba %llu sectors %u tries %u",
		  __entry->shelf, __entry->slot, __entry->old_tag,
		  __entry->old_ifindex, __entry->old_mac, __entry->tag,
		  __entry->ifindex, __entry->mac, __entry->cmd, __entry->lba,
		  __entry->sectors, __entry->tries)
);

/* A path of a target went up or down (@up), seen through @ifname. */
TRACE_EVENT(aoe_path_state,
	TP_PROTO(u16 shelf, u8 slot, int ifindex, const char *ifname,
		 const u8 *mac, bool up),
	TP_ARGS(shelf, slot, ifindex, ifname, mac, up),
	TP_STRUCT__entry(
		__field(u16, shelf)
		__field(u8, slot)
		__field(int, ifindex)
		__array(char, ifname, IFNAMSIZ)
		__array(u8, mac, ETH_ALEN)
		__field(bool, up)
	),
	TP_fast_assign(
		__entry->shelf = shelf;
		__entry->slot = slot;
		__entry->ifindex = ifindex;
		strscpy(__entry->ifname, ifname, IFNAMSIZ);
		memcpy(__entry->mac, mac, ETH_ALEN);
		__entry->up = up;
	),
	TP_printk("e%u.%u %s (if%d) %pM %s", __entry->shelf, __entry->slot,
		  __entry->ifname, __entry->ifindex, __entry->mac,
		  __entry->up ? "up" : "down")
);

/*
 * A target event, as the netlink family announces it (@event: AOE_CMD_TARGET_NEW,
 * _UP, _DOWN, _GONE, AOE_CMD_PAYLOAD_CHANGED, AOE_CMD_CAPACITY_CHANGED);
 * @state the target's state after it (enum aoe_target_state), @sectors its
 * capacity, @payload its data bytes per frame.
 */
TRACE_EVENT(aoe_target_state,
	TP_PROTO(u16 shelf, u8 slot, u8 event, u32 state, u64 sectors,
		 u32 payload),
	TP_ARGS(shelf, slot, event, state, sectors, payload),
	TP_STRUCT__entry(
		__field(u16, shelf)
		__field(u8, slot)
		__field(u8, event)
		__field(u32, state)
		__field(u64, sectors)
		__field(u32, payload)
	),
	TP_fast_assign(
		__entry->shelf = shelf;
		__entry->slot = slot;
		__entry->event = event;
		__entry->state = state;
		__entry->sectors = sectors;
		__entry->payload = payload;
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
		  __print_symbolic(__entry->state,
				   { AOE_TARGET_STATE_INIT, "init" },
				   { AOE_TARGET_STATE_UP, "up" },
				   { AOE_TARGET_STATE_DOWN, "down" }),
		  __entry->sectors, __entry->payload)
);

#endif /* _AOE_TRACE_H */

/* an out-of-tree module: the header is found beside this file */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE aoe_trace
#include <trace/define_trace.h>
