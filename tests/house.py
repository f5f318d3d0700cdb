#!/usr/bin/env python3
"""house.py SRCDIR: the house rules of src/ that a reader can check (docs/architecture.md).

- Layers: a file includes headers of its own layer or of the layers below it (the table
  below), never one above; the core includes nothing outside src/core (not even the
  public header); only src/lib includes the public header include/contactd.h.
- No two modules include each other's headers, directly or through others (a module is
  a .c/.h pair; its private headers, NAME_int.h or NAME_kernel.h, are part of it).
- Knobs live with their layer: no global knob file.
- No file in src/ is over 1,000 lines.
Prints every breach and exits 1 if there is one.
"""
import os
import re
import sys

# the layers each layer may include (itself included)
ALLOWED = {
    "base": {"base"},
    "core": {"core"},
    "fit": {"base", "core", "fit"},
    "model": {"base", "core", "model"},
    "store": {"base", "store"},
    "service": {"base", "core", "model", "service"},
    "calib": {"base", "core", "fit", "calib"},
    "http": {"base", "core", "fit", "model", "store", "service", "calib", "http"},
    "cli": {"base", "core", "model", "service", "cli"},
    "lib": {"base", "core", "model", "service", "lib"},
}
MAX_LINES = 1000
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def module_of(layer, name):
    stem = os.path.splitext(name)[0]
    for private in ("_int", "_kernel"):
        if stem.endswith(private):
            stem = stem[: -len(private)]
    return layer + "/" + stem


def main(srcdir):
    src = os.path.join(srcdir, "src")
    breaches = []
    edges = {}
    for layer in sorted(os.listdir(src)):
        folder = os.path.join(src, layer)
        if not os.path.isdir(folder):
            if layer.endswith((".c", ".h")):
                breaches.append("src/%s: a file outside every layer" % layer)
            continue
        for root, _, files in os.walk(folder):
            for name in sorted(files):
                path = os.path.join(root, name)
                rel = os.path.relpath(path, srcdir)
                with open(path, errors="replace") as f:
                    text = f.read()
                if text.count("\n") > MAX_LINES:
                    breaches.append("%s: %d lines, over %d" % (rel, text.count("\n"), MAX_LINES))
                if not name.endswith((".c", ".h")) or layer not in ALLOWED:
                    continue
                me = module_of(layer, name)
                for inc in INCLUDE.findall(text):
                    if inc == "config.h":
                        continue
                    if inc == "contactd.h":
                        if layer != "lib":
                            breaches.append("%s includes the public header" % rel)
                        continue
                    if "/" not in inc:
                        breaches.append("%s includes \"%s\", in no layer" % (rel, inc))
                        continue
                    other = inc.split("/")[0]
                    if other not in ALLOWED[layer]:
                        breaches.append("%s (%s) includes %s, which it may not" % (rel, layer, inc))
                    them = module_of(other, os.path.basename(inc))
                    if them != me:
                        edges.setdefault(me, set()).add(them)
    # modules that reach themselves: a cycle, two-way or longer
    for start in sorted(edges):
        seen, stack = set(), [(start, [start])]
        while stack:
            node, trail = stack.pop()
            for nxt in sorted(edges.get(node, ())):
                if nxt == start:
                    breaches.append("modules include each other: %s" % " -> ".join(trail + [start]))
                    stack = []
                    break
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, trail + [nxt]))
    for b in breaches:
        print(b)
    print("house: %d module(s), %d breach(es)" % (len(edges), len(breaches)))
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
