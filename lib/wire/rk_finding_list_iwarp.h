/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Findings of MPA (RFC 5044, RFC 6581), DDP (RFC 5041) and RDMAP (RFC 5040,
 * RFC 7306). Same shape as rk_finding_list_roce.h.
 */
RK_FINDING(RK_F_MPA_CRC_BAD, "mpa.crc.bad", RK_SEV_ERROR,
	   "RFC 5044 4.4",
	   "MPA CRC32c does not match the FPDU")
