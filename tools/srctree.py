"""The C sources of the tree, for the scripts under tools/ that read them."""
import os


def c_sources(top, root):
    """Yield (path, relative path from root, lines) of every .c and .h
    file under top: directories in os.walk order, names sorted, lines
    without their newline (undecodable bytes replaced)."""
    for base, _, files in os.walk(top):
        for fn in sorted(files):
            if not fn.endswith((".c", ".h")):
                continue
            path = os.path.join(base, fn)
            with open(path, encoding="utf-8", errors="replace") as f:
                lines = f.read().split("\n")
            yield path, os.path.relpath(path, root), lines
