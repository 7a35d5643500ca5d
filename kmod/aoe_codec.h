/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aoekit: the AoE wire format (revision 11) and its codec.
 *
 * Portable C: compiled into the module and, unchanged, into the userland
 * library and the unit tests. Only fixed-width types, no allocation, no
 * kernel or libc calls beyond memcpy/memset. Offsets count from the first
 * byte of the Ethernet frame; multi-byte fields are big-endian on the wire
 * and host-order in struct aoe_frame.
 */
#ifndef AOE_CODEC_H
#define AOE_CODEC_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/string.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define AOE_ETH_P		0x88a2
#define AOE_ETH_ALEN		6
#define AOE_ETH_HLEN		14
#define AOE_HDR_LEN		24	/* Ethernet + AoE common header */
#define AOE_ATA_HDR_LEN		36	/* + ATA argument; data follows */
#define AOE_CFG_HDR_LEN		32	/* + Query Config argument */
#define AOE_CONFIG_MAXLEN	1024
#define AOE_ETH_ZLEN		60	/* shortest Ethernet frame, no FCS */
#define AOE_OFF_CMD		19	/* offset of the AoE command byte */
#define AOE_SECTOR_SIZE		512

#define AOE_PROTO_VERSION	1
#define AOE_FL_RESP		0x08
#define AOE_FL_ERR		0x04
#define AOE_FL_RESERVED		0x03

#define AOE_CMD_ATA		0
#define AOE_CMD_CFG		1
#define AOE_CMD_MASK		2
#define AOE_CMD_RESERVE		3

#define AOE_SHELF_ANY		0xffff
#define AOE_SLOT_ANY		0xff
#define AOE_TAG_USER		0x80000000u	/* kernel tags keep bit 31 clear */

/* ATA argument aflags */
#define AOE_AFL_EXT		0x40
#define AOE_AFL_DEV		0x10
#define AOE_AFL_ASYNC		0x02
#define AOE_AFL_WRITE		0x01

/* ATA commands and status bits */
#define ATA_CMD_READ28		0x20
#define ATA_CMD_READ48		0x24
#define ATA_CMD_WRITE28		0x30
#define ATA_CMD_WRITE48		0x34
#define ATA_CMD_IDENTIFY	0xec
#define ATA_CMD_WRITE_FUA48	0x3d	/* WRITE DMA FUA EXT */
#define ATA_CMD_FLUSH28		0xe7	/* FLUSH CACHE */
#define ATA_CMD_FLUSH48		0xea	/* FLUSH CACHE EXT */
#define AOE_ATA_STATUS_ERR	0x01
#define AOE_ATA_ERR_ABRT	0x04	/* error register: command aborted */
#define AOE_ATA_STATUS_BAD	0xa9	/* BSY | DF | DRQ | ERR */

/* Query Config ccmd */
#define AOE_CCMD_READ		0
#define AOE_CCMD_TEST		1
#define AOE_CCMD_PTEST		2
#define AOE_CCMD_SET		3
#define AOE_CCMD_FSET		4

/* AoE error codes (header byte 15, with AOE_FL_ERR) */
#define AOE_ERR_BADCMD		1	/* unrecognized command */
#define AOE_ERR_BADARG		2	/* bad argument */
#define AOE_ERR_UNAVAIL		3	/* device unavailable */
#define AOE_ERR_CFG_SET		4	/* config string present (set refused) */
#define AOE_ERR_VERSION		5	/* unsupported version */
#define AOE_ERR_RESERVED	6	/* target reserved by another initiator */

/* MAC Mask List (cmd 2): 4-byte argument, then 8-byte directives */
#define AOE_MASK_HDR_LEN	28
#define AOE_MASK_DIR_LEN	8
#define AOE_MCMD_READ		0
#define AOE_MCMD_EDIT		1
#define AOE_DCMD_NONE		0
#define AOE_DCMD_ADD		1
#define AOE_DCMD_DEL		2
#define AOE_MERR_UNSPEC		1
#define AOE_MERR_BADDIR		2
#define AOE_MERR_FULL		3

