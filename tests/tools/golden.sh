#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Golden output tests of rk-inspect: run every output mode over each capture
# and diff with the expected files.
#
# usage: golden.sh RK_INSPECT GEN_CAPTURES GOLDEN_DIR [PCAP_DIR [PUBLIC_DIR]] [--update]
#
#   RK_INSPECT    the rk-inspect binary
#   GEN_CAPTURES  the generator of the synthetic captures (gen_captures.c)
#   GOLDEN_DIR    tests/tools/golden: <capture>.<mode>.txt of the synthetic captures
#   PCAP_DIR      optional: pcaps/ of the tree; its roce/*.pcap and
#                 iwarp/*.pcap are checked against PCAP_DIR/golden/, and every
#                 one of them must have its golden files
#   PUBLIC_DIR    optional: the third-party public captures (pcaps/public),
#                 golden files in PCAP_DIR/golden/ too
#   --update      rewrite the golden files instead of comparing
#
# Modes: lines (default output), summary (-s), json (-j), packets (-p);
# packets only for the synthetic captures.
# rk-inspect runs in the capture's directory with a bare file name, so the
# "file" member of the JSON does not depend on where the tree lives.
set -u

rk=$1
gen=$2
golden=$3
shift 3
pcapdir=""
pubdir=""
update=0
for a in "$@"; do
	case $a in
	--update) update=1 ;;
	*) if [ -z "$pcapdir" ]; then pcapdir=$a; else pubdir=$a; fi ;;
	esac
done

# Absolute paths: the loop below changes directory.
case $rk in /*) ;; *) rk=$(pwd)/$rk ;; esac
case $gen in /*) ;; *) gen=$(pwd)/$gen ;; esac
case $golden in /*) ;; *) golden=$(pwd)/$golden ;; esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
mkdir -p "$tmp/gen"
"$gen" "$tmp/gen" || { echo "FAIL: $gen"; exit 1; }

pass=0
fail=0
skip=0

check() {
	# $1 capture path, $2 1 when a missing golden file is a failure,
	# $3 the modes, $4 the golden directory
	gdir=$4
	dir=$(dirname "$1")
	base=$(basename "$1")
	name=${base%.pcap*}
	for mode in $3; do
		case $mode in
		lines) opt="" ;;
		summary) opt="-s" ;;
		json) opt="-j" ;;
		packets) opt="-p" ;;
		esac
		want="$gdir/$name.$mode.txt"
		got="$tmp/$name.$mode.txt"
		(cd "$dir" && "$rk" $opt "$base" >"$got" 2>"$got.err")
		rc=$?
		if [ $rc -ne 0 ]; then
			echo "FAIL $name $mode: exit $rc: $(cat "$got.err")"
			fail=$((fail + 1))
			continue
		fi
		if [ $update -eq 1 ]; then
			cp "$got" "$want"
			pass=$((pass + 1))
			continue
		fi
		if [ ! -f "$want" ]; then
			if [ "$2" -eq 1 ]; then
				echo "FAIL $name $mode: no $want (run with --update)"
				fail=$((fail + 1))
			else
				echo "SKIP $name $mode: no golden file"
				skip=$((skip + 1))
			fi
			continue
		fi
		if diff -u "$want" "$got" >"$tmp/diff"; then
			pass=$((pass + 1))
		else
			echo "FAIL $name $mode:"
			head -40 "$tmp/diff"
			fail=$((fail + 1))
		fi
	done
}

for f in "$tmp"/gen/*.pcap; do
	check "$f" 1 "lines summary json packets" "$golden"
done
# Recorded captures: the per-packet JSON is checked against tshark instead
# (tshark_compare.py), so its golden copy would only add bulk.
if [ -n "$pcapdir" ]; then
	case $pcapdir in /*) ;; *) pcapdir=$(pwd)/$pcapdir ;; esac
	for f in "$pcapdir"/roce/*.pcap "$pcapdir"/iwarp/*.pcap; do
		[ -f "$f" ] || continue
		check "$f" 1 "lines summary json" "$pcapdir/golden"
	done
	# The third-party public captures (pcaps/public, not in git), golden
	# files kept in pcaps/golden too.
	if [ -n "$pubdir" ]; then
		if [ -d "$pubdir" ]; then
			for f in "$pubdir"/*.pcap; do
				[ -f "$f" ] || continue
				check "$f" 1 "lines summary json" "$pcapdir/golden"
			done
		else
			echo "SKIP public captures: $pubdir not found (see pcaps/README.md)"
			skip=$((skip + 1))
		fi
	fi
fi

echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
