/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_mad.h
 * Management datagrams as a capture shows them: the common MAD header
 * (IBTA Vol1 13.4.3), the names of management classes, methods and
 * attributes (one table each, with the section that defines the value),
 * and the key fields of the Communication Management messages (12.6,
 * SIDR 12.11). MADs travel in UD SENDs to QP0 (SMPs) and QP1 (GMPs);
 * each is 256 bytes (13.4.2).
 *
 * Common MAD header (big endian):
 *
 *     byte 0       BaseVersion (1)
 *     byte 1       MgmtClass
 *     byte 2       ClassVersion
 *     byte 3       R(7) Method(6:0): R set in responses
 *     bytes 4-5    Status
 *     bytes 6-7    ClassSpecific
 *     bytes 8-15   TransactionID
 *     bytes 16-17  AttributeID
 *     bytes 18-19  Reserved
 *     bytes 20-23  AttributeModifier
 *     bytes 24-255 class data (CM: the message, offsets below from byte 24)
 *
 * The tables drive both the parser (rk_mad_parse() names what it finds)
 * and the printers of rk-inspect. libc only.
 */
#ifndef RK_MAD_H
#define RK_MAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rk_finding.h"
#include "rk_pkt.h"

/** Bytes of every MAD (IBTA Vol1 13.4.2). */
#define RK_MAD_BYTES 256
/** Bytes of the common MAD header (13.4.3). */
#define RK_MAD_HEADER_BYTES 24
/** BaseVersion of IBTA MADs. */
#define RK_MAD_BASE_VERSION 1
/** R bit of the Method byte: the MAD is a response. */
#define RK_MAD_METHOD_R 0x80

/** Management classes (IBTA Vol1 13.4.4, Table 3). */
enum rk_mad_class {
	RK_MAD_CLASS_SUBN_LID = 0x01,   /**< Subnet Management, LID routed */
	RK_MAD_CLASS_SUBN_ADM = 0x03,   /**< Subnet Administration */
	RK_MAD_CLASS_PERF = 0x04,
	RK_MAD_CLASS_BM = 0x05,
	RK_MAD_CLASS_DEV = 0x06,
	RK_MAD_CLASS_COMM = 0x07,       /**< Communication Management */
	RK_MAD_CLASS_SNMP = 0x08,
	RK_MAD_CLASS_SUBN_DR = 0x81,    /**< Subnet Management, directed route */
};

/** CM attribute IDs (IBTA Vol1 12.6, 12.11). */
enum rk_mad_cm_attr {
	RK_MAD_ATTR_CLASS_PORT_INFO = 0x0001,
	RK_MAD_CM_REQ = 0x0010,
	RK_MAD_CM_MRA = 0x0011,
	RK_MAD_CM_REJ = 0x0012,
	RK_MAD_CM_REP = 0x0013,
	RK_MAD_CM_RTU = 0x0014,
	RK_MAD_CM_DREQ = 0x0015,
	RK_MAD_CM_DREP = 0x0016,
	RK_MAD_CM_SIDR_REQ = 0x0017,
	RK_MAD_CM_SIDR_REP = 0x0018,
	RK_MAD_CM_LAP = 0x0019,
	RK_MAD_CM_APR = 0x001a,
};

/**
 * One row of a name table: the class it belongs to (0: every class that
 * uses the common values), the value, the spec's name and where the spec
 * defines it.
 */
struct rk_mad_name {
	uint8_t mgmt_class;
	uint16_t value;
	const char *name;
	const char *spec;
};

/** Class table: short name ("SM", "SA", "CM", ...), rows end with a NULL name. */
extern const struct rk_mad_name rk_mad_classes[];
/** Method table (R bit included in the value); common rows have class 0. */
extern const struct rk_mad_name rk_mad_methods[];
/** Attribute table; common rows (ClassPortInfo, Notice, InformInfo) have class 0. */
extern const struct rk_mad_name rk_mad_attrs[];
/** CM REJ reason codes (IBTA Vol1 12.6.7.2); mgmt_class is 0x07. */
extern const struct rk_mad_name rk_mad_cm_rej_reasons[];

/** Row of class @p cls, or NULL. */
const struct rk_mad_name *rk_mad_class_info(uint8_t cls);

/**
 * Row of method byte @p method (R bit included) in class @p cls: the
 * class's own row first, then the common one. Directed-route SM shares the
 * LID-routed SM rows. @return the row, or NULL.
 */
const struct rk_mad_name *rk_mad_method_info(uint8_t cls, uint8_t method);

