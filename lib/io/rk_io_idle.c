/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DPDK I/O backend, the idle policy of poll loops: spin, or spin then
 * sleep (two-core machines), with the housekeeping an idle poll does.
 */
#include <time.h>

#include <rte_pause.h>

#include "rk_io_internal.h"

void
rk_io_dpdk_idle(struct rk_io_dpdk *io, int work)
{
	if (work > 0) {
		io->idle_since_ns = 0;
		return;
	}
	/* Nothing to do: free received frames, ready the next TX buffer. */
	if (io->rx_free_n > 0) {
		rte_pktmbuf_free_bulk(io->rx_free, io->rx_free_n);
		io->rx_free_n = 0;
	}
	if (io->tx_lent == NULL)
		io->tx_lent = rte_pktmbuf_alloc(io->pool);
	/* Frames wait for the ring: retry them instead of sleeping. */
	if (io->txq_n > 0) {
		rk_io_tx_once(io);
		io->idle_since_ns = 0;
		return;
	}
	if (io->idle == RK_IO_IDLE_SPIN) {
		rte_pause();
		return;
	}
	if (rk_io_idle_adaptive(&io->idle_since_ns, 0, io->cfg.spin_us, io->cfg.sleep_us))
		io->st.idle_sleeps++;
}

bool
rk_io_idle_adaptive(uint64_t *idle_since_ns, int work, uint32_t spin_us, uint32_t sleep_us)
{
	uint64_t now;

	if (work > 0) {
		*idle_since_ns = 0;
		return false;
	}
	now = rk_io_dpdk_now_ns();
	if (*idle_since_ns == 0)
		*idle_since_ns = now;
	if (now - *idle_since_ns < (uint64_t)(spin_us != 0 ? spin_us : 100) * 1000) {
		rte_pause();
		return false;
	}
	/* Idle for a while: give the core away (two-core machines). */
	struct timespec ts = { 0, (long)(sleep_us != 0 ? sleep_us : 50) * 1000 };

	nanosleep(&ts, NULL);
	return true;
}

void
rk_io_dpdk_set_idle(struct rk_io_dpdk *io, enum rk_io_idle idle)
{
	io->idle = idle;
	io->idle_since_ns = 0;
}

