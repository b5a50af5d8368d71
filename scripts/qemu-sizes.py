#!/usr/bin/env python3
"""Flash and RAM of the QEMU firmware image by component, from the linker's map file.

Usage: qemu-sizes.py ENGINE beacon-qemu.map budget.txt. Prints `qemu.<engine>.<what>: N bytes`.
Each input section the link kept is charged to the library it came from: the engine, the
runtime, the generated glue (src/glue/generated and src/runtime/generated's api_* tables count as
glue), the hand-written glue, the world (the simulated hardware in place of Zephyr's drivers), the
port, and the C library (newlib, libm, libgcc, semihosting). The harness (the simulated world
and the main that loads the app, which the device does not have) has its RAM in a region of its
own, outside the device's budget: printed apart as ram.harness_*, never in ram.total. The
device's own state (rt_device_t), which the world keeps in the harness's heap, is reserved in the
device's RAM at its size: ram.device_state.
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
out_section = ""
pat = re.compile(r"^\s*(\S+)?\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S+)$")
for line in open(map_path):
    if line.startswith("Linker script and memory map"):
        in_map = True
        continue
    if not in_map or line.startswith("OUTPUT("):
        continue
    stripped = line.rstrip("\n")
    out = re.match(r"^(\.\S+)", stripped)
    if out:
        out_section = out.group(1)
        continue
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
    if out_section.startswith(".harness"):
        if name.startswith(RAM_ZERO_SECTIONS):
            sizes[("harness", "bss")] = sizes.get(("harness", "bss"), 0) + size
        continue
    if name.startswith(".device_state"):
        sizes[("device_state", "bss")] = sizes.get(("device_state", "bss"), 0) + size
        continue
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
ram_total += sizes.get(("device_state", "bss"), 0)
print(f"qemu.{engine}.ram.device_state: {sizes.get(('device_state', 'bss'), 0)} bytes")
arena = int(budget["malloc"])
stack = int(budget["stack"])
print(f"qemu.{engine}.ram.malloc_arena: {arena} bytes")
print(f"qemu.{engine}.ram.stack: {stack} bytes")
print(f"qemu.{engine}.flash.total: {flash_total} bytes")
print(f"qemu.{engine}.flash.budget: {budget['image_flash']} bytes")
print(f"qemu.{engine}.ram.total: {ram_total + arena + stack} bytes")
print(f"qemu.{engine}.ram.budget: {budget['image_ram']} bytes")
# The harness's region, outside the budget: its statics, and the rest of the region its heap.
if "harness_ram" in budget:
    harness_static = sizes.get(("harness", "bss"), 0)
    print(f"qemu.{engine}.ram.harness_statics: {harness_static} bytes")
    print(f"qemu.{engine}.ram.harness_region: {budget['harness_ram']} bytes")
