#!/usr/bin/env python3
"""Flash and RAM of a Zephyr firmware image by component, from the linker's map file, and the
check of the image against the room the board's budget documents.

Usage: firmware-sizes.py NAME zephyr.map [--dts zephyr.dts] [--budget budget.json --board BOARD]

Prints one figure a line (bench/ convention), `firmware.<NAME>.<what>: N bytes`:
  flash.<component>, ram.<component>   what each part of the image takes
  flash.total, ram.total               the image
  flash.region, ram.region             the room the image has: the code partition MCUboot would
                                       run it from (image-0, slot0_partition, in --dts), else the
                                       link's flash region; the link's RAM region
  flash.free, ram.free                 what is left of them

Each input section the link kept is charged to the component its object file belongs to:
  engine    the JavaScript engine (jerry-core, or Duktape, and its backend src/engine)
  runtime   the portable runtime (src/runtime)
  glue      the API bindings (src/glue, generated and hand-written)
  port      the Zephyr port (src/port/zephyr)
  world     the simulated world's models (src/world; test boards only)
  bluetooth Zephyr's Bluetooth host and controller
  kernel    Zephyr's kernel, architecture, SoC and board code
  drivers   Zephyr's device drivers and the vendor HAL (nrfx)
  os        the rest of Zephyr: logging, formatting, flash map, utilities
  crypto    Mbed TLS, TinyCrypt
  libc      the C library (picolibc), libgcc
RAM counts initialised data, zeroed data and no-init areas (stacks are in the kernel's share,
the JavaScript heap in the engine's). Flash counts code, read-only data and the initial values of
initialised data.

With --budget, the board's entry of budget.json gives the least room the image must leave:
{"<board>": {"flash_min_free": N, "ram_min_free": N, "why": "..."}}. Less room than that exits
with status 1, saying by how much.
"""
import json
import re
import sys

FLASH_REGIONS = ("FLASH",)
RAM_REGIONS = ("RAM", "SRAM")


def component(obj: str) -> str:
    o = obj.replace("\\", "/")
    if "libbeacon_engine_" in o or "jerry-core" in o or "duk_" in o or "/src/engine/" in o:
        return "engine"
    m = re.search(r"libapp\.a\((\w+)\.c\.obj\)", o)
    if m:
        name = m.group(1)
        if name.startswith(("api_", "glue_")):
            return "glue"
        if name.startswith(("world_", "sim_flash")):
            return "world"
        if name.startswith(("rt_", "rt")) and not name.endswith("_zephyr"):
            return "runtime"
        return "port"
    if "bluetooth" in o or "libsubsys__bluetooth" in o or "/bt_" in o:
        return "bluetooth"
    if "mbedtls" in o or "tinycrypt" in o or "psa" in o:
        return "crypto"
    if any(k in o for k in ("libkernel.a", "libarch__", "libsoc__", "libboards__", "isr_tables",
                            "libisr_tables", "offsets.c")):
        return "kernel"
    if "libdrivers__" in o or "hal_nordic" in o or "nrfx" in o:
        return "drivers"
    if "picolibc" in o or "libc.a" in o or "libgcc" in o or "lib__libc" in o or "libm.a" in o:
        return "libc"
    return "os"


