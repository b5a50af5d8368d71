#!/usr/bin/env python3
"""Flash and RAM of the QEMU firmware image by component, from the linker's map file.

Usage: qemu-sizes.py ENGINE beacon-qemu.map budget.txt. Prints `qemu.<engine>.<what>: N bytes`.
Each input section the link kept is charged to the library it came from: the engine, the
runtime, the generated glue (src/glue/generated and src/runtime/generated's api_* tables count as
glue), the hand-written glue, the world (the simulated hardware in place of Zephyr's drivers), the
port, and the C library (newlib, libm, libgcc, semihosting).
"""
import re
import sys

engine, map_path, budget_path = sys.argv[1:4]
budget = dict(line.split(": ", 1) for line in open(budget_path).read().splitlines() if ": " in line)

FLASH_SECTIONS = (".text", ".rodata", ".ARM.ex", ".vectors", ".init", ".fini")
RAM_INIT_SECTIONS = (".data",)
RAM_ZERO_SECTIONS = (".bss", "COMMON", ".noinit")


def component(obj: str) -> str:
    if "libbeacon_engine_" in obj:
        return "engine"
    if "generated" in obj or "api_glue" in obj or "api_types" in obj:
        return "glue_generated"
    for part in ("runtime", "glue", "world", "port"):
        if f"libbeacon_{part}.a" in obj:
            return part
    if "qemu_main" in obj:
        return "port"
    return "libc"


sizes = {}
in_map = False
pending = None
pat = re.compile(r"^\s*(\S+)?\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S+)$")
for line in open(map_path):
    if line.startswith("Linker script and memory map"):
        in_map = True
        continue
    if not in_map or line.startswith("OUTPUT("):
        continue
    stripped = line.rstrip("\n")
    # A long section name sits alone on its line; its address, size and object follow.
    if re.match(r"^ \.\S+$", stripped) or re.match(r"^ COMMON$", stripped):
        pending = stripped.strip()
        continue
    m = pat.match(stripped)
    if not m or not stripped.startswith(" "):
        pending = None
        continue
    name = m.group(1) or pending
    pending = None
    if name is None or not name.startswith((".", "COMMON")):
        continue
    size = int(m.group(3), 16)
    if size == 0 or int(m.group(2), 16) == 0 and not name.startswith((".text", ".vectors")):
        pass
    obj = m.group(4)
    comp = component(obj)
    if name.startswith(FLASH_SECTIONS):
        kind = "flash"
    elif name.startswith(RAM_INIT_SECTIONS):
        kind = "data"
    elif name.startswith(RAM_ZERO_SECTIONS):
        kind = "bss"
    else:
        continue
    sizes[(comp, kind)] = sizes.get((comp, kind), 0) + size

comps = ["engine", "runtime", "glue_generated", "glue", "world", "port", "libc"]
flash_total = ram_total = 0
for c in comps:
    flash = sizes.get((c, "flash"), 0) + sizes.get((c, "data"), 0)
    ram = sizes.get((c, "data"), 0) + sizes.get((c, "bss"), 0)
    flash_total += flash
    ram_total += ram
    print(f"qemu.{engine}.flash.{c}: {flash} bytes")
    print(f"qemu.{engine}.ram.{c}: {ram} bytes")
arena = int(budget["malloc"])
stack = int(budget["stack"])
print(f"qemu.{engine}.ram.malloc_arena: {arena} bytes")
print(f"qemu.{engine}.ram.stack: {stack} bytes")
print(f"qemu.{engine}.flash.total: {flash_total} bytes")
print(f"qemu.{engine}.flash.budget: {budget['image_flash']} bytes")
print(f"qemu.{engine}.ram.total: {ram_total + arena + stack} bytes")
print(f"qemu.{engine}.ram.budget: {budget['image_ram']} bytes")
