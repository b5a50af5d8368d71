# The project's C sources and include directories, by folder. Every build takes them from here:
# the host (CMakeLists.txt), the firmware (src/port/zephyr/zephyr.cmake), the bare-metal image
# (src/port/qemu/CMakeLists.txt) and the cross-compile check (scripts/cross-compile.sh); the
# WebAssembly build links the host's libraries. So a new folder (a new service of src/runtime)
# is built everywhere without an edit to any of them.
#
#   beacon_sources(<part> <sources-var> <includes-var>)
#
# <part> is a folder of src/: runtime, glue or world. Sources: every .c under it, at any depth
# (generated/ included). Include directories: the folder itself and every folder under it that
# holds a header. Headers are included by name (#include "rt_ble.h"); scripts/check-layout.py
# keeps the names unique and the includes within src/layout.toml's rules (docs/architecture.md,
# "Layout", says why names and not paths).
#
# BEACON_BASE_INCLUDES: the directories below every part: src/ itself, the engine layer
# (engine.h) and the HAL (hal_*.h).

get_filename_component(BEACON_SRC_DIR "${CMAKE_CURRENT_LIST_DIR}" ABSOLUTE)
set(BEACON_BASE_INCLUDES "${BEACON_SRC_DIR}" "${BEACON_SRC_DIR}/engine" "${BEACON_SRC_DIR}/hal")

function(beacon_sources part sources_var includes_var)
  if(NOT IS_DIRECTORY "${BEACON_SRC_DIR}/${part}")
    message(FATAL_ERROR "beacon_sources: no folder src/${part}")
  endif()
  file(GLOB_RECURSE _sources CONFIGURE_DEPENDS "${BEACON_SRC_DIR}/${part}/*.c")
  file(GLOB_RECURSE _headers CONFIGURE_DEPENDS "${BEACON_SRC_DIR}/${part}/*.h")
  set(_dirs "${BEACON_SRC_DIR}/${part}")
  foreach(_header IN LISTS _headers)
    get_filename_component(_dir "${_header}" DIRECTORY)
    list(APPEND _dirs "${_dir}")
  endforeach()
  list(REMOVE_DUPLICATES _dirs)
  list(SORT _dirs)
  list(SORT _sources)
  set(${sources_var} ${_sources} PARENT_SCOPE)
  set(${includes_var} ${_dirs} PARENT_SCOPE)
endfunction()