def parse(map_path: str):
    text = open(map_path, encoding="utf-8", errors="replace").read()
    regions = {}
    mem = re.search(r"Memory Configuration\s*\n\s*\nName.*\n((?:\S+\s+0x[0-9a-f]+\s+0x[0-9a-f]+.*\n)+)", text)
    if mem:
        for line in mem.group(1).splitlines():
            f = line.split()
            if len(f) >= 3 and f[0] != "*default*":
                regions[f[0]] = (int(f[1], 16), int(f[2], 16))
    body = text[text.find("Linker script and memory map"):]
    flash, ram = {}, {}
    out_section = ""
    pending = None
    pat = re.compile(r"^ (\S+)?\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*)$")
    for line in body.splitlines():
        top = re.match(r"^(\.?[A-Za-z_][\w.]*)\s", line + " ")
        if top and not line.startswith(" "):
            out_section = top.group(1)
            continue
        if re.match(r"^ [.\w][^\s]*$", line):
            pending = line.strip()
            continue
        m = pat.match(line)
        if not m:
            pending = None
            continue
        name = m.group(1) or pending
        pending = None
        if name is None or name.startswith("*"):
            continue
        # Debugging information and notes are not loaded on the device.
        if out_section.startswith((".debug", ".comment", ".ARM.attributes", ".last_section", ".stab", ".note")):
            continue
        addr, size, obj = int(m.group(2), 16), int(m.group(3), 16), m.group(4).strip()
        if size == 0 or obj.startswith("load address"):
            continue
        comp = component(obj)

        def region_of(a):
            for rname, (origin, length) in regions.items():
                if origin <= a < origin + length:
                    return rname
            return None

        r = region_of(addr)
        if r is None:
            continue
        zeroed = name.startswith((".bss", ".noinit", "COMMON")) or out_section in ("bss", "noinit", ".bss", ".noinit")
        if r in FLASH_REGIONS:
            flash[comp] = flash.get(comp, 0) + size
        elif r in RAM_REGIONS:
            ram[comp] = ram.get(comp, 0) + size
            if not zeroed:
                flash[comp] = flash.get(comp, 0) + size
    return regions, flash, ram


def main() -> int:
    args = sys.argv[1:]
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    name, map_path = args[0], args[1]
    budget_path = args[args.index("--budget") + 1] if "--budget" in args else None
    board = args[args.index("--board") + 1] if "--board" in args else None
    regions, flash, ram = parse(map_path)
    flash_limit = None
    budgeted = bool(budget_path and board and board in json.load(open(budget_path)))
    # A device's image must fit the slot MCUboot runs it from; a test board's has no such slot.
    if "--dts" in args and budgeted:
        dts = open(args[args.index("--dts") + 1]).read()
        slot0 = re.search(r"slot0_partition: partition@[0-9a-f]+ \{[^}]*?reg = < 0x([0-9a-f]+) 0x([0-9a-f]+) >", dts)
        if slot0:
            flash_limit = int(slot0.group(2), 16)
    prefix = f"firmware.{name}"
    for comp in sorted(flash, key=lambda c: -flash[c]):
        print(f"{prefix}.flash.{comp}: {flash[comp]} bytes")
    for comp in sorted(ram, key=lambda c: -ram[c]):
        print(f"{prefix}.ram.{comp}: {ram[comp]} bytes")
    flash_total, ram_total = sum(flash.values()), sum(ram.values())
    flash_region = flash_limit or next((regions[r][1] for r in FLASH_REGIONS if r in regions), 0)
    ram_region = next((regions[r][1] for r in RAM_REGIONS if r in regions), 0)
    print(f"{prefix}.flash.total: {flash_total} bytes")
    print(f"{prefix}.ram.total: {ram_total} bytes")
    print(f"{prefix}.flash.region: {flash_region} bytes")
    print(f"{prefix}.ram.region: {ram_region} bytes")
    print(f"{prefix}.flash.free: {flash_region - flash_total} bytes")
    print(f"{prefix}.ram.free: {ram_region - ram_total} bytes")
    if budget_path and board:
        entry = json.load(open(budget_path)).get(board)
        if entry is None:
            return 0
        short = []
        for what, free, need in (("flash", flash_region - flash_total, entry.get("flash_min_free", 0)),
                                 ("RAM", ram_region - ram_total, entry.get("ram_min_free", 0))):
            if free < need:
                short.append(f"{what}: {free} bytes free, the budget asks for {need} ({need - free} short)")
        if short:
            print(f"firmware-sizes: {board} is over its budget ({entry.get('why', '')}): " + "; ".join(short),
                  file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
