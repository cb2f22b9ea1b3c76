/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Capture input libpcap 1.10 does not give: gzip through zlib, and pcapng
 * files whose interfaces have different link types (capture_in.h).
 */
#define _GNU_SOURCE
#include "capture_in.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <zlib.h>

/* ------------------------------------------------------------------ gzip */

struct gz_cookie {
	gzFile gz;
	FILE *self;
};

/* The one gzip stream open (rk-inspect reads one capture). */
static struct gz_cookie *gz_current;

bool
rk_insp_is_gzip(FILE *f)
{
	unsigned char m[2];
	size_t n = fread(m, 1, sizeof(m), f);

	if (fseek(f, 0, SEEK_SET) != 0)
		return false;
	return n == 2 && m[0] == 0x1f && m[1] == 0x8b;
}

static ssize_t
gz_cookie_read(void *cookie, char *buf, size_t size)
{
	struct gz_cookie *c = cookie;
	int n;

	if (size > (1u << 30))
		size = 1u << 30;
	n = gzread(c->gz, buf, (unsigned int)size);
	if (n < 0) {
		errno = EIO;
		return -1;
	}
	return n;
}

/* Seeks within the decompressed stream (zlib emulates them; SEEK_END is not). */
static int
gz_cookie_seek(void *cookie, off64_t *off, int whence)
{
	struct gz_cookie *c = cookie;
	z_off_t r;

	if (whence == SEEK_END) {
		errno = EINVAL;
		return -1;
	}
	r = gzseek(c->gz, (z_off_t)*off, whence);
	if (r < 0) {
		errno = EINVAL;
		return -1;
	}
	*off = r;
	return 0;
}

static int
gz_cookie_close(void *cookie)
{
	struct gz_cookie *c = cookie;
	int rc = gzclose_r(c->gz);

	if (gz_current == c)
		gz_current = NULL;
	free(c);
	return rc == Z_OK ? 0 : EOF;
}

