#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The include layering of lib/ (tools/check-layers.py): the tree obeys it,
# and the checker catches each kind of violation in a fixture tree.
# Usage: layers_check.sh CHECKER SOURCE_ROOT
check=$1 root=$2
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

if python3 "$check" "$root"; then ok "the tree obeys the layer table"
else bad "the tree breaks the layer table (above)"; fi

fx=$(mktemp -d)
trap 'rm -rf "$fx"' EXIT
mkdir -p "$fx/lib/common" "$fx/lib/wire" "$fx/lib/ib" "$fx/lib/verbs" "$fx/lib/io" "$fx/lib/newdir"
: >"$fx/lib/ib/rk_ib.h"
: >"$fx/lib/io/rk_io_dpdk.h"
printf '#include "rk_ib.h"\n' >"$fx/lib/wire/up.c"
printf '#include <rte_mbuf.h>\n#include <pcap/pcap.h>\n#include <sys/socket.h>\n#include <time.h>\n' >"$fx/lib/verbs/sys.c"
printf '#include "rk_io_dpdk.h"\n' >"$fx/lib/ib/io.c"
out=$(python3 "$check" "$fx")
rc=$?
[ $rc -eq 1 ] && ok "a violating tree exits 1" || bad "a violating tree exits $rc"
for want in "lib/wire/up.c:1: lib/wire includes rk_ib.h from lib/ib" \
	"lib/verbs/sys.c:1: core library includes <rte_mbuf.h>" \
	"lib/verbs/sys.c:2: core library includes <pcap/pcap.h>" \
	"lib/verbs/sys.c:3: core library includes <sys/socket.h>" \
	"lib/verbs/sys.c:4: core library includes <time.h>" \
	"lib/ib/io.c:1: lib/ib includes rk_io_dpdk.h from lib/io" \
	"lib/newdir: not in the layer table" \
	"check-layers: 7 violation(s)"; do
	case $out in
	*"$want"*) ok "reported: $want" ;;
	*) bad "not reported: $want" ;;
	esac
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
