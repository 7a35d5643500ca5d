// SPDX-License-Identifier: GPL-2.0
/*
 * aoekit: AoE frame codec, payload sizing and IDENTIFY parsing.
 * Portable: see aoe_codec.h.
 */
#include "aoe_codec.h"
#include "uapi/aoe_netlink.h"

static bool mac_is_zero(const uint8_t *m)
{
	return !(m[0] | m[1] | m[2] | m[3] | m[4] | m[5]);
}

static bool mac_is_multicast(const uint8_t *m)
{
	return m[0] & 1;
}

int aoe_decode_response(const uint8_t *buf, size_t avail, size_t total,
			struct aoe_frame *f)
{
	int err = 0;

	if (avail > total)
		avail = total;
	if (avail < AOE_HDR_LEN)
		return -AOE_DROP_SHORT;

	memset(f, 0, sizeof(*f));
	memcpy(f->dst, buf, AOE_ETH_ALEN);
	memcpy(f->src, buf + 6, AOE_ETH_ALEN);
	if (aoe_get_be16(buf + 12) != AOE_ETH_P)
		return -AOE_DROP_SHORT;
	f->version = buf[14] >> 4;
	f->flags = buf[14] & 0x0f;
	f->error = buf[15];
	f->shelf = aoe_get_be16(buf + 16);
	f->slot = buf[18];
	f->cmd = buf[19];
	f->tag = aoe_get_be32(buf + 20);

	if (f->version != AOE_PROTO_VERSION)
		return -AOE_DROP_VERSION;
	if (!(f->flags & AOE_FL_RESP))
		return -AOE_DROP_NOT_RESPONSE;
	if (f->flags & AOE_FL_RESERVED)
		return -AOE_DROP_RESERVED_FLAGS;
	if (f->shelf == AOE_SHELF_ANY || f->slot == AOE_SLOT_ANY ||
	    mac_is_zero(f->src) || mac_is_multicast(f->src))
		return -AOE_DROP_BAD_ADDRESS;
	if (f->flags & AOE_FL_ERR)
		err = -AOE_DROP_ERROR;

	switch (f->cmd) {
	case AOE_CMD_CFG:
		if (avail < AOE_CFG_HDR_LEN)
			return -AOE_DROP_SHORT;
		f->cfg.bufcnt = aoe_get_be16(buf + 24);
		f->cfg.fwver = aoe_get_be16(buf + 26);
		f->cfg.maxsect = buf[28];
		f->cfg.aoever = buf[29] >> 4;
		f->cfg.ccmd = buf[29] & 0x0f;
		f->cfg.cfglen = aoe_get_be16(buf + 30);
		if (f->cfg.cfglen > AOE_CONFIG_MAXLEN ||
		    f->cfg.cfglen > avail - AOE_CFG_HDR_LEN)
			return -AOE_DROP_BAD_CONFIG;
		f->cfg.cfg = buf + AOE_CFG_HDR_LEN;
		break;
	case AOE_CMD_ATA:
		if (avail < AOE_ATA_HDR_LEN)
			return -AOE_DROP_SHORT;
		f->ata.aflags = buf[24];
		f->ata.err = buf[25];
		f->ata.sectors = buf[26];
		f->ata.status = buf[27];
		f->ata.lba = (uint64_t)buf[28] | (uint64_t)buf[29] << 8 |
			     (uint64_t)buf[30] << 16 | (uint64_t)buf[31] << 24 |
			     (uint64_t)buf[32] << 32 | (uint64_t)buf[33] << 40;
		f->ata.datalen = total - AOE_ATA_HDR_LEN;
		break;
	case AOE_CMD_MASK:
		if (avail < AOE_MASK_HDR_LEN)
			return -AOE_DROP_SHORT;
		f->mask.mcmd = buf[25];
		f->mask.merror = buf[26];
		f->mask.count = buf[27];
		/* an edit that failed says where, and carries no list */
		if (err || f->mask.merror)
			break;
		if ((size_t)f->mask.count * AOE_MASK_DIR_LEN >
		    avail - AOE_MASK_HDR_LEN)
			return -AOE_DROP_BAD_LENGTH;
		f->mask.dirs = buf + AOE_MASK_HDR_LEN;
		break;
	case AOE_CMD_RESERVE:
		if (avail < AOE_RESV_HDR_LEN)
			return -AOE_DROP_SHORT;
		f->resv.rcmd = buf[24];
		f->resv.count = buf[25];
		if (err)
			break;
		if ((size_t)f->resv.count * AOE_ETH_ALEN >
		    avail - AOE_RESV_HDR_LEN)
			return -AOE_DROP_BAD_LENGTH;
		f->resv.macs = buf + AOE_RESV_HDR_LEN;
		break;
	default:
		return -AOE_DROP_UNKNOWN_CMD;
	}
	return err;
}

