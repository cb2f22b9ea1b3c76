#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Take the screenshots of doc/wireshark.md: the Wireshark GUI with the
# plugin, under Xvfb, as user nobody (Wireshark run as root would ignore
# the plugin folder). Needs wireshark-qt, xvfb, xdotool and imagemagick
# (import). Clicks at fixed positions of a 1500x1050 screen, so the
# result depends on Wireshark's default layout; check the images.
#
# usage: dissectors/screenshot.sh BUILD_DIR OUT_DIR
set -eu
build=${1:?build dir}
out=${2:?output dir}
src=$(cd "$(dirname "$0")/.." && pwd)
for t in wireshark Xvfb xdotool import; do
	command -v $t >/dev/null || { echo "screenshot: $t missing" >&2; exit 2; }
done
tmp=$(mktemp -d /tmp/rk-shot.XXXXXX)
mkdir -p "$tmp/plug/4.0/epan" "$tmp/home"
cp "$build/dissectors/rdmakit.so" "$tmp/plug/4.0/epan/"
cp "$src/pcaps/roce/rxe_write_bw_loss5.pcap" "$tmp/"
"$build/tests/dissectors/gen_gso" "$tmp/gso_iwarp.pcap"
chown -R nobody:nogroup "$tmp"
chmod -R a+rX "$tmp"
chmod 700 "$tmp/home"
display=:57
Xvfb $display -screen 0 1500x1050x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
ws=
cleanup() {
	[ -n "$ws" ] && kill "$ws" 2>/dev/null
	kill "$xvfb" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
sleep 2
export DISPLAY=$display

# open FILE FILTER FRAME: start Wireshark, wait, maximise
open_ws() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$tmp/home" \
		XDG_RUNTIME_DIR="$tmp/home" WIRESHARK_PLUGIN_DIR="$tmp/plug" \
		wireshark -r "$1" -Y "$2" -g "$3" >/dev/null 2>&1 &
	ws=$!
	sleep 10
	w=$(xdotool search --onlyvisible --class wireshark | head -n 1)
	xdotool windowmove "$w" 0 0 windowsize "$w" 1500 1050
	sleep 2
}

open_ws "$tmp/rxe_write_bw_loss5.pcap" \
	"rdmakit.analysis.lost || rdmakit.analysis.go_back_n || rdmakit.analysis.nak || rdmakit.ack.count > 1" 109
xdotool mousemove 300 655 click 1
sleep 1
xdotool key shift+Right
xdotool mousemove 400 558 mousedown 1 sleep 0.3 mousemove 400 250 sleep 0.3 mouseup 1
sleep 1
import -window root "$out/wireshark-roce-analysis.png"
kill "$ws"
ws=
sleep 2

open_ws "$tmp/gso_iwarp.pcap" "rdmakit.fpdu.count >= 2 || rdmakit.fpdu.spans" 8
xdotool mousemove 300 256 click 1
sleep 1
xdotool mousemove 200 571 click 1
xdotool key End Right Down Down Down Down Right
xdotool key Down Down Down Down Down Down Down Down Down Down Down Down Down Down Down Down Down Right
sleep 0.5
# back up to the first FPDU (this also undoes the sideways scroll)
xdotool key Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up Up
sleep 1
import -window root "$out/wireshark-iwarp-gso.png"
echo "screenshot: wrote $out/wireshark-roce-analysis.png $out/wireshark-iwarp-gso.png"
