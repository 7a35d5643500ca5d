/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * aoekit: generic netlink interface of the aoe initiator module.
 *
 * Family name:    "aoe"   (AOE_GENL_NAME)
 * Family version: 2       (AOE_GENL_VERSION; 2 added split target dumps)
 * Multicast:      "events" (AOE_GENL_MCGRP_EVENTS)
 *
 * Userland resolves the family by name; the module autoloads on that lookup
 * (MODULE_ALIAS_GENL_FAMILY). Reading (GET_*) needs no privilege; anything
 * that changes state or sends frames needs CAP_NET_ADMIN in the initial user
 * namespace and fails with -EPERM otherwise.
 *
 * Network namespaces: the family is visible in the initial network
 * namespace only. Interfaces of other namespaces carry AoE only with the
 * module parameter aoe_netns=Y, and then only in namespaces owned by the
 * initial user namespace. DISCOVER broadcasts in every namespace AoE may
 * use; targets are global (one block device per shelf.slot), so GET_TARGET
 * shows every path, those over another namespace's interface with
 * AOE_PATH_A_NETNSID.
 *
 * Commands
 * --------
 *
 * AOE_CMD_GET_TARGET
 *   With NLM_F_DUMP: every known target, one or more messages each (see
 *   "Split targets" below). Without NLM_F_DUMP the request must carry
 *   AOE_A_SHELF and AOE_A_SLOT and gets one message with every path
 *   (about 10 KiB with 16 paths: a reader with a smaller receive buffer,
 *   or one that does not peek, uses the dump), or -ENOENT. Every dump
 *   message carries AOE_A_GENERATION; when the target table changes during
 *   a dump the kernel sets NLM_F_DUMP_INTR and userland retries. A dump
 *   asked while the module is still loading fails with -EAGAIN (the family
 *   exists before the module's init is done; retry after modprobe returned).
 *   Reply attributes:
 *
 *     AOE_A_GENERATION: NLA_U32, changes whenever targets or paths are added
 *                       or removed
 *     AOE_A_SHELF: NLA_U16, major address (0..0xfffe)
 *     AOE_A_SLOT: NLA_U8, minor address (0..0xfe)
 *     AOE_A_DEVICE: NLA_NUL_STRING, device name "eS.L" (/dev/etherd/eS.L)
 *     AOE_A_STATE: NLA_U32, enum aoe_target_state
 *     AOE_A_SECTORS: NLA_U64, capacity in 512-byte sectors (0 until known)
 *     AOE_A_PAYLOAD: NLA_U32, data bytes carried per ATA frame, the minimum
 *                    over the usable paths (0 when no path is usable)
 *     AOE_A_MODEL: NLA_NUL_STRING, ATA model (after IDENTIFY)
 *     AOE_A_SERIAL: NLA_NUL_STRING, ATA serial number (after IDENTIFY)
 *     AOE_A_FIRMWARE: NLA_NUL_STRING, ATA firmware revision (after IDENTIFY)
 *     AOE_A_LBA48: NLA_FLAG, present when the target does LBA48
 *     AOE_A_CONFIG: NLA_BINARY, the config string (0..1024 bytes, not
 *                   terminated), as last announced by the target
 *     AOE_A_LAST_RX_MS: NLA_U64, milliseconds since any path last answered
 *     AOE_A_FLUSH_MODE: NLA_U32, enum aoe_flush_mode, the target's own
 *                       setting (AOE_FLUSH_MODE_DEFAULT: the module's
 *                       aoe_flush applies)
 *     AOE_A_CACHE: NLA_U32, AOE_CACHE_* bits below: what IDENTIFY says of
 *                  the target's write cache and flush commands, and what
 *                  the block device declares (after IDENTIFY)
 *     AOE_A_OUTSTANDING: NLA_U32, ATA frames in flight, all paths
 *     AOE_A_DEADSECS: NLA_U32, the target's effective deadsecs (its own,
 *                     else aoe_deadsecs); AOE_A_FAST_FAIL: NLA_U32, its
 *                     effective fast-fail time in seconds (its own, else
 *                     aoe_fast_fail; 0: off); AOE_A_POLICY: NLA_U32,
 *                     AOE_POLICY_* bits below (which of the two are the
 *                     target's own, and whether fast-fail is failing its
 *                     I/O now); AOE_A_FAST_FAILS: NLA_U64, how often
 *                     fast-fail failed its I/O (see AOE_CMD_SET_TARGET)
 *     AOE_A_COUNTERS: NLA_NESTED, target totals, AOE_CNT_A_* below
 *     AOE_A_CONFLICTS: NLA_NESTED, paths refused as another device and
 *                      still remembered (at most 4, 300 s; absent when
 *                      none; in a dump, in the target's first message):
 *       0: NLA_NESTED
 *         AOE_CONFLICT_A_IFINDEX: NLA_U32, the local interface
 *         AOE_CONFLICT_A_MAC: NLA_BINARY, exactly 6 bytes, the refused MAC
 *         AOE_CONFLICT_A_SERIAL: NLA_NUL_STRING, the serial it answered
 *         AOE_CONFLICT_A_REASON: NLA_U32, enum aoe_conflict_reason
 *         AOE_CONFLICT_A_AGE_MS: NLA_U32, ms since it was refused
 *         AOE_CONFLICT_A_EXPIRES_MS: NLA_U32, ms it stays remembered
 *       ...
 *     Identity: AOE_A_SERIAL, AOE_A_MODEL, AOE_A_SECTORS and AOE_A_LBA48
 *     are the target's identity (its first answered IDENTIFY). A path
 *     (AOE_PATH_A_STATE) is AOE_PATH_STATE_CANDIDATE and carries no I/O
 *     until an IDENTIFY over exactly that path matched it (the same serial
 *     and model with another capacity matches when no other verified path
 *     is up or an IDENTIFY over one confirms it: a resize, the disk is
 *     revalidated); a mismatch refuses it (not a path any more, counted,
 *     AOE_CMD_ADDRESS_CONFLICT), and every other path to its MAC is
 *     checked again. Answers other than IDENTIFY are taken only from paths
 *     in state AOE_PATH_STATE_UP (else AOE_DROP_WRONG_PATH).
 *     AOE_A_PATH_COUNT: NLA_U32, how many paths the target has; a message
 *                       may carry fewer (split dump, events)
 *     AOE_A_PATH_FIRST: NLA_U32, dump messages only: index of the first
 *                       path of this message's AOE_A_PATHS among the
 *                       target's paths (0 in its first message)
 *     AOE_A_PATHS: NLA_NESTED
 *       0: NLA_NESTED, one path (local interface x target MAC)
 *         AOE_PATH_A_IFINDEX: NLA_U32
 *         AOE_PATH_A_IFNAME: NLA_NUL_STRING
 *         AOE_PATH_A_MAC: NLA_BINARY, exactly 6 bytes, the target's MAC
 *         AOE_PATH_A_STATE: NLA_U32, enum aoe_path_state
 *         AOE_PATH_A_BUFCNT: NLA_U16, target buffer count (Query Config)
 *         AOE_PATH_A_FWVER: NLA_U16, target firmware version (Query Config)
 *         AOE_PATH_A_MAXSECT: NLA_U8, most sectors per ATA frame the target
 *                             takes (Query Config "sector count"; 0 -> 2)
 *         AOE_PATH_A_MTU: NLA_U32, MTU of the local interface
 *         AOE_PATH_A_PAYLOAD: NLA_U32, data bytes per frame on this path
 *         AOE_PATH_A_RTT_AVG_US: NLA_U32, smoothed round-trip time
 *         AOE_PATH_A_RTT_DEV_US: NLA_U32, round-trip time mean deviation
 *         AOE_PATH_A_RTT_MIN_US: NLA_U32, smallest round-trip time seen
 *         AOE_PATH_A_RTO_US: NLA_U32, current retransmission timeout
 *         AOE_PATH_A_WINDOW: NLA_U32, congestion window (frames)
 *         AOE_PATH_A_OUTSTANDING: NLA_U32, frames in flight on this path
 *         AOE_PATH_A_LAST_RX_MS: NLA_U64, ms since this path last answered
 *         AOE_PATH_A_COUNTERS: NLA_NESTED, AOE_CNT_A_* for this path
 *         AOE_PATH_A_NETNSID: NLA_S32, only when the local interface is in
 *                             another network namespace than the initial
 *                             one: the initial namespace's id of it
 *                             (as "ip netns list-id"), -1 if it has none;
 *                             IFINDEX and IFNAME are that namespace's
 *       0: NLA_NESTED
 *         ...
 *
 *   Counters (AOE_A_COUNTERS, AOE_PATH_A_COUNTERS), all NLA_U64, monotonic
 *   from module load (they never go backwards while a target exists):
 *     AOE_CNT_A_FRAMES_SENT, AOE_CNT_A_FRAMES_RECEIVED, AOE_CNT_A_RETRANSMITS,
 *     AOE_CNT_A_TIMEOUTS, AOE_CNT_A_LOST, AOE_CNT_A_BYTES_READ,
 *     AOE_CNT_A_BYTES_WRITTEN, AOE_CNT_A_READ_REQS, AOE_CNT_A_WRITE_REQS,
 *     AOE_CNT_A_ATA_ERRORS
 *     AOE_CNT_A_BACKOFFS: timeout events, each backing the path's RTO off
 *       once (frames that time out together, a burst, count once)
 *     AOE_CNT_A_FLUSHES_SENT: FLUSH CACHE (EXT) commands sent (first
 *       transmissions), one per flush request; AOE_CNT_A_FLUSHES_ANSWERED:
 *       answered with success; AOE_CNT_A_FLUSHES_FAILED: flush requests
 *       failed (ATA error or abort, AoE error, deadline, target down)
 *     AOE_CNT_A_FUA_WRITES: WRITE DMA FUA EXT frames sent (first
 *       transmissions)
 *     AOE_CNT_A_RESERVE_CONFLICTS: I/O frames answered with AoE error 6
 *       (target reserved by another initiator): the frame is sent again on
 *       another path (another local interface, whose MAC the reservation
 *       may hold); the request fails with BLK_STS_RESV_CONFLICT (6.1:
 *       BLK_STS_NEXUS) when no path takes it
 *     (path counters: the path the frame went out on, or answered on)
 *     AOE_CNT_A_ADDRESS_CONFLICTS: paths refused because they answered
 *       IDENTIFY as another device (targets only)
 *     AOE_CNT_A_FENCE_GHOSTS, AOE_CNT_A_FENCE_HELD, AOE_CNT_A_FENCE_HELD_US:
 *       the stale-write fence, targets only (not in a path's counters):
 *       copies of ended writes that may still be in the network whose
 *       sectors were fenced; new writes held because they overlapped one;
 *       the total time (microseconds) those writes were held
 *     AOE_CNT_A_DROPS: NLA_NESTED, frames from this target/path dropped,
 *       attribute type = enum aoe_drop_reason, value NLA_U64 (only non-zero
 *       reasons are sent)
 *   A kernel that does not yet keep a counter leaves its attribute out;
 *   userland shows "-" for a missing one, never 0.
 *
 *   Split targets: a target with AOE_MAX_PATHS (16) paths, every counter
 *   and a 1024-byte config string takes ~10 KiB, more than one dump
 *   message (the kernel fills dump skbs of NLMSG_GOODSIZE, ~3.7 KiB with
 *   4 KiB pages, up to the largest recvmsg() buffer the socket has used,
 *   at most ~32 KiB). A dump request whose genlmsghdr.version is at least
 *   AOE_GENL_VERSION_SPLIT may get a target in several consecutive
 *   messages:
 *     - the first one has every target attribute, AOE_A_PATH_FIRST 0 and
 *       the first paths in AOE_A_PATHS;
 *     - each continuation has only AOE_A_GENERATION, AOE_A_SHELF,
 *       AOE_A_SLOT, AOE_A_DEVICE, AOE_A_PATH_COUNT, AOE_A_PATH_FIRST > 0
 *       (the number of the target's paths sent before it) and the next
 *       paths in AOE_A_PATHS.
 *   A reader appends a message with AOE_A_PATH_FIRST > 0 to the target of
 *   the message before it, after checking the address and that
 *   AOE_A_PATH_FIRST equals the paths it has; the target is complete when
 *   it has AOE_A_PATH_COUNT paths. Every message carries at least one
 *   path while paths are left; the target attributes and one path always
 *   fit one message, so a receive buffer of 4 KiB is always enough. A
 *   change of the table meanwhile (NLM_F_DUMP_INTR) means: retry.
 *   Requests with version 1 (readers that predate the split) get one
 *   message per target, alone in its skb when it does not fit with
 *   others, with the paths that fit; AOE_A_PATH_COUNT tells how many are
 *   missing. Readers of any version ignore attribute types they do not
 *   know, which is how new attributes and counters are added.
 *
 * AOE_CMD_GET_INFO
 *   Request attributes:
 *     AOE_A_NETNS_FD: NLA_U32, optional (CAP_NET_ADMIN): a file descriptor
 *       of a network namespace AoE may use (aoe_netns): AOE_A_IFLIST and
 *       AOE_A_INTERFACES are that namespace's. -EPERM for a namespace AoE
 *       does not use.
 *   One reply:
 *     AOE_A_VERSION: NLA_NUL_STRING, module version ("0.1.0")
 *     AOE_A_IFLIST: NLA_NUL_STRING, the namespace's interface list in
 *       force: in the initial one aoe_iflist (empty: every interface)
 *     AOE_A_IFLIST_INHERIT: NLA_FLAG, present when that namespace has no
 *       list of its own and follows aoe_iflist
 *     AOE_A_DEADSECS: NLA_U32, AOE_A_MAXOUT: NLA_U32, AOE_A_DYNDEVS: NLA_U32,
 *     AOE_A_MAXSECTORS: NLA_U32 (module parameters as in force)
 *     AOE_A_FAST_FAIL: NLA_U32, aoe_fast_fail (0: off)
 *     AOE_A_FLUSH_MODE: NLA_U32, aoe_flush (enum aoe_flush_mode, never
 *                       AOE_FLUSH_MODE_DEFAULT)
 *     AOE_A_NTARGETS: NLA_U32
 *     AOE_A_GENERATION: NLA_U32
 *     AOE_A_DROPS: NLA_NESTED, every frame the module dropped, by reason
 *       (type = enum aoe_drop_reason, NLA_U64), including those that could
 *       not be attributed to a target
 *     AOE_A_EVICTIONS: NLA_U64, targets forgotten since load to make room
 *       for a new one in the full target table (1024 targets)
 *     AOE_A_INTERFACES: NLA_NESTED, the interfaces AoE runs on
 *       0: NLA_NESTED
 *         AOE_IF_A_IFINDEX: NLA_U32
 *         AOE_IF_A_IFNAME: NLA_NUL_STRING
 *         AOE_IF_A_MTU: NLA_U32
 *         AOE_IF_A_UP: NLA_FLAG, present when the link is up and running
 *       ...
 *
 * AOE_CMD_DISCOVER (CAP_NET_ADMIN)
 *   Broadcasts a Query Config on every allowed interface that is up, or only
 *   on AOE_A_IFNAME when given. Answers arrive asynchronously as
 *   AOE_CMD_TARGET_NEW events (new targets) or refresh known ones.
 *     AOE_A_IFNAME: NLA_NUL_STRING, optional
 *     AOE_A_NETNS_FD: NLA_U32, optional: only in that namespace (as
 *       GET_INFO); without it in every namespace AoE may use
 *
 * AOE_CMD_SET_INTERFACES (CAP_NET_ADMIN)
 *   The initial namespace's list is aoe_iflist; every other namespace AoE
 *   uses follows it until it is given one of its own. Starts a discovery in
 *   that namespace. One of:
 *     AOE_A_IFLIST: NLA_NUL_STRING, space separated names, empty for all;
 *                   same meaning as writing /dev/etherd/interfaces from a
 *                   process in that namespace
 *     AOE_A_IFLIST_INHERIT: NLA_FLAG, another namespace than the initial
 *                   one follows aoe_iflist again
 *     AOE_A_NETNS_FD: NLA_U32, optional: the namespace (as GET_INFO);
 *                   without it the initial one
 *
 * AOE_CMD_FLUSH (CAP_NET_ADMIN)
 *   Forgets targets that are down and not open, as /dev/etherd/flush.
 *     AOE_A_FLUSH_ALL: NLA_FLAG, also targets that are up (but not open)
 *     AOE_A_SHELF + AOE_A_SLOT: optional, only that target
 *
 * AOE_CMD_REVALIDATE (CAP_NET_ADMIN)
 *   Re-reads the capacity of one target (AOE_A_SHELF, AOE_A_SLOT). The
 *   IDENTIFY answer is checked before anything changes: an unusable one (no
 *   capacity, garbage) or one with the other addressing mode (LBA48 vs
 *   28-bit) than the existing disk is refused and counted as drop reason
 *   AOE_DROP_BAD_IDENTIFY; the disk keeps its size and addressing. A new
 *   size is applied and announced with AOE_CMD_CAPACITY_CHANGED.
 *
 * AOE_CMD_SET_TARGET (CAP_NET_ADMIN)
 *   Changes settings of one target (AOE_A_SHELF, AOE_A_SLOT); -ENOENT when
 *   there is no such target. Settings (each optional):
 *     AOE_A_FLUSH_MODE: NLA_U32, enum aoe_flush_mode: the target's flush
 *       mode (AOE_FLUSH_MODE_DEFAULT: follow aoe_flush again). Setting it
 *       also forgets that the target aborted a FLUSH (AOE_CACHE_FLUSH_REFUSED)
 *       and re-declares the block device's write cache at once.
 *     AOE_A_DEADSECS: NLA_U32, the target's deadsecs, 1..AOE_POLICY_SECS_MAX
 *       (86400), or AOE_POLICY_DEFAULT: follow aoe_deadsecs again. A frame
 *       unanswered this long, a request waiting this long for a path,
 *       fails; a target silent this long is failed (down, all its I/O
 *       fails, new I/O at once, until it answers again). Applies to the
 *       I/O already in flight at the next timer tick.
 *     AOE_A_FAST_FAIL: NLA_U32, the target's fast-fail time, 0 (off) or
 *       1..AOE_POLICY_SECS_MAX seconds, or AOE_POLICY_DEFAULT: follow
 *       aoe_fast_fail again. While the target has I/O and no usable path
 *       (none up, or every path that is up has timed out
 *       AOE_PATH_FAIL_EVENTS (4) times in a row without an answer), its
 *       I/O fails after this long with EIO, even though deadsecs has not
 *       passed; new I/O then fails at once until a path is usable or the
 *       target answers (AOE_POLICY_FAILING). The target stays up.
 *   Out-of-range values fail the whole request with -EINVAL and an extack
 *   message; nothing is changed then. Settings live as long as the target
 *   is known (AOE_CMD_FLUSH forgets them with it).
 *
 * AOE_CMD_CTL (CAP_NET_ADMIN, also for reads: each request puts frames on
 *   the network and holds kernel memory until its deadline)
 *   Sends a Query Config, MAC Mask List or Reserve/Release request to one
 *   target over the module's own paths and tags, and answers
 *   asynchronously: the doit never waits for the network. Request:
 *     AOE_A_SHELF, AOE_A_SLOT: the target (it must be known: -ENOENT)
 *     AOE_A_CTL_CMD: NLA_U8, AoE command: 1 Query Config, 2 MAC Mask
 *                    List, 3 Reserve/Release
 *     AOE_A_CTL_SUBCMD: NLA_U8, optional (0): Query Config ccmd (0 read,
 *                       1 test, 2 prefix test, 3 set, 4 force set), mask
 *                       mcmd (0 read, 1 edit) or rcmd (0 read, 1 set,
 *                       2 force set)
 *     AOE_A_CTL_DATA: NLA_BINARY, optional: the config string (at most
 *                     1024 bytes), the mask directives (8 bytes each:
 *                     reserved 0, dcmd 0 none / 1 add / 2 delete, MAC; at
 *                     most 255) or the MACs to reserve (6 bytes each, at
 *                     most 255); reads carry none
 *     AOE_A_CTL_COOKIE: NLA_U32, chosen by the requester, in every reply
 *     AOE_A_CTL_TIMEOUT_MS: NLA_U32, optional: how long the module waits
 *                     for answers, 100..10000 (default 2000); unanswered
 *                     frames are sent again every 500 ms, each time with a
 *                     fresh tag
 *   A read goes out on every path of the target; a change (any other
 *   sub-command) on one path per target port (target MAC), preferring
 *   paths that are up, since each port of a target keeps its own config
 *   string, mask list and reservation and a second copy would be refused
 *   (a mask or reservation set by the first one excludes it).
 *   The reply to the request itself (before any frame is sent) is
 *   AOE_CMD_CTL with AOE_A_CTL_COOKIE and AOE_A_PATH_COUNT: how many
 *   AOE_CMD_CTL_RESULT messages follow (one per path used). Errors:
 *   -ENOENT (no such target, or no path), -EMSGSIZE (the request fits the
 *   MTU of none of the paths), -EBUSY (64 requests pending already),
 *   -EINVAL (extack says what).
 *
 * AOE_CMD_CTL_RESULT (unicast to the requester's port, never multicast)
 *   One message per path once every path is settled (answered, refused
 *   before sending) or the deadline passed; the nlmsg_seq is the request's.
 *   A requester that closes its socket meanwhile takes its requests with
 *   it (they are freed then, NETLINK_URELEASE, and free their slots); the
 *   module frees a request at its deadline at the latest, and at unload.
 *     AOE_A_CTL_COOKIE, AOE_A_SHELF, AOE_A_SLOT, AOE_A_CTL_CMD,
 *     AOE_A_CTL_SUBCMD: as requested; AOE_A_PATH_COUNT: results in all
 *     AOE_A_CTL_RESULT: NLA_NESTED, enum aoe_ctl_attr:
 *       AOE_CTL_A_INDEX: NLA_U32, 0..PATH_COUNT-1
 *       AOE_CTL_A_IFINDEX: NLA_U32, AOE_CTL_A_IFNAME: NLA_NUL_STRING
 *       AOE_CTL_A_SRC_MAC: 6 bytes, the local interface's MAC (the one a
 *                          mask or reservation is about)
 *       AOE_CTL_A_DST_MAC: 6 bytes, the target port's MAC
 *       AOE_CTL_A_STATUS: NLA_U32, enum aoe_ctl_status
 *       AOE_CTL_A_AOE_ERROR: NLA_U8, the AoE error code (STATUS_ERROR)
 *       AOE_CTL_A_TRIES: NLA_U32, transmissions sent on this path
 *       AOE_CTL_A_RTT_US: NLA_U32, answered: time from the answered
 *                         transmission to its answer
 *       Query Config answers (also with an error): AOE_CTL_A_BUFCNT
 *       (NLA_U16), AOE_CTL_A_FWVER (NLA_U16), AOE_CTL_A_MAXSECT (NLA_U8),
 *       AOE_CTL_A_AOEVER (NLA_U8), AOE_CTL_A_CONFIG (NLA_BINARY, 0..1024)
 *       MAC Mask List answers: AOE_CTL_A_MERROR (NLA_U8, 0 or the mask
 *       error), AOE_CTL_A_COUNT (NLA_U32: the count field; with a mask
 *       error the index of the directive that failed), AOE_CTL_A_MACS
 *       (NLA_BINARY, 6 bytes per MAC: the mask list, when no error)
 *       Reserve/Release answers: AOE_CTL_A_COUNT, AOE_CTL_A_MACS (the
 *       reserve list)
 *   Every count and length was checked against the received frame; an
 *   answer with a known tag but from another interface, MAC or address is
 *   dropped (AOE_DROP_WRONG_PATH), a MAC Mask List or Reserve/Release
 *   answer with an unknown tag too (AOE_DROP_NO_TAG). The answer to any
 *   transmission (copy) of the same path counts: a read settles with the
 *   first one; a change settles with the first successful one (no E flag,
 *   no mask error: that copy did what was asked, even if a later copy was
 *   refused because of it); an unsuccessful answer stops further copies
 *   and settles the path when every copy sent has been answered, else at
 *   the deadline (with that answer, not AOE_CTL_STATUS_TIMEOUT).
 *   A Query Config test or prefix test whose string does not match gets
 *   no answer from the target (r11): status AOE_CTL_STATUS_TIMEOUT.
 *
 * Events (multicast group "events")
 * ---------------------------------
 * New events are only ever appended; listeners ignore commands they do not
 * know.
 * AOE_CMD_TARGET_NEW, AOE_CMD_TARGET_UP, AOE_CMD_TARGET_DOWN,
 * AOE_CMD_TARGET_GONE, AOE_CMD_PAYLOAD_CHANGED, AOE_CMD_CAPACITY_CHANGED:
 *   the target attributes of GET_TARGET (without AOE_A_PATHS for GONE,
 *   without AOE_A_PATH_FIRST); one message of at most NLMSG_GOODSIZE, so
 *   AOE_A_PATHS has the paths that fit (AOE_A_PATH_COUNT says how many
 *   the target has; dump for all of them); CAPACITY_CHANGED: a revalidate
 *   changed the disk's size, AOE_A_SECTORS is the new one
 * AOE_CMD_PATH_UP, AOE_CMD_PATH_DOWN:
 *   the target attributes and AOE_A_PATHS with the one path that changed
 *   (PATH_UP: also a candidate verified by IDENTIFY)
 * AOE_CMD_ADDRESS_CONFLICT:
 *   a path answered IDENTIFY as another device and was refused: the target
 *   attributes with that path's entry first in AOE_A_CONFLICTS
 */
#ifndef _UAPI_AOE_NETLINK_H
#define _UAPI_AOE_NETLINK_H

#define AOE_GENL_NAME "aoe"
#define AOE_GENL_VERSION 2
/* dump requests of this version or later accept split targets */
#define AOE_GENL_VERSION_SPLIT 2
#define AOE_GENL_MCGRP_EVENTS "events"

#define AOE_CONFIG_MAX 1024

enum aoe_cmd {
	AOE_CMD_UNSPEC,
	AOE_CMD_GET_TARGET,
	AOE_CMD_GET_INFO,
	AOE_CMD_DISCOVER,
	AOE_CMD_SET_INTERFACES,
	AOE_CMD_FLUSH,
	AOE_CMD_REVALIDATE,
	/* events, multicast only */
	AOE_CMD_TARGET_NEW,
	AOE_CMD_TARGET_UP,
	AOE_CMD_TARGET_DOWN,
	AOE_CMD_TARGET_GONE,
	AOE_CMD_PATH_UP,
	AOE_CMD_PATH_DOWN,
	AOE_CMD_PAYLOAD_CHANGED,
	AOE_CMD_CAPACITY_CHANGED,
	AOE_CMD_SET_TARGET,
	AOE_CMD_CTL,
	AOE_CMD_CTL_RESULT,
	AOE_CMD_ADDRESS_CONFLICT,	/* event */
	__AOE_CMD_MAX
};
#define AOE_CMD_MAX (__AOE_CMD_MAX - 1)

enum aoe_attr {
	AOE_A_UNSPEC,
	AOE_A_PAD,
	AOE_A_GENERATION,
	AOE_A_SHELF,
	AOE_A_SLOT,
	AOE_A_DEVICE,
	AOE_A_STATE,
	AOE_A_SECTORS,
	AOE_A_PAYLOAD,
	AOE_A_MODEL,
	AOE_A_SERIAL,
	AOE_A_FIRMWARE,
	AOE_A_LBA48,
	AOE_A_CONFIG,
	AOE_A_LAST_RX_MS,
	AOE_A_OUTSTANDING,
	AOE_A_COUNTERS,
	AOE_A_PATHS,
	AOE_A_VERSION,
	AOE_A_IFLIST,
	AOE_A_DEADSECS,
	AOE_A_MAXOUT,
	AOE_A_DYNDEVS,
	AOE_A_MAXSECTORS,
	AOE_A_NTARGETS,
	AOE_A_DROPS,
	AOE_A_INTERFACES,
	AOE_A_IFNAME,
	AOE_A_FLUSH_ALL,
	AOE_A_EVICTIONS,
	AOE_A_PATH_COUNT,
	AOE_A_PATH_FIRST,
	AOE_A_FLUSH_MODE,
	AOE_A_CACHE,
	AOE_A_CTL_CMD,
	AOE_A_CTL_SUBCMD,
	AOE_A_CTL_DATA,
	AOE_A_CTL_COOKIE,
	AOE_A_CTL_TIMEOUT_MS,
	AOE_A_CTL_RESULT,
	AOE_A_CONFLICTS,
	/* failure policy (AOE_CMD_SET_TARGET) */
	AOE_A_FAST_FAIL,
	AOE_A_POLICY,
	AOE_A_FAST_FAILS,
	/* a network namespace by file descriptor (GET_INFO, SET_INTERFACES, DISCOVER) */
	AOE_A_NETNS_FD,
	AOE_A_IFLIST_INHERIT,	/* NLA_FLAG: the namespace follows aoe_iflist */
	__AOE_A_MAX
};
#define AOE_A_MAX (__AOE_A_MAX - 1)

enum aoe_path_attr {
	AOE_PATH_A_UNSPEC,
	AOE_PATH_A_PAD,
	AOE_PATH_A_IFINDEX,
	AOE_PATH_A_IFNAME,
	AOE_PATH_A_MAC,
	AOE_PATH_A_STATE,
	AOE_PATH_A_BUFCNT,
	AOE_PATH_A_FWVER,
	AOE_PATH_A_MAXSECT,
	AOE_PATH_A_MTU,
	AOE_PATH_A_PAYLOAD,
	AOE_PATH_A_RTT_AVG_US,
	AOE_PATH_A_RTT_DEV_US,
	AOE_PATH_A_RTT_MIN_US,
	AOE_PATH_A_RTO_US,
	AOE_PATH_A_WINDOW,
	AOE_PATH_A_OUTSTANDING,
	AOE_PATH_A_LAST_RX_MS,
	AOE_PATH_A_COUNTERS,
	AOE_PATH_A_NETNSID,
	__AOE_PATH_A_MAX
};
#define AOE_PATH_A_MAX (__AOE_PATH_A_MAX - 1)

enum aoe_counter_attr {
	AOE_CNT_A_UNSPEC,
	AOE_CNT_A_PAD,
	AOE_CNT_A_FRAMES_SENT,
	AOE_CNT_A_FRAMES_RECEIVED,
	AOE_CNT_A_RETRANSMITS,
	AOE_CNT_A_TIMEOUTS,
	AOE_CNT_A_LOST,
	AOE_CNT_A_BYTES_READ,
	AOE_CNT_A_BYTES_WRITTEN,
	AOE_CNT_A_READ_REQS,
	AOE_CNT_A_WRITE_REQS,
	AOE_CNT_A_ATA_ERRORS,
	AOE_CNT_A_DROPS,
	AOE_CNT_A_BACKOFFS,
	AOE_CNT_A_FLUSHES_SENT,
	AOE_CNT_A_FLUSHES_ANSWERED,
	AOE_CNT_A_FLUSHES_FAILED,
	AOE_CNT_A_FUA_WRITES,
	/* the stale-write fence (targets only) */
	AOE_CNT_A_FENCE_GHOSTS,
	AOE_CNT_A_FENCE_HELD,
	AOE_CNT_A_FENCE_HELD_US,
	/* AoE error 6 answers to I/O: another initiator holds a reservation */
	AOE_CNT_A_RESERVE_CONFLICTS,
	/* identity (targets only) */
	AOE_CNT_A_ADDRESS_CONFLICTS,
	__AOE_CNT_A_MAX
};
#define AOE_CNT_A_MAX (__AOE_CNT_A_MAX - 1)

/* One refused path, in AOE_A_CONFLICTS (aoe(4) "Target identity"). */
enum aoe_conflict_attr {
	AOE_CONFLICT_A_UNSPEC,
	AOE_CONFLICT_A_PAD,
	AOE_CONFLICT_A_IFINDEX,
	AOE_CONFLICT_A_MAC,
	AOE_CONFLICT_A_SERIAL,
	AOE_CONFLICT_A_REASON,
	AOE_CONFLICT_A_AGE_MS,
	AOE_CONFLICT_A_EXPIRES_MS,
	__AOE_CONFLICT_A_MAX
};
#define AOE_CONFLICT_A_MAX (__AOE_CONFLICT_A_MAX - 1)

/* AOE_CONFLICT_A_REASON: what differed from the target's identity. */
enum aoe_conflict_reason {
	AOE_CONFLICT_SERIAL = 1,
	AOE_CONFLICT_MODEL,
	AOE_CONFLICT_LBA48,
	/*
	 * the same serial and model, another capacity, not confirmed over a
	 * verified path that is up (a clone; with no such path: a resize)
	 */
	AOE_CONFLICT_CAPACITY,
};

enum aoe_if_attr {
	AOE_IF_A_UNSPEC,
	AOE_IF_A_IFINDEX,
	AOE_IF_A_IFNAME,
	AOE_IF_A_MTU,
	AOE_IF_A_UP,
	__AOE_IF_A_MAX
};
#define AOE_IF_A_MAX (__AOE_IF_A_MAX - 1)

/*
 * Why a received frame was dropped. Used as the attribute type inside
 * AOE_A_DROPS and AOE_CNT_A_DROPS, so 0 is never a reason. New reasons are
 * only ever appended.
 */
enum aoe_drop_reason {
	AOE_DROP_UNSPEC,
	AOE_DROP_PAD,
	AOE_DROP_SHORT,		/* shorter than the AoE header + argument */
	AOE_DROP_VERSION,	/* AoE protocol version is not 1 */
	AOE_DROP_NOT_RESPONSE,	/* R flag clear: a request, not for us */
	AOE_DROP_RESERVED_FLAGS, /* reserved flag bits set */
	AOE_DROP_ERROR,		/* E flag set by the target */
	AOE_DROP_BAD_ADDRESS,	/* broadcast shelf/slot or source MAC */
	AOE_DROP_USER_TAG,	/* tag bit 31 set: a userland tool's frame */
	AOE_DROP_UNKNOWN_CMD,	/* AoE command we never send */
	AOE_DROP_BAD_CONFIG,	/* config string length beyond the frame or 1024 */
	AOE_DROP_IFACE,		/* arrived on an interface not in aoe_iflist */
	AOE_DROP_NO_TARGET,	/* ATA response from an unknown shelf.slot */
	AOE_DROP_NO_TAG,	/* no outstanding frame with that tag */
	AOE_DROP_WRONG_PATH,	/* tag matches but MAC or interface do not */
	AOE_DROP_BAD_LENGTH,	/* ATA response shorter than the data it owes */
	AOE_DROP_NO_MEMORY,	/* could not allocate to track a new target/path */
	AOE_DROP_TOO_MANY,	/* target or path table full */
	AOE_DROP_LATE,		/* answer to a frame already retransmitted/failed */
	AOE_DROP_BAD_IDENTIFY,	/* IDENTIFY answer refused, disk left as was */
	AOE_DROP_ADDRESS_CONFLICT, /* from a path refused as another device */
	__AOE_DROP_MAX
};
#define AOE_DROP_MAX (__AOE_DROP_MAX - 1)

/*
 * When the block device declares a volatile write cache, and so gets flush
 * requests that become FLUSH CACHE (EXT) (aoe(4), aoe_flush).
 */
enum aoe_flush_mode {
	AOE_FLUSH_MODE_DEFAULT,	/* a target's: the module's aoe_flush applies */
	AOE_FLUSH_MODE_AUTO,	/* when IDENTIFY says the write cache is on */
	AOE_FLUSH_MODE_ALWAYS,	/* always (targets that cache without saying so) */
	AOE_FLUSH_MODE_NEVER,	/* never: writes count as durable when answered */
	__AOE_FLUSH_MODE_MAX
};
#define AOE_FLUSH_MODE_MAX (__AOE_FLUSH_MODE_MAX - 1)

/* AOE_A_CACHE bits */
#define AOE_CACHE_ENABLED	(1U << 0) /* IDENTIFY: volatile write cache on */
#define AOE_CACHE_FLUSH		(1U << 1) /* IDENTIFY: FLUSH CACHE */
#define AOE_CACHE_FLUSH_EXT	(1U << 2) /* IDENTIFY: FLUSH CACHE EXT */
#define AOE_CACHE_FUA		(1U << 3) /* IDENTIFY: WRITE DMA FUA EXT */
#define AOE_CACHE_FLUSH_REFUSED	(1U << 4) /* the target aborted a FLUSH */
#define AOE_CACHE_WRITE_BACK	(1U << 5) /* the disk declares a write cache */
#define AOE_CACHE_QUEUE_FUA	(1U << 6) /* the disk declares FUA */

/* AOE_CMD_CTL_RESULT: AOE_A_CTL_RESULT */
enum aoe_ctl_attr {
	AOE_CTL_A_UNSPEC,
	AOE_CTL_A_INDEX,
	AOE_CTL_A_IFINDEX,
	AOE_CTL_A_IFNAME,
	AOE_CTL_A_SRC_MAC,
	AOE_CTL_A_DST_MAC,
	AOE_CTL_A_STATUS,
	AOE_CTL_A_AOE_ERROR,
	AOE_CTL_A_TRIES,
	AOE_CTL_A_RTT_US,
	AOE_CTL_A_BUFCNT,
	AOE_CTL_A_FWVER,
	AOE_CTL_A_MAXSECT,
	AOE_CTL_A_AOEVER,
	AOE_CTL_A_CONFIG,
	AOE_CTL_A_MERROR,
	AOE_CTL_A_COUNT,
	AOE_CTL_A_MACS,
	__AOE_CTL_A_MAX
};
#define AOE_CTL_A_MAX (__AOE_CTL_A_MAX - 1)

enum aoe_ctl_status {
	AOE_CTL_STATUS_UNSPEC,
	AOE_CTL_STATUS_ANSWERED,	/* answered without the E flag */
	AOE_CTL_STATUS_ERROR,		/* answered with the E flag */
	AOE_CTL_STATUS_TIMEOUT,		/* no answer by the deadline */
	AOE_CTL_STATUS_TOO_BIG,		/* the request exceeds this path's MTU */
	AOE_CTL_STATUS_NO_DEVICE,	/* the local interface is gone or down */
	__AOE_CTL_STATUS_MAX
};

/* failure policy: AOE_A_DEADSECS, AOE_A_FAST_FAIL, AOE_A_POLICY */
#define AOE_POLICY_DEFAULT	0xffffffffU	/* set: follow the module */
#define AOE_POLICY_SECS_MAX	86400U		/* one day */
#define AOE_POLICY_DEADSECS_OWN	(1U << 0) /* AOE_A_DEADSECS is the target's */
#define AOE_POLICY_FAST_FAIL_OWN (1U << 1) /* AOE_A_FAST_FAIL is the target's */
#define AOE_POLICY_FAILING	(1U << 2) /* fast-fail fired: new I/O fails */

#define AOE_CTL_TIMEOUT_MS_DEFAULT	2000
#define AOE_CTL_TIMEOUT_MS_MIN		100
#define AOE_CTL_TIMEOUT_MS_MAX		10000
#define AOE_CTL_RETRY_MS		500

enum aoe_target_state {
	AOE_TARGET_STATE_UNSPEC,
	AOE_TARGET_STATE_INIT,	/* answered Query Config, not yet identified */
	AOE_TARGET_STATE_UP,	/* identified, block device usable */
	AOE_TARGET_STATE_DOWN,	/* no path answers / failed: I/O fails */
	__AOE_TARGET_STATE_MAX
};

enum aoe_path_state {
	AOE_PATH_STATE_UNSPEC,
	AOE_PATH_STATE_UP,	/* carries I/O */
	AOE_PATH_STATE_DOWN,	/* link down or timing out, probed only */
	AOE_PATH_STATE_CANDIDATE, /* not (yet) verified by IDENTIFY: no I/O */
	__AOE_PATH_STATE_MAX
};

#endif /* _UAPI_AOE_NETLINK_H */
