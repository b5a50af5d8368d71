# JerryScript backend of engine.h: the engine core compiled from an external source tree plus
# this directory's backend and port functions, as the static library beacon_engine_jerryscript.
#
# The source tree is never part of this repository: point JERRYSCRIPT_DIR (CMake or environment
# variable) at a JerryScript 3.0 tree. Under Zephyr the tree comes from the west manifest.
#
# The configuration below is deliberate. Bytecode (snapshots) only runs on an engine built with
# the same configuration, and eng_config_hash() covers it, so changing a switch here invalidates
# every app package built before.

if(NOT JERRYSCRIPT_DIR AND DEFINED ENV{JERRYSCRIPT_DIR})
  set(JERRYSCRIPT_DIR "$ENV{JERRYSCRIPT_DIR}")
endif()
if(NOT EXISTS "${JERRYSCRIPT_DIR}/jerry-core/include/jerryscript.h")
  message(FATAL_ERROR "JERRYSCRIPT_DIR (${JERRYSCRIPT_DIR}) is not a JerryScript source tree: "
                      "jerry-core/include/jerryscript.h is missing")
endif()
file(STRINGS "${JERRYSCRIPT_DIR}/jerry-core/include/jerryscript.h" _beacon_jerry_major
     REGEX "#define JERRY_API_MAJOR_VERSION ")
if(NOT _beacon_jerry_major MATCHES "JERRY_API_MAJOR_VERSION 3$")
  message(FATAL_ERROR "The JerryScript backend needs JerryScript 3.x (found: ${_beacon_jerry_major})")
endif()

# The JS heap is a static array inside the engine; Kconfig (device) or rt_config.h's default
# (host) gives its size in bytes, JerryScript wants kilobytes.
if(DEFINED CONFIG_BEACON_JS_HEAP_SIZE)
  set(_beacon_js_heap_bytes ${CONFIG_BEACON_JS_HEAP_SIZE})
else()
  set(_beacon_js_heap_bytes 98304)
endif()
math(EXPR BEACON_JERRY_HEAP_KB "(${_beacon_js_heap_bytes} + 1023) / 1024")
if(BEACON_JERRY_HEAP_KB GREATER 512)
  message(FATAL_ERROR "JS heap of ${BEACON_JERRY_HEAP_KB} KB: JerryScript's 16-bit compressed "
                      "pointers address at most 512 KB")
endif()

# Native stack JavaScript may use before a RangeError instead of overflowing the thread stack.
# JerryScript recurses on the C stack for every JavaScript call (a few hundred bytes a call,
# twice that through a native function; 32 KB is about 90 plain calls on x86-64), so this bounds
# the recursion depth apps get. The JS thread's stack must be larger than this plus what the
# runtime and the port use below the engine.
if(DEFINED CONFIG_BEACON_JS_STACK_LIMIT_KB)
  set(_beacon_jerry_stack_limit ${CONFIG_BEACON_JS_STACK_LIMIT_KB})
else()
  set(BEACON_JERRY_STACK_LIMIT_KB 32 CACHE STRING "JerryScript native stack limit in KB")
  set(_beacon_jerry_stack_limit ${BEACON_JERRY_STACK_LIMIT_KB})
  # Host builds whose frames are much larger than the optimised ones get proportionally more,
  # so they allow the same depth (the host stack is megabytes).
  if(BEACON_SANITIZE)
    math(EXPR _beacon_jerry_stack_limit "${_beacon_jerry_stack_limit} * 8")
  endif()
  math(EXPR _beacon_jerry_stack_debug "${_beacon_jerry_stack_limit} * 2")
  set(_beacon_jerry_stack_limit
      "$<IF:$<CONFIG:Debug>,${_beacon_jerry_stack_debug},${_beacon_jerry_stack_limit}>")
endif()

if(TARGET zephyr_interface OR BEACON_BARE_METAL)
  set(_beacon_jerry_external_context 0)
else()
  set(_beacon_jerry_external_context 1)
endif()

