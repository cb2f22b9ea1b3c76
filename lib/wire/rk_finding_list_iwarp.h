/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Findings of MPA (RFC 5044, RFC 6581), DDP (RFC 5041) and RDMAP (RFC 5040,
 * RFC 7306). Same shape as rk_finding_list_roce.h.
 * RK_FINDING(enum symbol, stable ID, severity, spec reference, text)
 * A section number is given only where it is known; otherwise the RFC alone.
 * No include guard: this list is expanded several times.
 */
RK_FINDING(RK_F_MPA_CRC_BAD, "mpa.crc.bad", RK_SEV_ERROR,
	   "RFC 5044 4.4",
	   "MPA CRC32c does not match the FPDU")
RK_FINDING(RK_F_MPA_KEY_BAD, "mpa.key.bad", RK_SEV_ERROR,
	   "RFC 5044 7.1.1",
	   "MPA frame key is neither \"MPA ID Req Frame\" nor \"MPA ID Rep Frame\"")
RK_FINDING(RK_F_MPA_REV_UNKNOWN, "mpa.rev.unknown", RK_SEV_ERROR,
	   "RFC 5044 7.1.1; RFC 6581",
	   "MPA Rev is neither 1 (RFC 5044) nor 2 (RFC 6581)")
RK_FINDING(RK_F_MPA_REQUEST_R_SET, "mpa.request.r_set", RK_SEV_ERROR,
	   "RFC 5044 7.1.1",
	   "Reject bit R set in an MPA Request (only a Reply may reject)")
RK_FINDING(RK_F_MPA_PD_LENGTH_OVER, "mpa.pd_length.over", RK_SEV_ERROR,
	   "RFC 5044 7.1.1",
	   "MPA PD_Length above 512 bytes")
RK_FINDING(RK_F_MPA_RESERVED, "mpa.reserved.nonzero", RK_SEV_WARN,
	   "RFC 5044 7.1.1",
	   "reserved flag bits (Res) of an MPA Request/Reply set (senders must send 0)")
RK_FINDING(RK_F_MPA_ENHANCED_PD_SHORT, "mpa.enhanced.pd_too_short", RK_SEV_ERROR,
	   "RFC 6581",
	   "enhanced (Rev 2) MPA frame with less than 4 bytes of private data for IRD/ORD")
RK_FINDING(RK_F_MPA_RTR_MISMATCH, "mpa.rtr.mismatch", RK_SEV_ERROR,
	   "RFC 6581",
	   "peer-to-peer MPA Reply does not select exactly one RTR type offered by the Request")
RK_FINDING(RK_F_MPA_MARKER_FPDUPTR, "mpa.marker.fpduptr", RK_SEV_ERROR,
	   "RFC 5044 4.3",
	   "MPA marker FPDUPTR does not point back to the ULPDU_Length of its FPDU")
RK_FINDING(RK_F_MPA_MARKER_RESERVED, "mpa.marker.reserved", RK_SEV_WARN,
	   "RFC 5044 4.3",
	   "reserved half of an MPA marker is not 0")
RK_FINDING(RK_F_MPA_PAD_NONZERO, "mpa.pad.nonzero", RK_SEV_WARN,
	   "RFC 5044 4.1",
	   "FPDU pad bytes are not 0")
RK_FINDING(RK_F_MPA_ULPDU_TOO_SHORT, "mpa.ulpdu.too_short", RK_SEV_ERROR,
	   "RFC 5044 4.1; RFC 5041 4",
	   "ULPDU shorter than the DDP header it must hold (14 bytes tagged, 18 untagged)")
RK_FINDING(RK_F_MPA_STREAM_UNKNOWN, "mpa.stream.unknown", RK_SEV_NOTE,
	   "RFC 5044 7.1",
	   "TCP stream does not start with an MPA Request or Reply; not deframed")
