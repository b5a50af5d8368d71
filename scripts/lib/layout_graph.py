"""The include graph of src/ by part, and the rules of src/layout.toml.

Shared by scripts/check-layout.py (the rules, checked in CI) and scripts/layout-diagram.py (the
picture in docs/architecture.md). A part is a folder of src/ named in layout.toml, or a folder of
src/runtime (a service unless layout.toml says otherwise). Headers are included by name (the
build puts every folder with headers on the include path: src/sources.cmake), so an include is
resolved as the compiler does: the including file's folder first, then the one header of that
name in src/.
"""
import fnmatch
import os
import re
import subprocess
import tomllib
from dataclasses import dataclass, field

C_SUFFIXES = (".c", ".h")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


@dataclass
class Part:
    name: str  # "runtime/ble", "glue", "port/host"
    path: str  # folder, relative to src/
    layer: str  # engine, hal, runtime, glue, world, port
    role: str  # runtime parts: core, util, contract, service; else the layer
    owns: str
    uses: list
    declared: bool  # named in layout.toml (not a default service)


@dataclass
class Interface:
    name: str
    why: str
    users: list  # parts or files (relative to src/)
    headers: list  # files, relative to src/


@dataclass
class Edge:
    src: str  # file, relative to src/
    dst: str
    src_part: str
    dst_part: str
    interface: str = ""  # the named interface that allows it, if any


@dataclass
class Layout:
    root: str
    rules: dict
    parts: dict = field(default_factory=dict)  # name -> Part
    interfaces: list = field(default_factory=list)
    files: dict = field(default_factory=dict)  # file (relative to src/) -> part name
    problems: list = field(default_factory=list)  # found while reading the tree
    edges: list = field(default_factory=list)  # includes from one part into another
    private: list = field(default_factory=list)  # (file, header) of a folder-private header outside it


def load(root):
    """Read src/layout.toml and the tree under src/: parts, files and include edges."""
    with open(os.path.join(root, "src", "layout.toml"), "rb") as f:
        rules = tomllib.load(f)
    layout = Layout(root=root, rules=rules)
    service = rules["service"]
    for name, p in rules["parts"].items():
        layout.parts[name] = Part(name=name, path=p.get("path", name), layer=p["layer"],
                                  role=p.get("role", p["layer"]), owns=p.get("owns", ""),
                                  uses=list(p.get("uses", [])), declared=True)
    src = os.path.join(root, "src")
    runtime = os.path.join(src, "runtime")
    for entry in sorted(os.listdir(runtime)):
        if os.path.isdir(os.path.join(runtime, entry)) and f"runtime/{entry}" not in layout.parts:
            layout.parts[f"runtime/{entry}"] = Part(
                name=f"runtime/{entry}", path=f"runtime/{entry}", layer="runtime", role="service",
                owns=readme_title(os.path.join(runtime, entry)), uses=list(service["uses"]),
                declared=False)
    for i in rules.get("interface", []):
        layout.interfaces.append(Interface(name=i["name"], why=i["why"], users=list(i["users"]),
                                           headers=list(i["headers"])))

    # Every C file of src/, by part (the longest part path that holds it).
    by_length = sorted(layout.parts.values(), key=lambda p: -len(p.path))
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames.sort()
        for name in sorted(filenames):
            if not name.endswith(C_SUFFIXES):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name), src)
            part = next((p.name for p in by_length if rel.startswith(p.path + "/")), None)
            if part is None:
                layout.problems.append(f"src/{rel}: in no part of src/layout.toml "
                                       f"(runtime code goes in a folder of src/runtime)")
                continue
            layout.files[rel] = part

    by_name = {}
    for rel in layout.files:
        by_name.setdefault(os.path.basename(rel), []).append(rel)
    for name, where in sorted(by_name.items()):
        if len(where) > 1 and name.endswith(".h"):
            layout.problems.append(f"{name}: {len(where)} headers of that name "
                                   f"({', '.join('src/' + w for w in where)}); headers are "
                                   f"included by name, so names are unique")

    for rel, part in layout.files.items():
        with open(os.path.join(src, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
        for inc in INCLUDE_RE.findall(text):
            dst = resolve(rel, inc, layout.files, by_name)
            if dst is None or dst == rel:
                continue  # a third party's header (duktape.h, zephyr's), or built at build time
            dst_part = layout.files[dst]
            if is_private(dst) and os.path.dirname(dst) != os.path.dirname(rel):
                layout.private.append((rel, dst))
            if dst_part != part:
                layout.edges.append(Edge(src=rel, dst=dst, src_part=part, dst_part=dst_part))
    return layout


def resolve(rel, inc, files, by_name):
    here = os.path.normpath(os.path.join(os.path.dirname(rel), inc))
    if here in files:
        return here
    if "/" in inc:
        return inc if inc in files else None
    where = by_name.get(inc, [])
    return where[0] if len(where) == 1 else None


def is_private(header):
    """A header named *_internal.h is its folder's own: what the folder's files share."""
    return header.endswith("_internal.h")


def readme_title(folder):
    """The first heading of a folder's README.md, after its name ("runtime/ble: ...")."""
    readme = os.path.join(folder, "README.md")
    if not os.path.exists(readme):
        return ""
    for line in open(readme, encoding="utf-8"):
        if line.startswith("# "):
            return line[2:].strip().split(": ", 1)[-1]
    return ""


def matches(pattern, name):
    return fnmatch.fnmatchcase(name, pattern)


def allowed(layout, edge):
    """Whether an edge keeps the rules; names the interface that allows it, if one does."""
    part = layout.parts[edge.src_part]
    if any(matches(u, edge.dst_part) for u in part.uses):
        return True
    for i in layout.interfaces:
        users = any(u == edge.src or matches(u, edge.src_part) for u in i.users)
        if users and edge.dst in i.headers:
            edge.interface = i.name
            return True
    return False


def tracked_files(root):
    """The repository's files (tracked, and new ones not ignored), relative to root."""
    try:
        out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
                             cwd=root, capture_output=True, check=True).stdout
        return sorted(f for f in out.decode().split("\0") if f and os.path.exists(os.path.join(root, f)))
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", "node_modules", "build", "dist"}
        found = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d not in skip)
            found += [os.path.relpath(os.path.join(dirpath, n), root) for n in filenames]
        return sorted(found)


def long_files(layout):
    """Hand-written C and TypeScript files over the limit: [(file, lines)]."""
    size = layout.rules["size"]
    limit = size["max_lines"]
    suffixes = tuple(size["suffixes"])
    found = []
    for rel in tracked_files(layout.root):
        if not rel.endswith(suffixes) or any(matches(p, rel) for p in size["exempt"]):
            continue
        with open(os.path.join(layout.root, rel), "rb") as f:
            lines = f.read().count(b"\n")
        if lines > limit:
            found.append((rel, lines))
    return found
