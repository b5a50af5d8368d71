# Firmware build under Zephyr. The top-level CMakeLists.txt includes this file after
# find_package(Zephyr) and project(). It adds to Zephyr's `app` target the portable runtime, the
# generated glue, this port and the engine chosen in Kconfig (CONFIG_BEACON_ENGINE_*).
#
# Variables (west build -b <board> . -- -D<NAME>=<value>):
#   BEACON_APP_PACKAGE  app package (.bapp) linked into the image as its factory app: installed
#                       into the flash app store at first boot when the store holds no app (an
#                       uploaded app replaces it); a relative path is taken from the application
#                       directory. Without it the firmware waits for an upload.
#   JERRYSCRIPT_DIR     JerryScript 3.0 tree (CMake or environment variable); default: the
#                       west workspace's modules/lib/jerryscript (see west.yml)
#   DUKTAPE_DIR         directory with duktape.c and duk_config.h (CONFIG_BEACON_ENGINE_DUKTAPE);
#                       default: /usr/share/duktape, Debian's duktape-dev. It is not a west module.

get_filename_component(BEACON_ROOT "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(BEACON_ZEPHYR_PORT_DIR "${CMAKE_CURRENT_LIST_DIR}")

# ------------------------------------------------------------------------------ project sources

# The runtime, the glue and the world by folder (src/sources.cmake): every .c under them, and each
# folder with headers an include directory. The codegen writes the services' contract to
# src/runtime/generated/ and the argument tables and wrappers to src/glue/generated/.
include("${BEACON_ROOT}/src/sources.cmake")
beacon_sources(runtime BEACON_RUNTIME_SOURCES BEACON_RUNTIME_INCLUDES)
beacon_sources(glue BEACON_GLUE_SOURCES BEACON_GLUE_INCLUDES)
beacon_sources(world BEACON_WORLD_SOURCES BEACON_WORLD_INCLUDES)
file(GLOB BEACON_PORT_SOURCES CONFIGURE_DEPENDS "${BEACON_ZEPHYR_PORT_DIR}/*.c")
# What a device runs, and what a test board runs instead (CONFIG_BEACON_SIMULATED_WORLD): the
# world's models of the hardware (src/world) behind the HAL, with the board's host link.
set(BEACON_WORLD_PORT_FILES world_main_zephyr.c world_zephyr.c world_cloud_zephyr.c world_tag_zephyr.c host_link_bsim.c host_link_semihost.c
                            host_link_file.c host_sockets_bsim.c world_gnss_zephyr.c)
# The OS side the world keeps from the device's port: lock, CRC, cryptography, flash, the app
# store, the upload service and the BLE radio (under the world's device with --air radio).
set(BEACON_WORLD_KEEPS hal_lock_zephyr.c rt_crc32_zephyr.c hal_crypto_zephyr.c hal_flash_zephyr.c
                       app_store_zephyr.c smp_zephyr.c upload_service_zephyr.c ble_radio_zephyr.c
                       gnss_receiver_zephyr.c)
set(_beacon_port_selected "")
foreach(_source IN LISTS BEACON_PORT_SOURCES)
  get_filename_component(_name "${_source}" NAME)
  list(FIND BEACON_WORLD_PORT_FILES "${_name}" _world_file)
  list(FIND BEACON_WORLD_KEEPS "${_name}" _kept)
  # Fixes through Zephyr's GNSS subsystem, with a receiver in the devicetree (gnss-uart.conf).
  if(_name STREQUAL "gnss_receiver_zephyr.c" AND NOT CONFIG_GNSS)
    continue()
  endif()
  if(CONFIG_BEACON_SIMULATED_WORLD)
    if(_name STREQUAL "host_link_bsim.c" AND NOT CONFIG_SOC_POSIX)
      continue()
    elseif(_name STREQUAL "host_link_semihost.c" AND NOT CONFIG_SEMIHOST)
      continue()
    elseif(_name STREQUAL "host_sockets_bsim.c" AND NOT CONFIG_BEACON_HOST_SOCKETS)
      continue()
    elseif(_name STREQUAL "world_gnss_zephyr.c" AND NOT CONFIG_BEACON_GNSS_RECEIVER_UART)
      continue()
    elseif(_name MATCHES "^(hal_cloud_zephyr|world_cloud_zephyr)\\.c$" AND NOT CONFIG_MQTT_LIB)
      continue()
    elseif(_name STREQUAL "hal_cloud_zephyr.c")
      # A test board with a network syncs with a real cloud through the device's client
      # (world_main_zephyr.c's --cloud mqtts://).
      list(APPEND _beacon_port_selected "${_source}")
    elseif(_world_file GREATER_EQUAL 0 OR _kept GREATER_EQUAL 0)
      list(APPEND _beacon_port_selected "${_source}")
    endif()
  elseif(_world_file LESS 0)
    list(APPEND _beacon_port_selected "${_source}")
  endif()
endforeach()
set(BEACON_PORT_SOURCES ${_beacon_port_selected})
if(CONFIG_BEACON_HOST_SOCKETS)
  # The provider speaks Zephyr's socket internals; its other half runs in the native simulator's
  # runner with the host's headers (as Zephyr's own NSOS driver does).
  set_property(SOURCE "${BEACON_ZEPHYR_PORT_DIR}/host_sockets_bsim.c" APPEND PROPERTY
               INCLUDE_DIRECTORIES "${ZEPHYR_BASE}/subsys/net/lib/sockets")
  # Zephyr's net_if.h (through the socket internals) compares an unsigned index with 0.
  set_property(SOURCE "${BEACON_ZEPHYR_PORT_DIR}/host_sockets_bsim.c" APPEND PROPERTY
               COMPILE_OPTIONS -Wno-type-limits)
  target_sources(native_simulator INTERFACE "${BEACON_ZEPHYR_PORT_DIR}/runner/host_sockets_runner.c")
endif()
if(CONFIG_BEACON_SIMULATED_WORLD)
  list(APPEND BEACON_RUNTIME_SOURCES ${BEACON_WORLD_SOURCES})
endif()

target_sources(app PRIVATE ${BEACON_RUNTIME_SOURCES} ${BEACON_GLUE_SOURCES} ${BEACON_PORT_SOURCES})
target_include_directories(app PRIVATE
  ${BEACON_BASE_INCLUDES}
  ${BEACON_RUNTIME_INCLUDES}
  ${BEACON_GLUE_INCLUDES}
  ${BEACON_WORLD_INCLUDES}
  "${BEACON_ZEPHYR_PORT_DIR}")

# The portable code is held to the house rules here as on the host (and by
# scripts/cross-compile.sh). The port includes Zephyr's headers, which are not -Wextra clean on
# every toolchain, so it gets the warnings without -Werror.
set_property(SOURCE ${BEACON_RUNTIME_SOURCES} ${BEACON_GLUE_SOURCES}
             APPEND PROPERTY COMPILE_OPTIONS -Wall -Wextra -Werror -Wno-unused-parameter)
set_property(SOURCE ${BEACON_PORT_SOURCES}
             APPEND PROPERTY COMPILE_OPTIONS -Wall -Wextra -Werror -Wno-unused-parameter)

# ------------------------------------------------------------------------------ engine

if(CONFIG_BEACON_ENGINE_JERRYSCRIPT)
  # JerryScript has no zephyr/module.yml, so west does not make it a Zephyr module and
  # ZEPHYR_JERRYSCRIPT_MODULE_DIR is normally undefined; look where west.yml puts it.
  if(NOT JERRYSCRIPT_DIR AND DEFINED ENV{JERRYSCRIPT_DIR})
    set(JERRYSCRIPT_DIR "$ENV{JERRYSCRIPT_DIR}")
  endif()
  if(NOT JERRYSCRIPT_DIR)
    foreach(_candidate "${ZEPHYR_JERRYSCRIPT_MODULE_DIR}" "${WEST_TOPDIR}/modules/lib/jerryscript"
                       "${ZEPHYR_BASE}/../modules/lib/jerryscript")
      if(NOT _candidate STREQUAL "" AND EXISTS "${_candidate}/jerry-core/include/jerryscript.h")
        get_filename_component(JERRYSCRIPT_DIR "${_candidate}" ABSOLUTE)
        break()
      endif()
    endforeach()
  endif()
  if(NOT JERRYSCRIPT_DIR)
    message(FATAL_ERROR "JerryScript sources not found. Run `west update` (west.yml puts them at "
                        "modules/lib/jerryscript of the workspace) or pass -DJERRYSCRIPT_DIR=<tree>.")
  endif()
  set(JERRYSCRIPT_DIR "${JERRYSCRIPT_DIR}" CACHE PATH "JerryScript source tree" FORCE)
  message(STATUS "Beacon engine: JerryScript from ${JERRYSCRIPT_DIR}")
  # Same configuration as the host tools, so snapshots built there run here.
  include("${BEACON_ROOT}/src/engine/jerryscript/jerryscript.cmake")
  set(BEACON_ENGINE_TARGET beacon_engine_jerryscript)
elseif(CONFIG_BEACON_ENGINE_DUKTAPE)
  # Duktape's heap is malloc's arena: about 160 KB before an app's first line on a 32-bit core
  # (its built-ins and the installed API), about 450 KB for the room the simulator's model gives
  # apps (docs/budget.md). Beside the kernel, Bluetooth, the runtime's statics and the 40 KB
  # stack (about 105 KB on the nRF52840), that is 555 KB of RAM; boards with less are refused
  # here rather than failing at the app's first allocation. (CONFIG_SRAM_SIZE is 0 on native
  # boards, whose RAM is the host's.)
  set(BEACON_DUKTAPE_MIN_RAM_KB 555)
  if(CONFIG_SRAM_SIZE GREATER 0 AND CONFIG_SRAM_SIZE LESS BEACON_DUKTAPE_MIN_RAM_KB)
    message(FATAL_ERROR "Duktape does not fit ${BOARD}${BOARD_QUALIFIERS}: it has ${CONFIG_SRAM_SIZE} KB of RAM, and "
                        "Duktape needs about ${BEACON_DUKTAPE_MIN_RAM_KB} KB (a 450 KB heap for the room "
                        "the simulator gives apps, 160 KB just to start, beside about 105 KB for "
                        "the kernel, Bluetooth, the runtime and the stack: docs/budget.md). Build "
                        "with JerryScript, the device's engine, or for nrf52_bsim or mps2/an521.")
  endif()
  set(DUKTAPE_DIR "/usr/share/duktape" CACHE PATH "Directory with duktape.c and duk_config.h")
  if(NOT EXISTS "${DUKTAPE_DIR}/duktape.c" OR NOT EXISTS "${DUKTAPE_DIR}/duk_config.h")
    message(FATAL_ERROR "DUKTAPE_DIR (${DUKTAPE_DIR}) has no duktape.c and duk_config.h: install "
                        "duktape-dev or pass -DDUKTAPE_DIR=<directory>.")
  endif()
  message(STATUS "Beacon engine: Duktape from ${DUKTAPE_DIR}")
  set(BEACON_DUKTAPE_DIR "${DUKTAPE_DIR}" CACHE PATH "Duktape amalgamation directory" FORCE)
  include("${BEACON_ROOT}/src/engine/duktape/duktape.cmake")
  set(BEACON_ENGINE_TARGET beacon_engine_duktape)
  # The host links libm by name; Zephyr brings the C library's math itself (picolibc has it in
  # libc), and a toolchain may have no separate libm to link.
  foreach(_property LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
    get_target_property(_libs ${BEACON_ENGINE_TARGET} ${_property})
    if(_libs)
      list(REMOVE_ITEM _libs m)
      set_property(TARGET ${BEACON_ENGINE_TARGET} PROPERTY ${_property} ${_libs})
    endif()
  endforeach()
else()
  message(FATAL_ERROR "No JavaScript engine selected (CONFIG_BEACON_ENGINE_*)")
endif()

if(NOT TARGET ${BEACON_ENGINE_TARGET})
  message(FATAL_ERROR "The engine's CMake file did not define ${BEACON_ENGINE_TARGET}")
endif()
# The engine library must be compiled with Zephyr's flags (CPU, float ABI, C library headers).
# The engine files link zephyr_interface themselves when it exists; this covers one that does not.
get_target_property(_beacon_engine_libs ${BEACON_ENGINE_TARGET} LINK_LIBRARIES)
if(NOT "zephyr_interface" IN_LIST _beacon_engine_libs)
  target_link_libraries(${BEACON_ENGINE_TARGET} PRIVATE zephyr_interface)
endif()
if(TARGET zephyr_generated_headers)
  add_dependencies(${BEACON_ENGINE_TARGET} zephyr_generated_headers)
endif()
target_link_libraries(app PUBLIC ${BEACON_ENGINE_TARGET})

# ------------------------------------------------------------------------------ C dialect

# Project code is C11 with GNU extensions, as on the host (CMAKE_C_STANDARD 11). Zephyr picks its
# own dialect (C99 before 4.4, C17 from 4.4 on), by default without GNU extensions, which also
# hides POSIX declarations of the C library. A source file's options come after its target's
# (and so after Zephyr's -std) on the command line, so this one wins. It applies to everything
# under src/, the engine backends and Duktape's unity file included (the host compiles them so
# too); jerry-core, from outside the repository, keeps Zephyr's dialect.
get_target_property(_beacon_engine_sources ${BEACON_ENGINE_TARGET} SOURCES)
set(BEACON_PROJECT_SOURCES ${BEACON_RUNTIME_SOURCES} ${BEACON_GLUE_SOURCES} ${BEACON_PORT_SOURCES})
foreach(_source IN LISTS _beacon_engine_sources)
  string(FIND "${_source}" "${BEACON_ROOT}/src/" _at)
  if(_at EQUAL 0)
    list(APPEND BEACON_PROJECT_SOURCES "${_source}")
  endif()
endforeach()
set_property(SOURCE ${BEACON_PROJECT_SOURCES} APPEND PROPERTY COMPILE_OPTIONS -std=gnu11)

# ------------------------------------------------------------------------------ app package

if(BEACON_APP_PACKAGE)
  get_filename_component(_beacon_package "${BEACON_APP_PACKAGE}" ABSOLUTE
                         BASE_DIR "${CMAKE_SOURCE_DIR}")
  if(NOT EXISTS "${_beacon_package}" OR IS_DIRECTORY "${_beacon_package}")
    message(FATAL_ERROR "BEACON_APP_PACKAGE: no file ${_beacon_package}")
  endif()
  file(SIZE "${_beacon_package}" _beacon_package_size)
  if(_beacon_package_size EQUAL 0)
    message(FATAL_ERROR "BEACON_APP_PACKAGE: ${_beacon_package} is empty")
  endif()
  message(STATUS "Beacon app package: ${_beacon_package} (${_beacon_package_size} bytes)")
  # The package is checked (CRC, engine, API version) when the firmware installs it at boot,
  # exactly as an uploaded one will be; the build only embeds the bytes.
  set(_beacon_gen_dir "${CMAKE_CURRENT_BINARY_DIR}/beacon_generated")
  file(MAKE_DIRECTORY "${_beacon_gen_dir}")
  generate_inc_file_for_target(app "${_beacon_package}" "${_beacon_gen_dir}/beacon_app_package.inc")
  target_include_directories(app PRIVATE "${_beacon_gen_dir}")
  set_property(SOURCE "${BEACON_ZEPHYR_PORT_DIR}/main.c"
               APPEND PROPERTY COMPILE_DEFINITIONS BEACON_HAVE_APP_PACKAGE=1)
endif()