/* Reserve/Release (cmd 3): 2-byte argument, then 6-byte MACs */
#define AOE_RESV_HDR_LEN	26
#define AOE_RCMD_READ		0
#define AOE_RCMD_SET		1
#define AOE_RCMD_FORCE		2

/* A decoded frame, host byte order. Pointers point into the caller's buffer. */
struct aoe_frame {
	uint8_t dst[AOE_ETH_ALEN];
	uint8_t src[AOE_ETH_ALEN];
	uint8_t version;
	uint8_t flags;
	uint8_t error;
	uint16_t shelf;
	uint8_t slot;
	uint8_t cmd;
	uint32_t tag;
	union {
		struct {
			uint16_t bufcnt;
			uint16_t fwver;
			uint8_t maxsect;	/* raw; 0 means 2 */
			uint8_t aoever;
			uint8_t ccmd;
			uint16_t cfglen;
			const uint8_t *cfg;
		} cfg;
		struct {
			uint8_t aflags;
			uint8_t err;
			uint8_t sectors;
			uint8_t status;
			uint64_t lba;
			size_t datalen;	/* bytes after the ATA header */
		} ata;
		struct {
			uint8_t mcmd;
			uint8_t merror;
			/*
			 * directives at @dirs (AOE_MASK_DIR_LEN each, all
			 * within the frame); with merror set or in an error
			 * frame: the count field as sent, @dirs NULL
			 */
			uint8_t count;
			const uint8_t *dirs;
		} mask;
		struct {
			uint8_t rcmd;
			/* MACs at @macs, all within the frame (error frame: NULL) */
			uint8_t count;
			const uint8_t *macs;
		} resv;
	};
};

/*
 * Decode and validate a received frame addressed to an initiator.
 * @buf holds at least @avail contiguous bytes from the Ethernet header on;
 * @total is the full frame length (the rest may be elsewhere, e.g. skb
 * fragments). A Query Config response needs its config string within @avail.
 * Returns 0, or a negative enum aoe_drop_reason (AOE_DROP_*) saying why the
 * frame must be dropped. Frames with the E flag decode fully and return
 * -AOE_DROP_ERROR, so callers can still match the tag.
 */
int aoe_decode_response(const uint8_t *buf, size_t avail, size_t total,
			struct aoe_frame *f);

/* Write the 24-byte Ethernet + AoE header; flags are OR-ed to the version. */
void aoe_encode_hdr(uint8_t *buf, const uint8_t *dst, const uint8_t *src,
		    uint8_t flags, uint16_t shelf, uint8_t slot, uint8_t cmd,
		    uint32_t tag);

/* A Query Config request (read). Returns its length (AOE_CFG_HDR_LEN). */
size_t aoe_encode_qc(uint8_t *buf, const uint8_t *dst, const uint8_t *src,
		     uint16_t shelf, uint8_t slot, uint32_t tag);

/*
 * Query Config, MAC Mask List and Reserve/Release requests into @buf of @cap
 * bytes: Query Config sub-command @ccmd with the config string @cfg of
 * @cfglen bytes (at most AOE_CONFIG_MAXLEN); MAC Mask List @mcmd with
 * @count directives of AOE_MASK_DIR_LEN bytes at @dirs; Reserve/Release
 * @rcmd with @count MACs at @macs. Return the frame length (before padding
 * to AOE_ETH_ZLEN), or 0 when it does not fit @cap or an argument is out
 * of range. The payload on the wire is that length minus AOE_ETH_HLEN: the
 * caller checks it against the interface's MTU (aoe_ctl_fits_mtu()).
 */
size_t aoe_encode_cfg(uint8_t *buf, size_t cap, const uint8_t *dst,
		      const uint8_t *src, uint16_t shelf, uint8_t slot,
		      uint32_t tag, uint8_t ccmd, const uint8_t *cfg,
		      size_t cfglen);
size_t aoe_encode_mask(uint8_t *buf, size_t cap, const uint8_t *dst,
		       const uint8_t *src, uint16_t shelf, uint8_t slot,
		       uint32_t tag, uint8_t mcmd, const uint8_t *dirs,
		       size_t count);