RK_FINDING(RK_F_MPA_SYNC_LOST, "mpa.sync.lost", RK_SEV_NOTE,
	   "RFC 5044 4.3",
	   "bytes missing from the capture: FPDU framing lost until the next usable marker")
RK_FINDING(RK_F_TCP_RTX_CONFLICT, "tcp.retransmission.conflict", RK_SEV_ERROR,
	   "RFC 9293 3.4",
	   "bytes sent again at the same TCP sequence numbers differ from the first copy")
RK_FINDING(RK_F_DDP_DV_BAD, "ddp.dv.bad", RK_SEV_ERROR,
	   "RFC 5041 4.1, 7.2; Terminate 1/1/0x04, 1/2/0x06",
	   "DDP version (DV) is not 1")
RK_FINDING(RK_F_DDP_RESERVED, "ddp.reserved.nonzero", RK_SEV_WARN,
	   "RFC 5041 4.1",
	   "reserved DDP control bits (Rsvd) set (senders must send 0)")
RK_FINDING(RK_F_DDP_QN_INVALID, "ddp.qn.invalid", RK_SEV_ERROR,
	   "RFC 5040 4; RFC 7306; Terminate 1/2/0x01",
	   "untagged QN is not the queue of the RDMAP opcode (0 Send, 1 Read Request, 2 Terminate)")
RK_FINDING(RK_F_DDP_TAGGED_MISMATCH, "ddp.tagged.mismatch", RK_SEV_ERROR,
	   "RFC 5040 4.2; Terminate 0/2/0x06",
	   "DDP T bit disagrees with the opcode (Write and Read Response tagged, others untagged)")
RK_FINDING(RK_F_DDP_MO_SINGLE, "ddp.mo.nonzero_terminate_or_readreq", RK_SEV_ERROR,
	   "RFC 5040 4.4, 4.8; Terminate 1/2/0x04",
	   "Read Request or Terminate with MO not 0 (both are single-segment messages)")
RK_FINDING(RK_F_DDP_L_SINGLE, "ddp.l.clear_terminate_or_readreq", RK_SEV_ERROR,
	   "RFC 5040 4.4, 4.8",
	   "Read Request or Terminate with L = 0 (both are single-segment messages)")
RK_FINDING(RK_F_RDMAP_RV_BAD, "rdmap.rv.bad", RK_SEV_ERROR,
	   "RFC 5040 4.2, 7; Terminate 0/2/0x05",
	   "RDMAP version (RV) is not 1")
RK_FINDING(RK_F_RDMAP_RESERVED, "rdmap.reserved.nonzero", RK_SEV_WARN,
	   "RFC 5040 4.2",
	   "reserved RDMAP control bits, or untagged RsvdULP of an opcode that does not use it, set")
RK_FINDING(RK_F_RDMAP_OPCODE_RESERVED, "rdmap.opcode.reserved", RK_SEV_ERROR,
	   "RFC 5040 4.3; RFC 7306; Terminate 0/2/0x06",
	   "RDMAP opcode 12..15 is not assigned")
RK_FINDING(RK_F_RDMAP_READ_REQ_LENGTH, "rdmap.read_request.length", RK_SEV_ERROR,
	   "RFC 5040 4.4",
	   "Read Request segment is not exactly the DDP header plus the 28-byte Read Request header")
RK_FINDING(RK_F_RDMAP_HDR_TRUNCATED, "rdmap.header.truncated", RK_SEV_ERROR,
	   "RFC 5040 4.8; RFC 7306",
	   "segment shorter than the RDMAP header its opcode needs (Terminate, Atomic, Immediate Data)")
RK_FINDING(RK_F_RDMAP_TERM_CODE_UNKNOWN, "rdmap.terminate.code_unknown", RK_SEV_ERROR,
	   "RFC 5040 4.8; RFC 5041 7.2; RFC 5044 8; RFC 6581 (IANA registry of RFC 6580)",
	   "Terminate Layer/EType/Error code is not in the registered table")