size_t aoe_ctl_frame_len(uint8_t cmd, size_t n)
{
	switch (cmd) {
	case AOE_CMD_CFG:
		return AOE_CFG_HDR_LEN + n;
	case AOE_CMD_MASK:
		return AOE_MASK_HDR_LEN + n;
	case AOE_CMD_RESERVE:
		return AOE_RESV_HDR_LEN + n;
	}
	return 0;
}

size_t aoe_encode_cfg(uint8_t *buf, size_t cap, const uint8_t *dst,
		      const uint8_t *src, uint16_t shelf, uint8_t slot,
		      uint32_t tag, uint8_t ccmd, const uint8_t *cfg,
		      size_t cfglen)
{
	size_t len = AOE_CFG_HDR_LEN + cfglen;

	if (cfglen > AOE_CONFIG_MAXLEN || ccmd > AOE_CCMD_FSET || len > cap)
		return 0;
	aoe_encode_qc(buf, dst, src, shelf, slot, tag);
	buf[29] = AOE_PROTO_VERSION << 4 | ccmd;
	aoe_put_be16(buf + 30, (uint16_t)cfglen);
	if (cfglen)
		memcpy(buf + AOE_CFG_HDR_LEN, cfg, cfglen);
	return len;
}

size_t aoe_encode_mask(uint8_t *buf, size_t cap, const uint8_t *dst,
		       const uint8_t *src, uint16_t shelf, uint8_t slot,
		       uint32_t tag, uint8_t mcmd, const uint8_t *dirs,
		       size_t count)
{
	size_t len = AOE_MASK_HDR_LEN + count * AOE_MASK_DIR_LEN;

	if (count > 255 || mcmd > AOE_MCMD_EDIT || len > cap)
		return 0;
	aoe_encode_hdr(buf, dst, src, 0, shelf, slot, AOE_CMD_MASK, tag);
	buf[24] = 0;
	buf[25] = mcmd;
	buf[26] = 0;
	buf[27] = (uint8_t)count;
	if (count)
		memcpy(buf + AOE_MASK_HDR_LEN, dirs, count * AOE_MASK_DIR_LEN);
	return len;
}

size_t aoe_encode_resv(uint8_t *buf, size_t cap, const uint8_t *dst,
		       const uint8_t *src, uint16_t shelf, uint8_t slot,
		       uint32_t tag, uint8_t rcmd, const uint8_t *macs,
		       size_t count)
{
	size_t len = AOE_RESV_HDR_LEN + count * AOE_ETH_ALEN;

	if (count > 255 || rcmd > AOE_RCMD_FORCE || len > cap)
		return 0;
	aoe_encode_hdr(buf, dst, src, 0, shelf, slot, AOE_CMD_RESERVE, tag);
	buf[24] = rcmd;
	buf[25] = (uint8_t)count;
	if (count)
		memcpy(buf + AOE_RESV_HDR_LEN, macs, count * AOE_ETH_ALEN);
	return len;
}

void aoe_mask_dir(uint8_t *dir, uint8_t dcmd, const uint8_t *mac)
{
	dir[0] = 0;
	dir[1] = dcmd;
	memcpy(dir + 2, mac, AOE_ETH_ALEN);
}

const char *aoe_error_text(uint8_t err)
{
	switch (err) {
	case AOE_ERR_BADCMD:
		return "unrecognized command";
	case AOE_ERR_BADARG:
		return "bad argument";
	case AOE_ERR_UNAVAIL:
		return "device unavailable";
	case AOE_ERR_CFG_SET:
		return "config string present";
	case AOE_ERR_VERSION:
		return "unsupported version";
	case AOE_ERR_RESERVED:
		return "target reserved";
	}
	return "unknown error";
}