size_t aoe_encode_resv(uint8_t *buf, size_t cap, const uint8_t *dst,
		       const uint8_t *src, uint16_t shelf, uint8_t slot,
		       uint32_t tag, uint8_t rcmd, const uint8_t *macs,
		       size_t count);
/* One mask directive: reserved 0, @dcmd, @mac. */
void aoe_mask_dir(uint8_t *dir, uint8_t dcmd, const uint8_t *mac);
/* Frame length of a request: AoE command @cmd (1..3) with @n data bytes. */
size_t aoe_ctl_frame_len(uint8_t cmd, size_t n);
/* A frame of @len bytes (from the Ethernet header) fits a link of @mtu. */
static inline bool aoe_ctl_fits_mtu(size_t len, uint32_t mtu)
{
	return len >= AOE_ETH_HLEN && len - AOE_ETH_HLEN <= mtu;
}
/* Words for AoE error @err ("target reserved"), "error N" if unknown. */
const char *aoe_error_text(uint8_t err);
/* Words for MAC Mask List error @merror ("mask list full"). */
const char *aoe_merror_text(uint8_t merror);

/*
 * An ATA request header. @lba48 chooses the EXT form; for 28-bit LBA the
 * device/head byte carries 0xe0 | lba bits 24..27. Returns AOE_ATA_HDR_LEN;
 * write data, if any, follows at that offset.
 */
size_t aoe_encode_ata(uint8_t *buf, const uint8_t *dst, const uint8_t *src,
		      uint16_t shelf, uint8_t slot, uint32_t tag,
		      uint8_t ata_cmd, bool write, bool lba48, uint64_t lba,
		      uint8_t sectors);

/*
 * Data bytes per ATA frame on a link of @mtu for a target whose Query Config
 * sector count is @maxsect (0 means 2), capped by @cap_sectors when non-zero.
 * min((mtu - 36) / 512, maxsect) * 512, as the in-tree driver sizes it;
 * 0 when not even one sector fits.
 */
uint32_t aoe_payload_for_mtu(uint32_t mtu, uint8_t maxsect,
			     uint32_t cap_sectors);

/* Sectors per frame a Query Config sector count allows (0 means 2). */
static inline unsigned int aoe_maxsect_sectors(uint8_t maxsect)
{
	return maxsect ? maxsect : 2;
}

/* Tags: bit 31 clear for the kernel; bit 31 set for userland tools. */
static inline bool aoe_tag_is_user(uint32_t tag)
{
	return tag & AOE_TAG_USER;
}

/*
 * A kernel tag from 32 random bits: the 31 bits below AOE_TAG_USER, all of
 * them random, so a tag tells nothing about any other (kmod/tag.h).
 */
static inline uint32_t aoe_tag_from_random(uint32_t rnd)
{
	return rnd & ~AOE_TAG_USER;
}

/* A keyed round function: 16 bits from (@in: round << 16 | half). */
typedef uint16_t (*aoe_tag_round_fn)(const void *key, uint32_t in);

/* One pass of a 4-round Feistel network on 32 bits: a permutation. */
static inline uint32_t aoe_tag_feistel(uint32_t x, aoe_tag_round_fn round,
				       const void *key)
{
	uint16_t l = x >> 16, r = x & 0xffff, f;
	uint32_t i;

	for (i = 0; i < 4; i++) {
		f = round(key, i << 16 | r);
		f ^= l;
		l = r;
		r = f;
	}
	return (uint32_t)l << 16 | r;
}

/*
 * The kernel tag of transmission number @n (bits above 30 ignored): a
 * permutation of the 2^31 kernel tags keyed by @round's key (the Feistel
 * network cycle-walked into the 31 bits below AOE_TAG_USER: applied again
 * while the result has that bit, 2 passes on average), so no two of
 * 2^31 consecutive numbers share a tag, and with a secret key and a
 * pseudorandom @round no tag tells anything about another (kmod/tag.h).
 * Static inline: with a constant @round the calls are direct.
 */
