#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check the include layering of lib/ (doc/architecture.md, "Layers").

Every C file under lib/<dir>/ may include project headers only from the
directories its row of LAYERS allows, and the protocol core may include no
DPDK, libpcap, socket, clock or TCP-stack header. A directory missing from
the table is an error, so a new library states its place when it is added.
Usage: check-layers.py [SOURCE_ROOT]; exit 0 clean, 1 on a violation.
"""
import os
import re
import sys

from srctree import c_sources

CORE = ("common", "wire", "ib", "iwarp", "verbs", "cm", "gen")

# directory -> the lib directories its files may include (itself implied).
LAYERS = {
    "common": (),
    "wire": ("common",),
    "ib": ("common", "wire"),
    "iwarp": ("common", "wire"),
    "verbs": ("common", "wire", "ib", "iwarp"),
    "cm": ("common", "wire"),
    "impair": ("common", "wire"),
    "pcapng": ("common",),
    "analysis": ("common", "wire"),
    "probe": ("common", "wire", "ib", "iwarp", "verbs"),
    "conform": ("common", "wire", "ib", "iwarp", "probe", "cm"),  # the in-process DUTs
    "sim": ("common", "wire", "ib", "iwarp", "verbs", "impair", "pcapng"),
    "tcp": ("common", "wire", "ib", "iwarp", "verbs"),
    "io": ("common", "wire", "ib", "iwarp", "verbs", "tcp", "impair", "pcapng"),
    "gen": ("common", "wire"),
    "genyaml": ("common", "wire", "gen"),
    "plot": (),
}

# System headers the core must not use: DPDK, libpcap, sockets and the
# network stack, clocks, a TCP stack.
FORBIDDEN = re.compile(
    r"^(rte_|pcap|sys/socket\.h$|sys/time\.h$|time\.h$|netinet/|arpa/|net/|"
    r"netdb\.h$|lwip/|netif/|poll\.h$|sys/epoll\.h$|sys/select\.h$)")

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def header_homes(root):
    """basename -> set of top-level places (lib/<dir>, apps, tools, ...)."""
    homes = {}
    for top in ("lib", "apps", "tools", "dissectors"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            rel = os.path.relpath(dirpath, root).split(os.sep)
            place = "/".join(rel[:2]) if top == "lib" else top
            for f in files:
                if f.endswith(".h"):
                    homes.setdefault(f, set()).add(place)
    return homes


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..")
    homes = header_homes(root)
    errors = []
    libroot = os.path.join(root, "lib")
    for d in sorted(os.listdir(libroot)):
        path = os.path.join(libroot, d)
        if not os.path.isdir(path):
            continue
        if d not in LAYERS:
            errors.append(f"lib/{d}: not in the layer table of tools/check-layers.py")
            continue
        allowed = {f"lib/{x}" for x in LAYERS[d] + (d,)}
        for _, rel, lines in c_sources(path, root):
            for n, line in enumerate(lines, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                name = m.group(2)
                base = os.path.basename(name)
                if d in CORE and FORBIDDEN.match(name):
                    errors.append(f"{rel}:{n}: core library includes <{name}>")
                    continue
                places = homes.get(base)
                if not places or m.group(1) == "<" and "/" in name and not name.startswith("rk"):
                    continue  # a system or third-party header
                if places & allowed:
                    continue
                errors.append(f"{rel}:{n}: lib/{d} includes {name} from "
                              f"{', '.join(sorted(places))} (allowed: "
                              f"{', '.join(sorted(allowed))})")
    for e in errors:
        print(e)
    print(f"check-layers: {len(errors)} violation(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
