#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Install the rdmakit Wireshark plugin for one user: copies rdmakit.so to
# $HOME/.local/lib/wireshark/plugins/4.0/epan/ (Wireshark 4.0's personal
# plugin folder). Wireshark and tshark started as root ignore that folder;
# for every user use `meson install` (the global plugin folder) instead.
#
# usage: install-plugin.sh [PLUGIN_SO]   (default: build/dissectors/rdmakit.so)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
so=${1:-$here/../build/dissectors/rdmakit.so}
[ -f "$so" ] || { echo "install-plugin: $so not found: build it first (ninja -C build)" >&2; exit 2; }
dest="${HOME:?}/.local/lib/wireshark/plugins/4.0/epan"
mkdir -p "$dest"
cp "$so" "$dest/rdmakit.so"
chmod 644 "$dest/rdmakit.so"
echo "installed $dest/rdmakit.so"
if [ "$(id -u)" = 0 ]; then
	echo "note: Wireshark run as root does not load personal plugins; run it as a user," \
	     "or install globally with: meson install -C <build dir>" >&2
fi
