/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The responder's clients served at once: a thread per client, at most
 * RK_TP_RESP_CLIENTS, started and joined by the control thread alone (so
 * the slots' "used" needs no lock; "done" and "waiting" are set by the
 * client threads), and the sessions the forwarding loop serves (under
 * rk_tp_rdma_lock).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "rdma.h"
#include "responder.h"

static struct {
	pthread_t thread;
	bool used;
	atomic_bool done, waiting;
	rk_tp_resp_client_fn fn;
	struct rk_tp_resp_client *c;
} slots[RK_TP_RESP_CLIENTS];

static void *
client_main(void *arg)
{
	int i = (int)(intptr_t)arg;

	slots[i].fn(slots[i].c);        /* frees the client */
	atomic_store(&slots[i].waiting, false);
	atomic_store(&slots[i].done, true);
	return NULL;
}

void
rk_tp_resp_set_clients(FILE *out, unsigned int n)
{
	rk_tp_resp.max_clients = n;
	fprintf(out, "The responder serves at most %u client(s) at once\n", n);
}

unsigned int
rk_tp_resp_max_clients(void)
{
	unsigned int n = rk_tp_resp.max_clients;

	return n >= 1 && n <= RK_TP_RESP_CLIENTS ? n : RK_TP_RESP_CLIENTS;
}

int
rk_tp_resp_spawn(struct rk_tp_resp_client *c, rk_tp_resp_client_fn fn, bool waiting)
{
	int rc;

	if (rk_tp_resp_reap() >= rk_tp_resp_max_clients())
		return -EBUSY;
	for (int i = 0; i < RK_TP_RESP_CLIENTS; i++) {
		if (slots[i].used)
			continue;
		slots[i].fn = fn;
		slots[i].c = c;
		c->slot = i;
		atomic_store(&slots[i].done, false);
		atomic_store(&slots[i].waiting, waiting);
		rc = pthread_create(&slots[i].thread, NULL, client_main, (void *)(intptr_t)i);
		if (rc != 0) {
			atomic_store(&slots[i].waiting, false);
			return -rc;
		}
		slots[i].used = true;
		return 0;
	}
	return -EBUSY;
}

void
rk_tp_resp_took(const struct rk_tp_resp_client *c)
{
	atomic_store(&slots[c->slot].waiting, false);
}

bool
rk_tp_resp_waiting(void)
{
	for (int i = 0; i < RK_TP_RESP_CLIENTS; i++)
		if (slots[i].used && atomic_load(&slots[i].waiting))
			return true;
	return false;
}

unsigned int
rk_tp_resp_reap(void)
{
	unsigned int running = 0;

	for (int i = 0; i < RK_TP_RESP_CLIENTS; i++) {
		if (!slots[i].used)
			continue;
		if (!atomic_load(&slots[i].done)) {
			running++;
			continue;
		}
		pthread_join(slots[i].thread, NULL);
		slots[i].used = false;
	}
	return running;
}

void
rk_tp_resp_join_all(void)
{
	for (int i = 0; i < RK_TP_RESP_CLIENTS; i++) {
		if (!slots[i].used)
			continue;
		pthread_join(slots[i].thread, NULL);
		slots[i].used = false;
	}
}

void
rk_tp_resp_sess_add(struct rk_tp_resp_sess *s)
{
	for (int i = 0; i < RK_TP_RESP_CLIENTS; i++) {
		if (rk_tp_resp.sess[i] == s)
			return;
	}
	for (int i = 0; i < RK_TP_RESP_CLIENTS; i++) {
		if (rk_tp_resp.sess[i] != NULL)
			continue;
		rk_tp_resp.sess[i] = s;
		rk_tp_resp.serving++;
		return;
	}
}

void
rk_tp_resp_sess_del(const struct rk_tp_resp_sess *s)
{
	for (int i = 0; i < RK_TP_RESP_CLIENTS; i++) {
		if (rk_tp_resp.sess[i] != s)
			continue;
		rk_tp_resp.sess[i] = NULL;
		rk_tp_resp.serving--;
	}
}
