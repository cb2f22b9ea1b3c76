/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_conform_self.h
 * rdmakit's own RoCEv2 engine (lib/ib) as a conformance DUT, in process
 * and on a virtual clock: frames the tester sends go straight into
 * rk_ib_rx(), frames the engine emits are read back, and time advances by
 * a fixed step whenever the tester finds nothing to read (the engine's
 * timers run as it passes them). A fresh device and QP per case.
 * iWARP cases reach rdmakit's iWARP engine (lib/iwarp) the same way over
 * an in-memory byte stream (rk_conform_env.stream): a fresh MPA Responder
 * per case (Rev 2, CRC, markers asked of the tester, peer-to-peer RTR
 * accepted, IRD 2), before the MPA exchange.
 */
#ifndef RK_CONFORM_SELF_H
#define RK_CONFORM_SELF_H

#include "rk_conform.h"

struct rk_conform_self;

/**
 * Create the in-process DUT and fill @p env to reach it (ops, addresses,
 * setup and the optional hooks). The QP's PSN starts at 0xFFFFFE so every
 * case crosses the 24-bit wrap; PMTU rk_conform_need.pmtu (1024 when 0
 * or a CM case), minimum RNR timer 14, receives
 * of 4096 bytes, a 64 KiB region with remote read/write/atomic and a 4 KiB
 * region with remote read only; for a case that sends CE marks
 * (rk_conform_need.cc) an RC or UC QP runs DCQCN (NVIDIA's defaults), so
 * a CE-marked request draws a CNP. @return the DUT, or NULL without memory.
 */
struct rk_conform_self *rk_conform_self_create(struct rk_conform_env *env);

/** Free the DUT and its current device. */
void rk_conform_self_destroy(struct rk_conform_self *s);

#endif /* RK_CONFORM_SELF_H */