/** Row of attribute @p attr in class @p cls (as rk_mad_method_info()), or NULL. */
const struct rk_mad_name *rk_mad_attr_info(uint8_t cls, uint16_t attr);

/** Name of CM REJ reason @p reason, or NULL when the table has none. */
const char *rk_mad_cm_rej_reason_name(uint16_t reason);

/** Which CM key fields a struct rk_mad_cm holds. */
enum rk_mad_cm_field {
	RK_MAD_CM_F_LOCAL_ID = 1u << 0,    /**< LocalCommID (SIDR: RequestID) */
	RK_MAD_CM_F_REMOTE_ID = 1u << 1,   /**< RemoteCommID */
	RK_MAD_CM_F_QPN = 1u << 2,         /**< Local QPN (REQ, REP, SIDR_REP) or Remote QPN (DREQ, LAP) */
	RK_MAD_CM_F_PSN = 1u << 3,         /**< Starting PSN (REQ, REP) */
	RK_MAD_CM_F_SERVICE_ID = 1u << 4,  /**< ServiceID (REQ, SIDR_REQ, SIDR_REP) */
	RK_MAD_CM_F_REASON = 1u << 5,      /**< REJ Reason */
	RK_MAD_CM_F_MSG = 1u << 6,         /**< MsgRejected / MsgMRAed (2 bits) */
	RK_MAD_CM_F_STATUS = 1u << 7,      /**< SIDR_REP Status, APR AP Status */
	RK_MAD_CM_F_QKEY = 1u << 8,        /**< Local Q_Key (REQ, REP), SIDR_REP Q_Key */
	RK_MAD_CM_F_PKEY = 1u << 9,        /**< P_Key (REQ, SIDR_REQ) */
};

/** Key fields of a CM message, host order; @c fields says which are set. */
struct rk_mad_cm {
	uint32_t fields;                /**< enum rk_mad_cm_field bits */
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint32_t qpn;                   /**< 24 bits */
	uint32_t starting_psn;          /**< 24 bits */
	uint64_t service_id;
	uint16_t reason;
	uint8_t msg;
	uint8_t status;
	uint32_t qkey;
	uint16_t pkey;
};

/** A MAD as rk_mad_parse() decodes it. */
struct rk_mad {
	uint8_t base_version;
	uint8_t mgmt_class;
	uint8_t class_version;
	uint8_t method;                 /**< the whole byte: R(7) and Method(6:0) */
	uint16_t status;
	uint16_t class_specific;
	uint64_t tid;                   /**< TransactionID */
	uint16_t attr_id;
	uint32_t attr_mod;
	uint32_t len;                   /**< bytes on the wire */
	struct rk_mad_cm cm;            /**< CM class: the message's key fields */
};

/**
 * Decode the MAD at @p p and run its checks: mad.truncated (the wire holds
 * less than the 24-byte header), mad.length.bad (not 256 bytes),
 * mad.base_version.unknown, mad.cm.attr.unknown (CM class, an attribute
 * 12.6 does not define). A CM message's key fields are read from the
 * bytes captured; those past @p caplen stay unset (the snap length cut
 * them: no finding). Finding offsets are @p off plus bytes from @p p.
 * @param p        the MAD's first byte
 * @param caplen   bytes captured at @p p
 * @param wirelen  bytes on the wire (>= @p caplen)
 * @param m        out: the MAD
 * @param f        findings, may be NULL
 * @return 0 when the header was decoded; -EBADMSG when the wire holds less
 *         than a header (mad.truncated); -EAGAIN when the capture holds
 *         less (snap length); -EINVAL on NULL @p p or @p m.
 */
int rk_mad_parse(const uint8_t *p, uint32_t caplen, uint32_t wirelen, struct rk_mad *m,
		 struct rk_findings *f, uint32_t off);

/** BTH opcode of the UD SEND Only packets that carry MADs (IBTA Vol1 ch. 13). */
#define RK_MAD_UD_SEND_ONLY 0x64

/**
 * Whether @p pkt carries a MAD: a UD SEND Only to QP0 or QP1 with its
 * DETH captured. When it does, the MAD is decoded into @p m as
 * rk_mad_parse() does (findings into @p f, offsets from the frame).
 * @return 1 with the header decoded, 0 when the packet is no MAD, or
 *         rk_mad_parse()'s error (the packet is a MAD that it could not
 *         decode).
 */
int rk_pkt_mad(const struct rk_pkt *pkt, struct rk_mad *m, struct rk_findings *f);

#endif /* RK_MAD_H */
