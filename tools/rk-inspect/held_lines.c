/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-inspect's output that waits: packet lines kept in order until the
 * packet a verdict waits on settles it (struct hold, app.h).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

void
rk_insp_hold_write(struct app *a, const char *t, size_t len)
{
	fwrite(t, 1, len, a->out);
}

/* Write the waiting output up to the first line whose verdict is open. */
void
rk_insp_hold_flush(struct app *a)
{
	struct hold *h = &a->hold;

	while (h->head < h->n && h->e[h->head].chain == NULL) {
		struct held *e = &h->e[h->head++];

		rk_insp_hold_write(a, e->text[0], e->len[0]);
		h->bytes -= e->len[0];
		free(e->text[0]);
	}
	if (h->head == h->n)
		h->head = h->n = 0;
}

/* The verdict on the waiting packets of @p chain: keep the text that says it. */
void
rk_insp_hold_resolve(struct app *a, const void *chain, enum rk_insp_verdict v)
{
	struct hold *h = &a->hold;

	for (size_t i = h->head; i < h->n; i++) {
		struct held *e = &h->e[i];
		int keep = v == RK_INSP_VERDICT_LATE;

		if (e->chain != chain)
			continue;
		free(e->text[!keep]);
		h->bytes -= e->len[!keep];
		e->text[0] = e->text[keep];
		e->len[0] = e->len[keep];
		e->text[1] = NULL;
		e->chain = NULL;
	}
	rk_insp_hold_flush(a);
}

void
rk_insp_hold_settled(void *ctx, struct rk_insp_flow *flow, const void *chain,
		     enum rk_insp_verdict v)
{
	(void)flow;
	rk_insp_hold_resolve(ctx, chain, v);
}

/* Queue one line (two for a verdict pending on @p chain of @p flow). */
void
rk_insp_hold_push(struct app *a, char *t0, size_t l0, char *t1, size_t l1,
		  const void *chain, struct rk_insp_flow *flow)
{
	struct hold *h = &a->hold;

	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 256;
		struct held *n;

		if (h->head != 0) {
			/* Reuse the room already written out. */
			memmove(h->e, h->e + h->head, (h->n - h->head) * sizeof(*h->e));
			h->n -= h->head;
			h->head = 0;
		} else if ((n = realloc(h->e, cap * sizeof(*n))) != NULL) {
			h->e = n;
			h->cap = cap;
		}
	}
	if (h->n == h->cap) {
		/* Out of memory: decide now, lines in order still. */
		rk_insp_flows_settle(&a->flows, rk_insp_hold_settled, a);
		if (t0 != NULL)
			rk_insp_hold_write(a, t0, l0);
		free(t0);
		free(t1);
		return;
	}
	h->e[h->n++] = (struct held){ .text = { t0, t1 }, .len = { l0, l1 }, .chain = chain,
				      .flow = flow };
	h->bytes += l0 + l1;
	rk_insp_hold_flush(a);
	/* A flow gone quiet must not hold the rest for ever. */
	while (h->head < h->n && (h->n - h->head > HOLD_MAX_LINES || h->bytes > HOLD_MAX_BYTES)) {
		const void *oldest = h->e[h->head].chain;

		rk_insp_flow_settle(&a->flows, h->e[h->head].flow, rk_insp_hold_settled, a);
		if (h->head < h->n && h->e[h->head].chain == oldest)
			rk_insp_hold_resolve(a, oldest, RK_INSP_VERDICT_GO_BACK);
	}
}

/* Where a line goes: standard output, or a buffer while earlier ones wait. */
FILE *
rk_insp_line_begin(struct app *a, char **buf, size_t *len, bool wait)
{
	FILE *f;

	if (!wait && a->hold.head == a->hold.n)
		return a->out;
	*buf = NULL;
	*len = 0;
	f = open_memstream(buf, len);
	if (f == NULL) {
		/* No memory to wait with: decide now. */
		rk_insp_flows_settle(&a->flows, rk_insp_hold_settled, a);
		return a->out;
	}
	return f;
}

/* The line written to @p f by rk_insp_line_begin(): nothing to do, or a string. */
bool
rk_insp_line_end(struct app *a, FILE *f, char **buf, size_t *len)
{
	if (f == a->out)
		return false;
	if (fclose(f) != 0) {
		free(*buf);
		*buf = NULL;
		*len = 0;
	}
	return true;
}