const char *aoe_merror_text(uint8_t merror)
{
	switch (merror) {
	case 0:
		return "ok";
	case AOE_MERR_UNSPEC:
		return "unspecified error";
	case AOE_MERR_BADDIR:
		return "bad directive";
	case AOE_MERR_FULL:
		return "mask list full";
	}
	return "unknown mask error";
}

void aoe_encode_hdr(uint8_t *buf, const uint8_t *dst, const uint8_t *src,
		    uint8_t flags, uint16_t shelf, uint8_t slot, uint8_t cmd,
		    uint32_t tag)
{
	memcpy(buf, dst, AOE_ETH_ALEN);
	memcpy(buf + 6, src, AOE_ETH_ALEN);
	aoe_put_be16(buf + 12, AOE_ETH_P);
	buf[14] = AOE_PROTO_VERSION << 4 | (flags & 0x0f);
	buf[15] = 0;
	aoe_put_be16(buf + 16, shelf);
	buf[18] = slot;
	buf[19] = cmd;
	aoe_put_be32(buf + 20, tag);
}

size_t aoe_encode_qc(uint8_t *buf, const uint8_t *dst, const uint8_t *src,
		     uint16_t shelf, uint8_t slot, uint32_t tag)
{
	aoe_encode_hdr(buf, dst, src, 0, shelf, slot, AOE_CMD_CFG, tag);
	memset(buf + AOE_HDR_LEN, 0, AOE_CFG_HDR_LEN - AOE_HDR_LEN);
	return AOE_CFG_HDR_LEN;
}

size_t aoe_encode_ata(uint8_t *buf, const uint8_t *dst, const uint8_t *src,
		      uint16_t shelf, uint8_t slot, uint32_t tag,
		      uint8_t ata_cmd, bool write, bool lba48, uint64_t lba,
		      uint8_t sectors)
{
	uint8_t *a = buf + AOE_HDR_LEN;
	int i;

	aoe_encode_hdr(buf, dst, src, 0, shelf, slot, AOE_CMD_ATA, tag);
	memset(a, 0, AOE_ATA_HDR_LEN - AOE_HDR_LEN);
	a[0] = (write ? AOE_AFL_WRITE : 0) | (lba48 ? AOE_AFL_EXT : 0);
	a[2] = sectors;
	a[3] = ata_cmd;
	for (i = 0; i < 6; i++)
		a[4 + i] = (lba >> (8 * i)) & 0xff;
	if (!lba48) {
		a[4 + 3] = 0xe0 | ((lba >> 24) & 0x0f);
		a[4 + 4] = 0;
		a[4 + 5] = 0;
	}
	return AOE_ATA_HDR_LEN;
}

uint32_t aoe_payload_for_mtu(uint32_t mtu, uint8_t maxsect,
			     uint32_t cap_sectors)
{
	uint32_t n, ms = aoe_maxsect_sectors(maxsect);

	/* as the in-tree driver: the whole 36-byte header counted in the MTU */
	if (mtu < AOE_ATA_HDR_LEN + AOE_SECTOR_SIZE)
		return 0;
	n = (mtu - AOE_ATA_HDR_LEN) / AOE_SECTOR_SIZE;
	if (n > ms)
		n = ms;
	if (cap_sectors && n > cap_sectors)
		n = cap_sectors;
	return n * AOE_SECTOR_SIZE;
}

int aoe_parse_device(const char *name, uint16_t *shelf, uint8_t *slot)
{
	unsigned long s = 0, l = 0;
	const char *p = name;
	int digits = 0;

	if (*p == 'e')
		p++;
	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		s = s * 10 + (unsigned long)(*p - '0');
		if (s >= AOE_SHELF_ANY)
			return -1;
	}
	if (!digits || *p++ != '.')
		return -1;
	for (digits = 0; *p >= '0' && *p <= '9'; p++, digits++) {
		l = l * 10 + (unsigned long)(*p - '0');
		if (l >= AOE_SLOT_ANY)
			return -1;
	}
	if (!digits || *p)
		return -1;
	*shelf = (uint16_t)s;
	*slot = (uint8_t)l;
	return 0;
}

static uint16_t id_word(const uint8_t *id, int w)
{
	return (uint16_t)(id[2 * w] | id[2 * w + 1] << 8);
}