set(BEACON_JERRY_DEFINES
  # ES.next profile minus what micro-apps cannot use (the language level is ES5.1 plus a few
  # ES2015 built-ins, see the runtime API spec). Promise, ArrayBuffer/typed arrays, DataView and
  # Map/Set are needed. JerryScript 3.0 does not compile with WeakRef, realms or Atomics switched
  # off (and SharedArrayBuffer cannot be off while Atomics is on), so those stay on too.
  JERRY_BUILTINS=1
  JERRY_BUILTIN_BIGINT=0
  JERRY_BUILTIN_PROXY=0
  JERRY_BUILTIN_REFLECT=0
  JERRY_BUILTIN_GLOBAL_THIS=0
  JERRY_MODULE_SYSTEM=0
  JERRY_BUILTIN_WEAKREF=1
  JERRY_BUILTIN_REALMS=1
  JERRY_BUILTIN_SHAREDARRAYBUFFER=1
  JERRY_BUILTIN_ATOMICS=1
  # Bytecode is made on the host (snapshot save) and run on the device (snapshot exec).
  JERRY_SNAPSHOT_SAVE=1
  JERRY_SNAPSHOT_EXEC=1
  # Execution-time limit (jerry_halt_handler) and native stack limit (RangeError, no crash).
  JERRY_VM_HALT=1
  JERRY_STACK_LIMIT=${_beacon_jerry_stack_limit}
  # Readable error messages, and file:line for code parsed by this engine (eng_eval); snapshots
  # carry no line information.
  JERRY_ERROR_MESSAGES=1
  JERRY_LINE_INFO=1
  # app.memory statistics (used/peak) need the heap counters.
  JERRY_MEM_STATS=1
  # Promise events: how unhandled rejections are found and reported.
  JERRY_PROMISE_CALLBACK=1
  # Static heap (JERRY_GLOBAL_HEAP_SIZE, set per library below) with 16-bit compressed
  # pointers (heaps up to 512 KB).
  JERRY_CPOINTER_32_BIT=0
  JERRY_SYSTEM_ALLOCATOR=0
  # The host simulator runs many devices in one process, each with its own engine instance:
  # there the engine's context (and heap) is allocated per instance. The device has one, in
  # static memory (no indirection on every context access). The snapshot format is the same.
  JERRY_EXTERNAL_CONTEXT=${_beacon_jerry_external_context}
  JERRY_NUMBER_TYPE_FLOAT64=1
  JERRY_FUNCTION_TO_STRING=0
  JERRY_DEBUGGER=0
  JERRY_LOGGING=0
)

file(GLOB_RECURSE BEACON_JERRY_CORE_SOURCES CONFIGURE_DEPENDS "${JERRYSCRIPT_DIR}/jerry-core/*.c")
# Only these two files depend on the heap size (the static heap and its allocator), so the
# package tool's larger-heap variant shares every other object with the device build.
set(BEACON_JERRY_HEAP_SOURCES
  "${JERRYSCRIPT_DIR}/jerry-core/jcontext/jcontext.c"
  "${JERRYSCRIPT_DIR}/jerry-core/jmem/jmem-heap.c")
list(REMOVE_ITEM BEACON_JERRY_CORE_SOURCES ${BEACON_JERRY_HEAP_SOURCES})

set(BEACON_JERRY_PRIVATE_INCLUDES
  "${JERRYSCRIPT_DIR}/jerry-core"
  "${JERRYSCRIPT_DIR}/jerry-core/api"
  "${JERRYSCRIPT_DIR}/jerry-core/debugger"
  "${JERRYSCRIPT_DIR}/jerry-core/ecma/base"
  "${JERRYSCRIPT_DIR}/jerry-core/ecma/builtin-objects"
  "${JERRYSCRIPT_DIR}/jerry-core/ecma/builtin-objects/typedarray"
  "${JERRYSCRIPT_DIR}/jerry-core/ecma/operations"
  "${JERRYSCRIPT_DIR}/jerry-core/jcontext"
  "${JERRYSCRIPT_DIR}/jerry-core/jmem"
  "${JERRYSCRIPT_DIR}/jerry-core/jrt"
  "${JERRYSCRIPT_DIR}/jerry-core/lit"
  "${JERRYSCRIPT_DIR}/jerry-core/parser/js"
  "${JERRYSCRIPT_DIR}/jerry-core/parser/regexp"
  "${JERRYSCRIPT_DIR}/jerry-core/vm")