FILE *
rk_insp_gzip_stream(int fd)
{
	cookie_io_functions_t io = { .read = gz_cookie_read, .seek = gz_cookie_seek,
				     .close = gz_cookie_close };
	struct gz_cookie *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->gz = gzdopen(fd, "rb");
	if (c->gz == NULL) {
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	/* zlib reads ahead in its own buffer: 256 KiB, fewer read(2) calls. */
	gzbuffer(c->gz, 256u << 10);
	c->self = fopencookie(c, "rb", io);
	if (c->self == NULL) {
		gzclose_r(c->gz);
		free(c);
		return NULL;
	}
	gz_current = c;
	return c->self;
}

int
rk_insp_pipe_is_gzip(int fd)
{
	unsigned char head[2];
	int p[2], rc = -1;

	/* tee(2) copies the pipe's first bytes without taking them. */
	if (pipe(p) != 0)
		return -1;
	for (int tries = 0; tries < 100000; tries++) {
		ssize_t n = tee(fd, p[1], sizeof(head), 0), got = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;          /* not a pipe (EINVAL), or the writer closed it */
		while (got < n) {
			ssize_t r = read(p[0], head + got, (size_t)(n - got));

			if (r <= 0)
				break;
			got += r;
		}
		if (got == (ssize_t)sizeof(head)) {
			rc = head[0] == 0x1f && head[1] == 0x8b;
			break;
		}
		/* One byte so far: wait for the second. */
		usleep(1000);
	}
	close(p[0]);
	close(p[1]);
	return rc;
}

const char *
rk_insp_gzip_error(FILE *f)
{
	int err;
	const char *msg;

	if (gz_current == NULL || gz_current->self != f)
		return NULL;
	msg = gzerror(gz_current->gz, &err);
	/* Z_BUF_ERROR is zlib's "unexpected end of file": a cut stream. */
	if (err == Z_OK || err == Z_STREAM_END)
		return NULL;
	if (msg == NULL || *msg == '\0')
		return "gzip stream error";
	/* zlib names the stream "<fd:N>: ": the file name is said already. */
	if (strncmp(msg, "<fd:", 4) == 0 && strstr(msg, ">: ") != NULL)
		msg = strstr(msg, ">: ") + 3;
	return msg;
}

/* ---------------------------------------------------------------- pcapng */

#define BT_SHB 0x0a0d0d0au
#define BT_IDB 1u
#define BT_OPB 2u          /* obsolete Packet Block */
#define BT_SPB 3u
#define BT_EPB 6u
#define BOM 0x1a2b3c4du
#define MAX_BLOCK (16u << 20)
#define MAX_IFACES 4096u

struct iface {
	int linktype;
	uint32_t snaplen;
	uint64_t units;      /* timestamp units per second */
	int64_t offset_s;    /* if_tsoffset */
};

struct rk_insp_pcapng {
	FILE *f;
	bool swap;           /* section in the other byte order */
	bool in_section;
	struct iface *ifs;
	uint32_t nifs;
	uint8_t *buf;
	uint32_t cap;
	uint64_t off;        /* file offset of the next block */
	bool at_eof;
	char err[160];
};

static uint32_t
rd32(const struct rk_insp_pcapng *p, const uint8_t *b)
{
	uint32_t v;

	memcpy(&v, b, 4);
	return p->swap ? __builtin_bswap32(v) : v;
}

static uint16_t
rd16(const struct rk_insp_pcapng *p, const uint8_t *b)
{
	uint16_t v;

	memcpy(&v, b, 2);
	return p->swap ? __builtin_bswap16(v) : v;
}

struct rk_insp_pcapng *
rk_insp_pcapng_open(FILE *f)
{
	struct rk_insp_pcapng *p = calloc(1, sizeof(*p));

	if (p != NULL)
		p->f = f;
	return p;
}

void
rk_insp_pcapng_close(struct rk_insp_pcapng *p)
{
	if (p == NULL)
		return;
	free(p->ifs);
	free(p->buf);
	free(p);
}

const char *
rk_insp_pcapng_error(const struct rk_insp_pcapng *p, bool *at_eof)
{
	*at_eof = p->at_eof;
	return p->err;
}

int
rk_insp_pcapng_linktype(const struct rk_insp_pcapng *p, uint32_t i)
{
	return i < p->nifs ? p->ifs[i].linktype : -1;
}

static int
fail(struct rk_insp_pcapng *p, bool eof, const char *what)
{
	p->at_eof = eof;
	snprintf(p->err, sizeof(p->err), "pcapng block at byte %llu: %s",
		 (unsigned long long)p->off, what);
	return -1;
}

/* The interface description's options: if_tsresol (9), if_tsoffset (14). */
static void
idb_options(const struct rk_insp_pcapng *p, struct iface *ifc, const uint8_t *o,
	    uint32_t len)
{
	while (len >= 4) {
		uint16_t code = rd16(p, o), olen = rd16(p, o + 2);
		uint32_t padded = (olen + 3u) & ~3u;

		if (code == 0 || padded > len - 4)
			return;
		if (code == 9 && olen >= 1) {
			uint8_t r = o[4];
			uint8_t e = r & 0x7f;

			/* High bit: a power of two; else a power of ten. */
			if (r & 0x80)
				ifc->units = e < 64 ? 1ull << e : 0;
			else
				for (ifc->units = 1; e > 0 && ifc->units <= UINT64_MAX / 10; e--)
					ifc->units *= 10;
		} else if (code == 14 && olen >= 8) {
			uint64_t v;

			memcpy(&v, o + 4, 8);
			ifc->offset_s = (int64_t)(p->swap ? __builtin_bswap64(v) : v);
		}
		o += 4 + padded;
		len -= 4 + padded;
	}
}

static int
add_iface(struct rk_insp_pcapng *p, const uint8_t *b, uint32_t blen)
{
	struct iface *n, ifc = { .units = 1000000 };

	if (blen < 20)
		return fail(p, false, "interface description shorter than 20 bytes");
	if (p->nifs >= MAX_IFACES)
		return fail(p, false, "more than 4096 interfaces in a section");
	n = realloc(p->ifs, (p->nifs + 1) * sizeof(*n));
	if (n == NULL)
		return fail(p, false, "out of memory");
	p->ifs = n;
	ifc.linktype = rd16(p, b + 8);
	ifc.snaplen = rd32(p, b + 12);
	idb_options(p, &ifc, b + 16, blen - 20);
	p->ifs[p->nifs++] = ifc;
	return 0;
}

static uint64_t
ts_ns(const struct iface *ifc, uint64_t ts)
{
	uint64_t s, frac;

	if (ifc->units == 0)
		return 0;
	s = ts / ifc->units;
	frac = ts % ifc->units;
	/* frac < units: scale without overflow for units up to 2^63. */
	if (ifc->units <= 1000000000u)
		frac = frac * (1000000000u / ifc->units);
	else
		frac = (uint64_t)((unsigned __int128)frac * 1000000000u / ifc->units);
	return (s + (uint64_t)ifc->offset_s) * 1000000000u + frac;
}

/* Read @p n bytes; 1, 0 at a clean end (@p n bytes wanted, none there), -1. */
static int
rd(struct rk_insp_pcapng *p, uint8_t *b, size_t n, bool start)
{
	size_t got = fread(b, 1, n, p->f);

	if (got == n)
		return 1;
	if (got == 0 && start && feof(p->f))
		return 0;
	return fail(p, feof(p->f), ferror(p->f) ? "read error" :
		    "runs past the end of the file");
}

static int
section(struct rk_insp_pcapng *p, const uint8_t *b, uint32_t blen)
{
	if (blen < 28)
		return fail(p, false, "section header shorter than 28 bytes");
	if (rd16(p, b + 12) != 1)
		return fail(p, false, "section header of major version other than 1");
	p->in_section = true;
	p->nifs = 0;
	return 0;
}

/* A packet block: the frame in @p r, or 0 for a block to skip. */
static int
packet(struct rk_insp_pcapng *p, uint32_t type, uint8_t *b, uint32_t blen,
       struct rk_insp_pcapng_rec *r)
{
	uint32_t ifn, hdr = type == BT_SPB ? 16 : 32;
	uint64_t ts = 0;

	if (blen < hdr)
		return fail(p, false, "packet block shorter than its header");
	if (type == BT_SPB) {
		ifn = 0;
		r->len = rd32(p, b + 8);
		r->caplen = blen - hdr < r->len ? blen - hdr : r->len;
		if (p->nifs != 0 && p->ifs[0].snaplen != 0 && r->caplen > p->ifs[0].snaplen)
			r->caplen = p->ifs[0].snaplen;
	} else {
		ifn = type == BT_OPB ? rd16(p, b + 8) : rd32(p, b + 8);
		ts = (uint64_t)rd32(p, b + 12) << 32 | rd32(p, b + 16);
		r->caplen = rd32(p, b + 20);
		r->len = rd32(p, b + 24);
		if (r->caplen > blen - hdr)
			return fail(p, false, "captured length runs past the block");
	}
	if (ifn >= p->nifs)
		return fail(p, false, "packet of an interface not described before it");
	r->interface = ifn;
	r->linktype = p->ifs[ifn].linktype;
	r->ts_ns = ts_ns(&p->ifs[ifn], ts);
	r->data = b + hdr - 4;
	return 1;
}

int
rk_insp_pcapng_next(struct rk_insp_pcapng *p, struct rk_insp_pcapng_rec *r)
{
	for (;;) {
		uint8_t h[12];
		uint32_t type, blen;
		int rc = rd(p, h, 8, true);

		if (rc <= 0)
			return rc;
		memcpy(&type, h, 4);
		if (type == BT_SHB) {
			uint32_t bom;

			if ((rc = rd(p, h + 8, 4, false)) < 0)
				return rc;
			memcpy(&bom, h + 8, 4);
			if (bom != BOM && bom != __builtin_bswap32(BOM))
				return fail(p, false, "section header with a bad byte-order magic");
			p->swap = bom != BOM;
		} else if (!p->in_section) {
			return fail(p, false, "no section header first");
		}
		type = rd32(p, h);
		blen = rd32(p, h + 4);
		if (blen < 12 || blen % 4 != 0 || blen > MAX_BLOCK)
			return fail(p, false, "block length not a multiple of 4 in 12..16 MiB");
		if (blen > p->cap) {
			uint8_t *n = realloc(p->buf, blen);

			if (n == NULL)
				return fail(p, false, "out of memory");
			p->buf = n;
			p->cap = blen;
		}
		memcpy(p->buf, h, type == BT_SHB ? 12 : 8);
		rc = type == BT_SHB ? rd(p, p->buf + 12, blen - 12, false) :
				      rd(p, p->buf + 8, blen - 8, false);
		if (rc < 0)
			return rc;
		if (rd32(p, p->buf + blen - 4) != blen)
			return fail(p, false, "trailing block length differs from the leading one");
		if (type == BT_SHB)
			rc = section(p, p->buf, blen);
		else if (type == BT_IDB)
			rc = add_iface(p, p->buf, blen);
		else if (type == BT_EPB || type == BT_SPB || type == BT_OPB)
			rc = packet(p, type, p->buf, blen, r);
		else
			rc = 0;
		if (rc < 0)
			return rc;
		p->off += blen;
		if (rc == 1)
			return 1;
	}
}

bool
rk_insp_pcapng_mixed(FILE *f)
{
	struct rk_insp_pcapng *p = rk_insp_pcapng_open(f);
	struct rk_insp_pcapng_rec r;
	bool mixed = false;
	uint8_t m[4];

	if (p == NULL)
		return false;
	if (fread(m, 1, 4, f) == 4 && memcmp(m, "\x0a\x0d\x0d\x0a", 4) == 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && rk_insp_pcapng_next(p, &r) == 1) {
		/* Interfaces described before the first packet: mergecap and
		 * dumpcap write them all there. */
		for (uint32_t i = 1; i < p->nifs && !mixed; i++)
			mixed = p->ifs[i].linktype != p->ifs[0].linktype;
	}
	rk_insp_pcapng_close(p);
	if (fseek(f, 0, SEEK_SET) != 0)
		return false;
	return mixed;
}
