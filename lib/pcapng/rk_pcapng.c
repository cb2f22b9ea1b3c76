/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcapng writer. Blocks are written in host byte order; the byte-order
 * magic of the section header tells readers which (pcapng 4.1).
 */
#define _GNU_SOURCE /* fwrite_unlocked, pthread_attr_setaffinity_np */
#include "rk_pcapng.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/*
 * Background mode: the caller fills buf[cur]; a full buffer is handed to
 * the thread, which writes buffers in the order they were handed over
 * (buf[wr] next). Only the hand-over takes the lock.
 */
struct rk_pcapng_bg {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int fd;
	uint8_t *buf[2];
	size_t cap, len[2], fill;
	bool full[2], stop;
	int cur, wr, err;
};

static int
write_all(int fd, const uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t k = write(fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static void *
bg_thread(void *arg)
{
	struct rk_pcapng_bg *b = arg;

	pthread_mutex_lock(&b->mu);
	for (;;) {
		while (!b->full[b->wr] && !b->stop)
			pthread_cond_wait(&b->cv, &b->mu);
		if (!b->full[b->wr])
			break;          /* stopped, nothing left */
		int i = b->wr;

		pthread_mutex_unlock(&b->mu);
		/* After an error the data is dropped, but buffers keep moving. */
		int rc = b->err == 0 ? write_all(b->fd, b->buf[i], b->len[i]) : 0;

		pthread_mutex_lock(&b->mu);
		if (rc != 0 && b->err == 0)
			b->err = rc;
		b->full[i] = false;
		b->wr ^= 1;
		pthread_cond_broadcast(&b->cv);
	}
	pthread_mutex_unlock(&b->mu);
	return NULL;
}

/* Hand the current buffer over and take the other one, once it is written. */
static void
bg_hand_over(struct rk_pcapng *w)
{
	struct rk_pcapng_bg *b = w->bg;
	int next = b->cur ^ 1;

	pthread_mutex_lock(&b->mu);
	if (b->fill != 0) {
		b->len[b->cur] = b->fill;
		b->full[b->cur] = true;
		pthread_cond_broadcast(&b->cv);
	}
	if (b->full[next])
		w->waits++;
	while (b->full[next])
		pthread_cond_wait(&b->cv, &b->mu);
	if (b->err != 0 && w->err == 0)
		w->err = b->err;
	pthread_mutex_unlock(&b->mu);
	b->cur = next;
	b->fill = 0;
}

/* Room for a block of @p n bytes in the current buffer (n <= cap). */
static void
bg_reserve(struct rk_pcapng *w, size_t n)
{
	if (w->bg->fill + n > w->bg->cap)
		bg_hand_over(w);
}

static void
put(struct rk_pcapng *w, const void *p, size_t n)
{
	if (w->err != 0 || n == 0)
		return;
	if (w->bg != NULL) {
		memcpy(w->bg->buf[w->bg->cur] + w->bg->fill, p, n);
		w->bg->fill += n;
	} else if (PUT_FWRITE(p, n, 1, w->f) != 1) {
		w->err = -EIO;
	}
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

/* The Section Header and Interface Description Blocks (at most 128 bytes). */
static int
put_headers(struct rk_pcapng *w, const char *ifname)
{
	uint64_t section_len = UINT64_MAX;      /* not specified */
	uint8_t tsresol = 9;                    /* 10^-9 s */
	uint16_t nlen;
	uint32_t len;

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

int
rk_pcapng_open(struct rk_pcapng *w, const char *path, const char *ifname, uint32_t snaplen)
{
	memset(w, 0, sizeof(*w));
	w->snaplen = snaplen != 0 ? snaplen : 65535;
	w->f = fopen(path, "wb");
	if (w->f == NULL)
		return -errno;
	setvbuf(w->f, NULL, _IOFBF, 1 << 20);
	return put_headers(w, ifname);
}

static void
bg_free(struct rk_pcapng_bg *b)
{
	if (b->fd >= 0)
		close(b->fd);
	free(b->buf[0]);
	free(b->buf[1]);
	free(b);
}

/* Let the thread run on any CPU: a caller pinned to a polling core keeps it. */
static void
any_cpu(pthread_attr_t *attr)
{
	cpu_set_t all;
	long n = sysconf(_SC_NPROCESSORS_CONF);

	CPU_ZERO(&all);
	for (long i = 0; i < n && i < CPU_SETSIZE; i++)
		CPU_SET((int)i, &all);
	(void)pthread_attr_setaffinity_np(attr, sizeof(all), &all);
}

int
rk_pcapng_open_background(struct rk_pcapng *w, const char *path, const char *ifname,
			  uint32_t snaplen, size_t buf_bytes)
{
	struct rk_pcapng_bg *b;
	pthread_attr_t attr;
	int rc;

	memset(w, 0, sizeof(*w));
	w->snaplen = snaplen != 0 ? snaplen : 65535;
	if (buf_bytes == 0)
		buf_bytes = 1u << 20;
	if (buf_bytes < (128u << 10))
		buf_bytes = 128u << 10;     /* a whole block of 65535 bytes always fits */
	b = calloc(1, sizeof(*b));
	if (b == NULL)
		return -ENOMEM;
	b->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (b->fd < 0) {
		rc = -errno;
		bg_free(b);
		return rc;
	}
	b->cap = buf_bytes;
	b->buf[0] = malloc(buf_bytes);
	b->buf[1] = malloc(buf_bytes);
	if (b->buf[0] == NULL || b->buf[1] == NULL) {
		bg_free(b);
		return -ENOMEM;
	}
	pthread_mutex_init(&b->mu, NULL);
	pthread_cond_init(&b->cv, NULL);
	pthread_attr_init(&attr);
	any_cpu(&attr);
	rc = -pthread_create(&b->thread, &attr, bg_thread, b);
	pthread_attr_destroy(&attr);
	if (rc != 0) {
		pthread_cond_destroy(&b->cv);
		pthread_mutex_destroy(&b->mu);
		bg_free(b);
		return rc;
	}
	w->bg = b;
	return put_headers(w, ifname);
}

void
rk_pcapng_write(struct rk_pcapng *w, uint64_t ts_ns, enum rk_pcapng_dir dir,
		const uint8_t *frame, uint32_t len)
{
	rk_pcapng_write_cut(w, ts_ns, dir, frame, len, len);
}

void
rk_pcapng_write_cut(struct rk_pcapng *w, uint64_t ts_ns, enum rk_pcapng_dir dir,
		    const uint8_t *frame, uint32_t cap, uint32_t len)
{
	if (cap > len)
		cap = len;
	if (cap > w->snaplen)
		cap = w->snaplen;
	uint32_t blen = 28 + pad4(cap) + 8 + 4 + 4;
	/* The block around the frame built in place, host byte order: three
	 * writes per frame, not one per field (recording is on the datapath). */
	uint32_t head[7] = { BT_EPB, blen, 0 /* interface 0 */, (uint32_t)(ts_ns >> 32),
			     (uint32_t)ts_ns, cap, len };
	uint16_t flags_opt[2] = { 2, 4 };       /* epb_flags, 4 bytes */
	uint32_t flags = (uint32_t)dir, end[2] = { 0 /* opt_endofopt */, blen };
	uint8_t tail[3 + 16] = { 0 };
	uint32_t pad = pad4(cap) - cap;

	if ((w->f == NULL && w->bg == NULL) || w->err != 0)
		return;
	if (w->bg != NULL)
		bg_reserve(w, blen);
	memcpy(tail + pad, flags_opt, 4);
	memcpy(tail + pad + 4, &flags, 4);
	memcpy(tail + pad + 8, end, 8);
	put(w, head, sizeof(head));
	put(w, frame, cap);
	put(w, tail, pad + 16);
	w->frames++;
}

static int
bg_close(struct rk_pcapng *w)
{
	struct rk_pcapng_bg *b = w->bg;
	int err;

	bg_hand_over(w);        /* the rest, and wait for the one before it */
	pthread_mutex_lock(&b->mu);
	b->stop = true;
	pthread_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->mu);
	pthread_join(b->thread, NULL);
	err = w->err != 0 ? w->err : b->err;
	if (close(b->fd) != 0 && err == 0)
		err = -errno;
	b->fd = -1;
	pthread_cond_destroy(&b->cv);
	pthread_mutex_destroy(&b->mu);
	bg_free(b);
	w->bg = NULL;
	return err;
}

int
rk_pcapng_close(struct rk_pcapng *w)
{
	int err;

	if (w->bg != NULL)
		return bg_close(w);
	if (w->f == NULL)
		return 0;
	err = w->err;
	if (fclose(w->f) != 0 && err == 0)
		err = -errno;
	w->f = NULL;
	return err;
}
