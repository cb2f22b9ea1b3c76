/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcapng writer. Blocks are written in host byte order; the byte-order
 * magic of the section header tells readers which (pcapng 4.1).
 */
#define _GNU_SOURCE /* fwrite_unlocked */
#include "rk_pcapng.h"

#include <errno.h>
#include <string.h>

#define BT_SHB 0x0A0D0D0Au
#define BT_IDB 0x00000001u
#define BT_EPB 0x00000006u

/* The writer is not thread-safe anyway: skip stdio's lock where the C
 * library has the unlocked call. */
#ifdef __GLIBC__
#define PUT_FWRITE fwrite_unlocked
#else
#define PUT_FWRITE fwrite
#endif

static void
put(struct rk_pcapng *w, const void *p, size_t n)
{
	if (w->err == 0 && n > 0 && PUT_FWRITE(p, n, 1, w->f) != 1)
		w->err = -EIO;
}

static void
put32(struct rk_pcapng *w, uint32_t v)
{
	put(w, &v, 4);
}

static void
put16(struct rk_pcapng *w, uint16_t v)
{
	put(w, &v, 2);
}

static uint32_t
pad4(uint32_t n)
{
	return (n + 3u) & ~3u;
}

/* One option: code, length, value padded to 32 bits. */
static void
put_opt(struct rk_pcapng *w, uint16_t code, const void *v, uint16_t len)
{
	static const uint8_t zero[4];

	put16(w, code);
	put16(w, len);
	put(w, v, len);
	put(w, zero, pad4(len) - len);
}

int
rk_pcapng_open(struct rk_pcapng *w, const char *path, const char *ifname, uint32_t snaplen)
{
	uint64_t section_len = UINT64_MAX;      /* not specified */
	uint8_t tsresol = 9;                    /* 10^-9 s */
	uint16_t nlen;
	uint32_t len;

	memset(w, 0, sizeof(*w));
	w->snaplen = snaplen != 0 ? snaplen : 65535;
	w->f = fopen(path, "wb");
	if (w->f == NULL)
		return -errno;
	setvbuf(w->f, NULL, _IOFBF, 1 << 20);
	/* Section Header Block. */
	put32(w, BT_SHB);
	put32(w, 28);
	put32(w, 0x1A2B3C4Du);
	put16(w, 1);
	put16(w, 0);
	put(w, &section_len, 8);
	put32(w, 28);
	/* Interface Description Block: if_name, if_tsresol, opt_endofopt. */
	nlen = (uint16_t)(ifname != NULL ? strnlen(ifname, 64) : 0);
	len = 20 + (nlen ? 4 + pad4(nlen) : 0) + 8 + 4;
	put32(w, BT_IDB);
	put32(w, len);
	put16(w, 1);                            /* LINKTYPE_ETHERNET */
	put16(w, 0);
	put32(w, w->snaplen);
	if (nlen != 0)
		put_opt(w, 2, ifname, nlen);
	put_opt(w, 9, &tsresol, 1);
	put32(w, 0);                            /* opt_endofopt */
	put32(w, len);
	return w->err;
}

void
rk_pcapng_write(struct rk_pcapng *w, uint64_t ts_ns, enum rk_pcapng_dir dir,
		const uint8_t *frame, uint32_t len)
{
	uint32_t cap = len < w->snaplen ? len : w->snaplen;
	uint32_t blen = 28 + pad4(cap) + 8 + 4 + 4;
	/* The block around the frame built in place, host byte order: three
	 * writes per frame, not one per field (recording is on the datapath). */
	uint32_t head[7] = { BT_EPB, blen, 0 /* interface 0 */, (uint32_t)(ts_ns >> 32),
			     (uint32_t)ts_ns, cap, len };
	uint16_t flags_opt[2] = { 2, 4 };       /* epb_flags, 4 bytes */
	uint32_t flags = (uint32_t)dir, end[2] = { 0 /* opt_endofopt */, blen };
	uint8_t tail[3 + 16] = { 0 };
	uint32_t pad = pad4(cap) - cap;

	if (w->f == NULL || w->err != 0)
		return;
	memcpy(tail + pad, flags_opt, 4);
	memcpy(tail + pad + 4, &flags, 4);
	memcpy(tail + pad + 8, end, 8);
	put(w, head, sizeof(head));
	put(w, frame, cap);
	put(w, tail, pad + 16);
	w->frames++;
}

int
rk_pcapng_close(struct rk_pcapng *w)
{
	int err;

	if (w->f == NULL)
		return 0;
	err = w->err;
	if (fclose(w->f) != 0 && err == 0)
		err = -errno;
	w->f = NULL;
	return err;
}
