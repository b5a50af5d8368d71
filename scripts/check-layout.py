#!/usr/bin/env python3
"""Check the layout of src/ against src/layout.toml, and the size of hand-written files.

    python3 scripts/check-layout.py [--quiet] [--root DIR]

Reads every #include "..." of the C files under src/ and fails on:
  - an include from one part into another that the rules do not allow: the including part's
    `uses`, or a named [[interface]] (a service reaching into another service, the core into a
    service, the runtime into the glue or a port, ...);
  - a header named *_internal.h included from outside its folder (it is what the folder's files
    share, for them alone);
  - a C file of the runtime outside the folders of src/runtime, a runtime folder without a
    README.md, two headers of the same name (headers are included by name);
  - a hand-written C or TypeScript file over [size] max_lines (generated files and tests are
    exempt).

Prints what it found: the parts with their files and lines, the includes between them, the
named interfaces in use, the largest files, then every problem. Exit status 1 when there is one.
"""
import os
import sys
from collections import Counter, defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import layout_graph  # noqa: E402


def main(argv):
    quiet = "--quiet" in argv
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if "--root" in argv:
        root = os.path.abspath(argv[argv.index("--root") + 1])
    layout = layout_graph.load(root)
    problems = list(layout.problems)
    say = (lambda *a: None) if quiet else print

    # The parts, with their size.
    files = defaultdict(list)
    for rel, part in layout.files.items():
        files[part].append(rel)
    src = os.path.join(root, "src")
    say("parts of src/ (files, lines):")
    for name in sorted(layout.parts, key=lambda n: (layout.parts[n].layer, n)):
        part = layout.parts[name]
        lines = sum(open(os.path.join(src, f), "rb").read().count(b"\n") for f in files[name])
        kind = part.role if part.layer == "runtime" else part.layer
        say(f"  {name:<20} {kind:<8} {len(files[name]):>3} files {lines:>6} lines  {part.owns}")
        if part.layer == "runtime" and part.role != "contract":
            if not os.path.exists(os.path.join(src, part.path, "README.md")):
                problems.append(f"src/{part.path}: no README.md saying what it owns and may use")

    # The includes between parts.
    pairs = Counter()
    forbidden = []
    for edge in layout.edges:
        if layout_graph.allowed(layout, edge):
            pairs[(edge.src_part, edge.dst_part, edge.interface)] += 1
        else:
            forbidden.append(edge)
    say("\nincludes between parts (count):")
    for (a, b, via), n in sorted(pairs.items()):
        say(f"  {a:<20} -> {b:<20} {n:>4}" + (f"   through the interface '{via}'" if via else ""))
    used = {e.interface for e in layout.edges if e.interface}
    for i in layout.interfaces:
        if i.name not in used:
            say(f"  (the interface '{i.name}' is not used by any include)")
    for rel, dst in layout.private:
        problems.append(f"src/{rel} includes {os.path.basename(dst)}: a *_internal.h header is what "
                        f"the files of src/{os.path.dirname(dst)} share, for them alone")
    for edge in forbidden:
        problems.append(f"src/{edge.src} includes {os.path.basename(edge.dst)} (src/{edge.dst}): "
                        f"{edge.src_part} may not use {edge.dst_part} "
                        f"(src/layout.toml: its uses, or a named [[interface]])")

    # Sizes.
    limit = layout.rules["size"]["max_lines"]
    for rel, lines in layout_graph.long_files(layout):
        problems.append(f"{rel}: {lines} lines, over {limit}: split it along its seams")
    largest = sorted(((n, f) for f, n in sizes(layout)), reverse=True)[:5]
    say(f"\nlargest hand-written files (limit {limit} lines):")
    for n, f in largest:
        say(f"  {n:>5} {f}")

    if problems:
        print(f"\ncheck-layout: {len(problems)} problem(s):", file=sys.stderr)
        for p in problems:
            print(f"  {p}", file=sys.stderr)
        print("(the rules: src/layout.toml; generated files and tests have no size limit)", file=sys.stderr)
        return 1
    say(f"\ncheck-layout: {len(layout.files)} C files in {len(layout.parts)} parts, "
        f"{len(layout.edges)} includes between parts, all within the rules; no file over {limit} lines")
    return 0


def sizes(layout):
    size = layout.rules["size"]
    for rel in layout_graph.tracked_files(layout.root):
        if rel.endswith(tuple(size["suffixes"])) and not any(
                layout_graph.matches(p, rel) for p in size["exempt"]):
            with open(os.path.join(layout.root, rel), "rb") as f:
                yield rel, f.read().count(b"\n")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