static inline uint32_t aoe_tag_permute(uint32_t n, aoe_tag_round_fn round,
				       const void *key)
{
	uint32_t x = n & ~AOE_TAG_USER;

	do
		x = aoe_tag_feistel(x, round, key);
	while (x & AOE_TAG_USER);
	return x;
}

/* Parse "eS.L" / "S.L" into shelf and slot. Returns 0 or -1. */
int aoe_parse_device(const char *name, uint16_t *shelf, uint8_t *slot);

/* Big-endian field helpers shared with the module's ATA code. */
static inline uint16_t aoe_get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t aoe_get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline void aoe_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static inline void aoe_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = (v >> 16) & 0xff;
	p[2] = (v >> 8) & 0xff;
	p[3] = v & 0xff;
}

/* ATA IDENTIFY DEVICE data (512 bytes, 16-bit little-endian words). */
struct aoe_identity {
	uint64_t sectors;
	bool lba48;
	bool clamped;		/* the device claimed more than its mode addresses */
	char model[41];
	char serial[21];
	char firmware[9];
	/*
	 * Cache and flush features (words 82-87). A feature word counts only
	 * when it says it is valid (bits 15:14 = 01), as libata reads them.
	 */
	bool wcache;		/* word 85 bit 5: volatile write cache enabled */
	bool flush;		/* word 83 bit 12: FLUSH CACHE */
	bool flush_ext;		/* word 83 bit 13: FLUSH CACHE EXT */
	bool fua;		/* word 84 bit 6: WRITE DMA FUA EXT (needs LBA48) */
};

/* The most sectors each addressing mode can reach (capacities are clamped). */
#define AOE_LBA28_MAX_SECTORS	0x0fffffffULL		/* 2^28 - 1 */
#define AOE_LBA48_MAX_SECTORS	(1ULL << 48)

/* Why aoe_parse_identify() refused an answer (0: it did not). */
enum aoe_ident_err {
	AOE_IDENT_OK,
	AOE_IDENT_NOT_ATA,	/* word 0 bit 15: not an ATA device */
	AOE_IDENT_BAD_WORD83,	/* word 83 bit 15 set: not a valid command set word */
	AOE_IDENT_CHECKSUM,	/* word 255 integrity signature, wrong checksum */
	AOE_IDENT_NO_CAPACITY,	/* 0 sectors in the words of its addressing mode */
};

/*
 * Parses IDENTIFY data into @out (all of it, also when the answer is refused)
 * and checks it: returns AOE_IDENT_OK or why the data describes no usable
 * disk. LBA48 is word 83 bit 10; the capacity comes from words 100-103 then,
 * else from words 60-61, and is clamped to AOE_LBA48_MAX_SECTORS or
 * AOE_LBA28_MAX_SECTORS (@out->clamped says so).
 */
enum aoe_ident_err aoe_parse_identify(const uint8_t *id, struct aoe_identity *out);
/*
 * The FLUSH command for @id: FLUSH CACHE EXT on an LBA48 device that has it,
 * else FLUSH CACHE (mandatory since ATA-6; also what a target that announces
 * neither gets, e.g. under aoe_flush=always).
 */
uint8_t aoe_identify_flush_cmd(const struct aoe_identity *id);
/* "not_ata", "bad_word83", "checksum", "no_capacity"; "ok" for AOE_IDENT_OK. */
const char *aoe_ident_err_name(enum aoe_ident_err err);

/* What a newly read identity @next means for a disk that exists as @cur. */
enum aoe_ident_change {
	AOE_IDENT_SAME,		/* same addressing and capacity */
	AOE_IDENT_RESIZED,	/* same addressing, another capacity */
	AOE_IDENT_MODE_CHANGED,	/* the other addressing mode: refused */
};
enum aoe_ident_change aoe_identify_compare(const struct aoe_identity *cur,
					   const struct aoe_identity *next);

#ifdef __cplusplus
}
#endif

#endif /* AOE_CODEC_H */
