#!/usr/bin/env python3
"""The picture of src/'s layers and services in docs/architecture.md, made from the tree.

    python3 scripts/layout-diagram.py           write it into docs/architecture.md
    python3 scripts/layout-diagram.py --check   exit 1 when docs/architecture.md is not current

Reads the parts and rules of src/layout.toml and every #include of src/ (scripts/lib/
layout_graph.py, as scripts/check-layout.py does) and writes, between the markers in
docs/architecture.md: a Mermaid flowchart (GitHub draws it) of the layers, with the runtime's core,
utilities, generated contract and services, where an arrow is "includes headers of" and a dashed
arrow a named interface; then tables of what each part owns and may use, and of the named
interfaces. Only what the includes and the rules say goes in, so the picture changes when the
structure does (a new service, a new dependency), not when code inside a file does.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import layout_graph  # noqa: E402

BEGIN = "<!-- layout: begin (made by scripts/layout-diagram.py from src/layout.toml and the includes; do not edit) -->"
END = "<!-- layout: end -->"
DOC = os.path.join("docs", "architecture.md")

# Layers from top to bottom, and how the picture names them.
LAYERS = [("port", "ports"), ("world", "the simulated world"), ("glue", "glue"), ("runtime", "runtime"),
          ("hal", "HAL"), ("engine", "engine layer")]


def node_id(part):
    return part.replace("/", "_")


def node_name(part):
    return part.split("/", 1)[1] if part.startswith(("runtime/", "port/")) else part


def render(layout):
    parts = layout.parts
    services = sorted(n for n, p in parts.items() if p.layer == "runtime" and p.role == "service")
    runtime_others = [n for n in ("runtime/core", "runtime/util", "runtime/generated") if n in parts]
    ports = sorted(n for n, p in parts.items() if p.layer == "port")

    def group(part):
        """The node or subgraph an edge of this part is drawn from or to."""
        p = parts[part]
        if p.layer == "port":
            return "ports"
        if p.layer == "runtime" and p.role == "service":
            return "services"
        return node_id(part)

    def target(src, dst):
        """Edges from outside the runtime into it end at the runtime as a whole."""
        if parts[dst].layer == "runtime" and parts[src].layer != "runtime":
            if parts[src].layer == "glue":
                return node_id(dst) if parts[dst].role != "service" else "services"
            return "runtime"
        return group(dst)

    plain, named = set(), {}
    for edge in layout.edges:
        if not layout_graph.allowed(layout, edge):
            continue
        src = group(edge.src_part)
        if edge.interface:
            # Drawn between the two parts; an interface into several services ends at the
            # services as a whole.
            i = next(i for i in layout.interfaces if i.name == edge.interface)
            owners = {layout.files[h] for h in i.headers if h in layout.files}
            dst = node_id(edge.dst_part) if len(owners) == 1 else "services"
            named[(node_id(edge.src_part), dst)] = edge.interface
        else:
            dst = target(edge.src_part, edge.dst_part)
            if src != dst:
                plain.add((src, dst))

    out = ["```mermaid", "flowchart TD"]
    out.append('  subgraph ports["ports: src/port"]')
    out += [f'    {node_id(p)}["{node_name(p)}"]' for p in ports]
    out.append("  end")
    out.append('  world["world: src/world"]')
    out.append('  glue["glue: src/glue"]')
    out.append('  subgraph runtime["runtime: src/runtime"]')
    out.append('    subgraph services["services"]')
    out += [f'      {node_id(s)}["{node_name(s)}"]' for s in services]
    out.append("    end")
    out += [f'    {node_id(p)}["{node_name(p)}"]' for p in runtime_others]
    out.append("  end")
    out.append('  hal["HAL: src/hal"]')
    out.append('  engine["engine layer: src/engine"]')
    for src, dst in sorted(plain):
        out.append(f"  {src} --> {dst}")
    for (src, dst), name in sorted(named.items()):
        out.append(f"  {src} -.->|{name}| {dst}")
    out.append("```")

    def uses(p):
        if not p.uses:
            return "nothing of the project"
        return ", ".join(f"`{u}`" for u in p.uses)

    out += ["", "| Part | Owns | May include |", "|---|---|---|"]
    order = {layer: k for k, (layer, _) in enumerate(LAYERS)}
    role_order = {"core": 0, "util": 1, "contract": 2, "service": 3}
    for name in sorted(parts, key=lambda n: (order[parts[n].layer], role_order.get(parts[n].role, 0), n)):
        p = parts[name]
        folder = f"`src/{p.path}/`"
        kind = " (service)" if p.layer == "runtime" and p.role == "service" else ""
        out.append(f"| {folder}{kind} | {p.owns} | {uses(p)} |")
    out += ["", "| Named interface | Used by | Headers | Why |", "|---|---|---|---|"]
    for i in layout.interfaces:
        why = " ".join(i.why.split())
        users = ", ".join(f"`{u}`" for u in i.users)
        headers = ", ".join(f"`{h.split('/', 1)[1]}`" for h in i.headers)
        out.append(f"| {i.name} | {users} | {headers} | {why} |")
    return "\n".join(out) + "\n"


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    layout = layout_graph.load(root)
    doc_path = os.path.join(root, DOC)
    doc = open(doc_path, encoding="utf-8").read()
    if BEGIN not in doc or END not in doc:
        print(f"layout-diagram: {DOC} has no markers ({BEGIN} ... {END})", file=sys.stderr)
        return 2
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    new = head + BEGIN + "\n" + render(layout) + END + tail
    if "--check" in argv:
        if new != doc:
            print(f"layout-diagram: the picture in {DOC} is not the tree's: run python3 scripts/layout-diagram.py",
                  file=sys.stderr)
            return 1
        print(f"layout-diagram: {DOC} is current")
        return 0
    if new != doc:
        open(doc_path, "w", encoding="utf-8").write(new)
        print(f"layout-diagram: wrote {DOC}")
    else:
        print(f"layout-diagram: {DOC} was current")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
