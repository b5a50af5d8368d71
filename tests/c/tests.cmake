# C unit tests (cmocka), registered with CTest.
#
#   beacon_c_test(<name> <engine> <sources>... [LIBS <libraries>...])
#
# builds <name>_<engine> from the sources, links it with beacon_engine_<engine>, cmocka and the
# given libraries, and registers it as a test of the same name. Tests written against engine.h
# alone are registered once per engine present.

find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(CMOCKA QUIET IMPORTED_TARGET cmocka)
endif()
if(TARGET PkgConfig::CMOCKA)
  set(BEACON_CMOCKA PkgConfig::CMOCKA)
else()
  find_library(BEACON_CMOCKA_LIBRARY NAMES cmocka)
  find_path(BEACON_CMOCKA_INCLUDE_DIR NAMES cmocka.h)
  if(NOT BEACON_CMOCKA_LIBRARY OR NOT BEACON_CMOCKA_INCLUDE_DIR)
    message(FATAL_ERROR "cmocka not found: install libcmocka-dev")
  endif()
  add_library(beacon_cmocka INTERFACE)
  target_link_libraries(beacon_cmocka INTERFACE "${BEACON_CMOCKA_LIBRARY}")
  target_include_directories(beacon_cmocka INTERFACE "${BEACON_CMOCKA_INCLUDE_DIR}")
  set(BEACON_CMOCKA beacon_cmocka)
endif()

function(beacon_c_test name engine)
  cmake_parse_arguments(PARSE_ARGV 2 _bct "" "" "LIBS")
  if(NOT _bct_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "beacon_c_test(${name} ${engine}): no sources")
  endif()
  set(_target "${name}_${engine}")
  add_executable(${_target} ${_bct_UNPARSED_ARGUMENTS})
  target_link_libraries(${_target} PRIVATE ${_bct_LIBS} beacon_engine_${engine} ${BEACON_CMOCKA})
  target_compile_options(${_target} PRIVATE ${BEACON_WARNINGS})
  add_test(NAME ${_target} COMMAND ${_target})
endfunction()

foreach(_engine duktape jerryscript)
  if(TARGET beacon_engine_${_engine})
    beacon_c_test(test_engine ${_engine} "${CMAKE_CURRENT_LIST_DIR}/test_engine.c")
  endif()
endforeach()

# Runtime unit tests. The interval parser is pure C; the package tests need an engine's identity
# and so run once per engine.
beacon_c_test(test_interval duktape "${CMAKE_CURRENT_LIST_DIR}/test_interval.c" LIBS beacon_runtime)
foreach(_engine duktape jerryscript)
  if(TARGET beacon_engine_${_engine})
    beacon_c_test(test_package ${_engine} "${CMAKE_CURRENT_LIST_DIR}/test_package.c"
                  LIBS beacon_port_host beacon_runtime beacon_port_host)
  endif()
endforeach()
# The glue tests replace a few runtime functions by recorders (GNU ld's --wrap) to see what the
# generated bindings hand the runtime where no behaviour shows it yet.
foreach(_engine duktape jerryscript)
  if(TARGET beacon_engine_${_engine})
    beacon_c_test(test_glue ${_engine} "${CMAKE_CURRENT_LIST_DIR}/test_glue.c"
                  LIBS beacon_port_host beacon_runtime beacon_port_host)
    target_link_options(test_glue_${_engine} PRIVATE
      "LINKER:--wrap=rt_advertiser_power" "LINKER:--wrap=rt_advertiser_interval"
      "LINKER:--wrap=rt_ble_startScan")
  endif()
endforeach()

include("${CMAKE_CURRENT_LIST_DIR}/../fuzz/fuzz.cmake")

# CBOR codec and SMP server (pure C, no engine). libcbor is the CBOR test's reference decoder
# only; nothing else links it.
pkg_check_modules(LIBCBOR QUIET IMPORTED_TARGET libcbor)
if(TARGET PkgConfig::LIBCBOR)
  beacon_c_test(test_cbor duktape "${CMAKE_CURRENT_LIST_DIR}/test_cbor.c"
                LIBS beacon_runtime PkgConfig::LIBCBOR m)
else()
  message(WARNING "libcbor not found (apt-get install libcbor-dev): test_cbor is not built")
endif()
beacon_c_test(test_smp duktape "${CMAKE_CURRENT_LIST_DIR}/test_smp.c"
              LIBS beacon_port_host beacon_runtime beacon_port_host)