set(BEACON_JERRY_BACKEND_DIR "${CMAKE_CURRENT_LIST_DIR}")
file(GLOB BEACON_JERRY_BACKEND_SOURCES CONFIGURE_DEPENDS "${BEACON_JERRY_BACKEND_DIR}/*.c")
# What both backends share: Math.random's generator and the number formatting (engine.h's layer).
list(APPEND BEACON_JERRY_BACKEND_SOURCES "${BEACON_JERRY_BACKEND_DIR}/../eng_random.c"
     "${BEACON_JERRY_BACKEND_DIR}/../eng_number_format.c")

if(NOT DEFINED BEACON_WARNINGS)
  set(BEACON_WARNINGS -Wall -Wextra -Werror -Wno-unused-parameter)
endif()

# Engine sources keep their own warning level: third-party code, never -Werror here.
function(beacon_jerry_objects target heap_kb)
  add_library(${target} OBJECT ${ARGN})
  target_compile_definitions(${target} PRIVATE ${BEACON_JERRY_DEFINES}
                             JERRY_GLOBAL_HEAP_SIZE=${heap_kb}
                             $<$<NOT:$<CONFIG:Debug>>:JERRY_NDEBUG>)
  target_include_directories(${target} PRIVATE "${JERRYSCRIPT_DIR}/jerry-core/include"
                             ${BEACON_JERRY_PRIVATE_INCLUDES})
  target_compile_options(${target} PRIVATE -w -fno-strict-aliasing)
  if(TARGET zephyr_interface)
    target_link_libraries(${target} PRIVATE zephyr_interface)
  endif()
endfunction()

function(beacon_jerry_engine target heap_kb heap_objects)
  add_library(${target} STATIC ${BEACON_JERRY_BACKEND_SOURCES}
              $<TARGET_OBJECTS:beacon_jerry_core> $<TARGET_OBJECTS:${heap_objects}>)
  target_include_directories(${target} PUBLIC "${BEACON_JERRY_BACKEND_DIR}/..")
  target_include_directories(${target} PRIVATE "${JERRYSCRIPT_DIR}/jerry-core/include")
  target_compile_definitions(${target} PRIVATE ${BEACON_JERRY_DEFINES}
                             JERRY_GLOBAL_HEAP_SIZE=${heap_kb}
                             $<$<NOT:$<CONFIG:Debug>>:JERRY_NDEBUG>)
  target_compile_options(${target} PRIVATE ${BEACON_WARNINGS})
  # JerryScript's remainder is inexact, its number-to-digits not the shortest, and its
  # Math.random reads an unseeded rand(); eng_jerry_remainder.c, eng_jerry_dtoa.c and
  # eng_jerry_parity.c replace them in whatever links the engine (wraps of
  # functions JerryScript calls across its files, so its sources stay untouched).
  target_link_options(${target} INTERFACE "-Wl,--wrap=ecma_number_remainder"
                      "-Wl,--wrap=ecma_errol0_dtoa" "-Wl,--wrap=rand")
  if(TARGET zephyr_interface)
    target_link_libraries(${target} PRIVATE zephyr_interface)
  else()
    target_link_libraries(${target} PUBLIC m)
  endif()
endfunction()

beacon_jerry_objects(beacon_jerry_core ${BEACON_JERRY_HEAP_KB} ${BEACON_JERRY_CORE_SOURCES})
beacon_jerry_objects(beacon_jerry_heap ${BEACON_JERRY_HEAP_KB} ${BEACON_JERRY_HEAP_SOURCES})
# eng_jerry_private.c reads a few engine internals that have no public API (pending jobs, peak
# reset, stack base, the effective configuration); only that file needs the private headers.
set_source_files_properties("${BEACON_JERRY_BACKEND_DIR}/eng_jerry_private.c" PROPERTIES
                            INCLUDE_DIRECTORIES "${BEACON_JERRY_PRIVATE_INCLUDES}")

# The engine of the device and of the simulator: the device's heap size.
beacon_jerry_engine(beacon_engine_jerryscript ${BEACON_JERRY_HEAP_KB} beacon_jerry_heap)

# The package tool's engine: same configuration and bytecode (the heap size is not part of the
# snapshot format), but the largest heap 16-bit compressed pointers allow, so compiling a big
# app does not exhaust a device-sized heap (which is fatal in JerryScript). Host only.
if(NOT TARGET zephyr_interface)
  beacon_jerry_objects(beacon_jerry_heap_tool 512 ${BEACON_JERRY_HEAP_SOURCES})
  beacon_jerry_engine(beacon_engine_jerryscript_tool 512 beacon_jerry_heap_tool)
endif()
