/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>

#include "rk_insp_hash.h"

int
rk_insp_htab_init(struct rk_insp_htab *h, uint32_t n, uint32_t max)
{
	h->b = calloc(n, sizeof(*h->b));
	h->n = n;
	h->max = max;
	h->count = 0;
	return h->b != NULL ? 0 : -ENOMEM;
}

void
rk_insp_htab_fini(struct rk_insp_htab *h)
{
	free(h->b);
	h->b = NULL;
	h->n = 0;
	h->count = 0;
}

static void
grow(struct rk_insp_htab *h)
{
	uint32_t n = h->n * 2;
	struct rk_insp_hlink **b = calloc(n, sizeof(*b));

	if (b == NULL)
		return;
	for (uint32_t i = 0; i < h->n; i++) {
		struct rk_insp_hlink *l = h->b[i], *next;

		for (; l != NULL; l = next) {
			next = l->next;
			l->next = b[l->hash & (n - 1)];
			b[l->hash & (n - 1)] = l;
		}
	}
	free(h->b);
	h->b = b;
	h->n = n;
}

void
rk_insp_htab_add(struct rk_insp_htab *h, struct rk_insp_hlink *l, uint64_t hash)
{
	struct rk_insp_hlink **head = &h->b[hash & (h->n - 1)];

	l->hash = hash;
	l->next = *head;
	*head = l;
	h->count++;
	if (h->count > (uint64_t)h->n * 2 && h->n < h->max)
		grow(h);
}

void
rk_insp_htab_del(struct rk_insp_htab *h, struct rk_insp_hlink *l)
{
	struct rk_insp_hlink **pp = &h->b[l->hash & (h->n - 1)];

	while (*pp != NULL && *pp != l)
		pp = &(*pp)->next;
	if (*pp == l) {
		*pp = l->next;
		h->count--;
	}
	l->next = NULL;
}
