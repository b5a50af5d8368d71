# The flash and RAM budget of the firmware image, per engine (bytes). docs/budget.md
# explains each figure; beacon-qemu.ld.in turns them into the link's memory regions, so an image
# over budget does not link. Keep the two in step.
#
# nRF52840 (mps2-an386): 1 MB flash = MCUboot 48 KB + image slot + app store 128 KB (two 64 KB
# slots, rt_app_store.h) + storage 32 KB (the update's secondary slot on the board's external
# QSPI flash); the image slot holds Zephyr's
# kernel and Bluetooth stack (reserved: 224 KB) and what this image carries. 256 KB RAM, of which
# 120 KB are reserved for Zephyr's kernel, the Bluetooth controller and host and their buffers.
# (The nRF9160's figures are the Zephyr firmware's, measured on mps2/an521: docs/budget.md.)

set(BUDGET_MCUBOOT 49152)
# The app store: two slots of 64 KB, each holding the largest package an upload takes (65,504
# bytes) after its 32-byte header; the installed app and the staging slot swap roles at each
# install, and both are run from in place, so both are in the internal flash.
set(BUDGET_APP_SLOT 65536)
math(EXPR BUDGET_APP_STORE "2 * ${BUDGET_APP_SLOT}")
set(BUDGET_STORAGE 32768)
# The harness (the simulated world and the main that loads the app, which the device does not
# have) lives in the board's 16 MB PSRAM, apart from the device's RAM and outside the budget:
# 4 MB of it for its statics and heap.
set(QEMU_HARNESS_RAM 4194304)
set(QEMU_HARNESS_ORIGIN 0x21000000)
set(BUDGET_DEVICE_FLASH 1048576)
set(BUDGET_DEVICE_RAM 262144)
set(BUDGET_SYSTEM_FLASH 229376)   # Zephyr kernel + Bluetooth LE stack
# Zephyr's own RAM on the nRF52840 measures 86,834 bytes with Bluetooth, the upload service, MCUmgr
# and the 40 KB main stack (docs/budget.md, the Zephyr firmware's table): the reservation keeps
# 120 KB, a third over it, and gives the image the 8 KB the record store's RAM index of 1,024
# entries takes (a month of hourly events, docs/storage.md).
set(BUDGET_SYSTEM_RAM 122880)

# What the image may take: the device less the bootloader, the app store, the storage and the
# system.
math(EXPR BUDGET_IMAGE_FLASH "${BUDGET_DEVICE_FLASH} - ${BUDGET_MCUBOOT} - ${BUDGET_APP_STORE} - ${BUDGET_STORAGE} - ${BUDGET_SYSTEM_FLASH}")

# RAM of the image: data, bss (JerryScript's static heap is there), the device's state
# (rt_device_t, reserved at its size: the world keeps it in its model of the device), the malloc
# arena (Duktape's heap is there), the main stack. The harness (the simulated world and the main
# that loads the app) is not the device's: its statics and heap are in QEMU_HARNESS_RAM, outside
# this budget (qemu_harness.h).
#
# Duktape allocates from malloc: its heap is the arena. Its built-ins and the installed API take
# about 150 KB of it before the app's first line on this 32-bit core (malloc's and the engine
# backend's block headers included; the issue's by-hand link failed at 96 and 112 KB), so the
# build refuses an arena under 160 KB. The app sees the simulator's modelled heap
# (CONFIG_BEACON_JS_HEAP_SIZE, eng_duk_core.c), so app.getMemStats() agrees with the simulator;
# giving an app that much room takes far more arena than the model counts (preview-memstats:
# 58 KB in the model, 362 KB of arena, most of it per-allocation headers of small strings), so
# the arena is 448 KB. Duktape therefore does not fit the nRF52840's RAM at all: it is the
# simulator's and CI's engine, and its RAM budget is the emulated board's (512 KB of its 4 MB),
# which still catches growth.
#
# JerryScript's heap is a static array of CONFIG_BEACON_JS_HEAP_SIZE in bss: 64 KB, since 96 KB
# overflows the 128 KB budget (docs/budget.md). malloc serves the engine's 176-byte context, the
# runtime's transient buffers (toHex, a long print before 0.2.6) and the C library's stdio: 8 KB,
# as newlib's malloc grows its arena a 4 KB page at a time after the first block.
set(BUDGET_STACK 16384)
if(BEACON_ENGINE STREQUAL "duktape")
  if(NOT DEFINED BEACON_QEMU_JS_HEAP)
    set(BEACON_QEMU_JS_HEAP 458752)
  endif()
  set(BEACON_QEMU_JS_HEAP_MIN 163840)
  set(BUDGET_MALLOC ${BEACON_QEMU_JS_HEAP})
  # 512 KB: the arena, the stack, the device's state and the runtime's statics (its buffers are
  # one shared 17 KB scratch, rt_scratch.h). The JerryScript image below is the one held to the
  # device's RAM.
  set(BUDGET_IMAGE_RAM 524288)
else()
  if(NOT DEFINED BEACON_QEMU_JS_HEAP)
    set(BEACON_QEMU_JS_HEAP 65536)
  endif()
  set(BEACON_QEMU_JS_HEAP_MIN 32768)
  set(BUDGET_MALLOC 8192)
  math(EXPR BUDGET_IMAGE_RAM "${BUDGET_DEVICE_RAM} - ${BUDGET_SYSTEM_RAM}")
endif()