/* ATA strings: byte-swapped within 16-bit words, space padded. */
static void id_string(const uint8_t *id, int word, int nwords, char *out)
{
	int i, n = 2 * nwords;

	for (i = 0; i < nwords; i++) {
		out[2 * i] = (char)id[2 * (word + i) + 1];
		out[2 * i + 1] = (char)id[2 * (word + i)];
	}
	out[n] = '\0';
	while (n > 0 && (out[n - 1] == ' ' || out[n - 1] == '\0'))
		out[--n] = '\0';
	for (i = 0; i < n; i++)
		if (out[i] < 0x20 || out[i] > 0x7e)
			out[i] = '?';
}

/* A command set word that says it is valid: bits 15:14 are 01. */
static bool id_word_valid(uint16_t w)
{
	return (w & 0xc000) == 0x4000;
}

/*
 * Words 82-87: 82-84 what the device supports, 85-87 what is enabled. Word
 * 85 has no validity bits of its own; word 87 (its companion) does, as
 * libata's ata_id_wcache_enabled() checks.
 */
static void id_cache(const uint8_t *id, struct aoe_identity *out)
{
	uint16_t w83 = id_word(id, 83), w84 = id_word(id, 84);
	uint16_t w85 = id_word(id, 85), w87 = id_word(id, 87);

	out->wcache = id_word_valid(w87) && (w85 & (1 << 5));
	if (id_word_valid(w83)) {
		out->flush = w83 & (1 << 12);
		out->flush_ext = w83 & (1 << 13);
	}
	out->fua = out->lba48 && id_word_valid(w84) && (w84 & (1 << 6));
}

uint8_t aoe_identify_flush_cmd(const struct aoe_identity *id)
{
	return id->lba48 && id->flush_ext ? ATA_CMD_FLUSH48 : ATA_CMD_FLUSH28;
}

enum aoe_ident_err aoe_parse_identify(const uint8_t *id,
				     struct aoe_identity *out)
{
	uint16_t w83 = id_word(id, 83);
	unsigned int sum = 0;
	int i;

	memset(out, 0, sizeof(*out));
	id_string(id, 10, 10, out->serial);
	id_string(id, 23, 4, out->firmware);
	id_string(id, 27, 20, out->model);
	out->lba48 = w83 & (1 << 10);
	if (out->lba48) {
		out->sectors = (uint64_t)id_word(id, 100) |
			       (uint64_t)id_word(id, 101) << 16 |
			       (uint64_t)id_word(id, 102) << 32 |
			       (uint64_t)id_word(id, 103) << 48;
		if (out->sectors > AOE_LBA48_MAX_SECTORS) {
			out->sectors = AOE_LBA48_MAX_SECTORS;
			out->clamped = true;
		}
	} else {
		out->sectors = (uint64_t)id_word(id, 60) |
			       (uint64_t)id_word(id, 61) << 16;
		if (out->sectors > AOE_LBA28_MAX_SECTORS) {
			out->sectors = AOE_LBA28_MAX_SECTORS;
			out->clamped = true;
		}
	}
	id_cache(id, out);
	if (id_word(id, 0) & 0x8000)
		return AOE_IDENT_NOT_ATA;
	if (w83 & 0x8000)
		return AOE_IDENT_BAD_WORD83;
	if (id[510] == 0xa5) {
		/* integrity word: all 512 bytes sum to 0 modulo 256 */
		for (i = 0; i < 512; i++)
			sum += id[i];
		if (sum & 0xff)
			return AOE_IDENT_CHECKSUM;
	}
	if (!out->sectors)
		return AOE_IDENT_NO_CAPACITY;
	return AOE_IDENT_OK;
}

const char *aoe_ident_err_name(enum aoe_ident_err err)
{
	switch (err) {
	case AOE_IDENT_OK:
		return "ok";
	case AOE_IDENT_NOT_ATA:
		return "not_ata";
	case AOE_IDENT_BAD_WORD83:
		return "bad_word83";
	case AOE_IDENT_CHECKSUM:
		return "checksum";
	case AOE_IDENT_NO_CAPACITY:
		return "no_capacity";
	}
	return "unknown";
}

enum aoe_ident_change aoe_identify_compare(const struct aoe_identity *cur,
					   const struct aoe_identity *next)
{
	if (cur->lba48 != next->lba48)
		return AOE_IDENT_MODE_CHANGED;
	if (cur->sectors != next->sectors)
		return AOE_IDENT_RESIZED;
	return AOE_IDENT_SAME;
}
