/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An enum and its table of names written once, as a list macro
 * LIST(X, P) whose rows are X(P, NAME), P being the members' prefix:
 *
 *     enum e { LIST(RK_ENUM_MEMBER, RK_E_) RK_E_COUNT };
 *     const char *const e_name[RK_E_COUNT] = { LIST(RK_ENUM_NAME, RK_E_) };
 *
 * gives RK_E_NAME = 0, 1, ... in list order, and e_name[RK_E_NAME] = "NAME".
 */
#ifndef RK_ENUM_H
#define RK_ENUM_H

#define RK_ENUM_MEMBER(pfx, n) pfx##n,
#define RK_ENUM_NAME(pfx, n) [pfx##n] = #n,

#endif
