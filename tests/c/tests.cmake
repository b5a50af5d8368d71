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
  # The engine calls the runtime's eng_port_* hooks, the runtime the port's HAL, and the port the
  # runtime: the static libraries are linked as one group.
  # Other libraries (libm, GeographicLib) come after the group.
  list(REMOVE_DUPLICATES _bct_LIBS)
  set(_bct_ours ${_bct_LIBS})
  list(FILTER _bct_ours INCLUDE REGEX "^beacon_")
  set(_bct_others ${_bct_LIBS})
  list(FILTER _bct_others EXCLUDE REGEX "^beacon_")
  list(JOIN _bct_ours "," _bct_group)
  if(_bct_group)
    set(_bct_group ",${_bct_group}")
  endif()
  target_link_libraries(${_target} PRIVATE "$<LINK_GROUP:RESCAN,beacon_engine_${engine}${_bct_group}>"
                        ${_bct_others} ${BEACON_CMOCKA})
  target_compile_options(${_target} PRIVATE ${BEACON_WARNINGS})
  add_test(NAME ${_target} COMMAND ${_target})
endfunction()

foreach(_engine duktape jerryscript)
  if(TARGET beacon_engine_${_engine})
    beacon_c_test(test_engine ${_engine} "${CMAKE_CURRENT_LIST_DIR}/test_engine.c")
  endif()
endforeach()

# The small-block allocator of the host simulator's Duktape heaps: its own source, no engine.
beacon_c_test(test_duk_slab duktape "${CMAKE_CURRENT_LIST_DIR}/test_duk_slab.c"
              "${CMAKE_CURRENT_LIST_DIR}/../../src/engine/duktape/eng_duk_slab.c")
target_include_directories(test_duk_slab_duktape PRIVATE "${CMAKE_CURRENT_LIST_DIR}/../../src/engine/duktape")

# Runtime unit tests. The interval parser is pure C; the package tests need an engine's identity
# and so run once per engine.
beacon_c_test(test_interval duktape "${CMAKE_CURRENT_LIST_DIR}/test_interval.c" LIBS beacon_runtime)
# The motion and battery models the firmware's drivers use (and the simulator shares): pure C.
beacon_c_test(test_motion duktape "${CMAKE_CURRENT_LIST_DIR}/test_motion.c" LIBS beacon_runtime)
beacon_c_test(test_battery duktape "${CMAKE_CURRENT_LIST_DIR}/test_battery.c" LIBS beacon_runtime m)
foreach(_engine duktape jerryscript)
  if(TARGET beacon_engine_${_engine})
    beacon_c_test(test_package ${_engine} "${CMAKE_CURRENT_LIST_DIR}/test_package.c"
                  LIBS beacon_port_host beacon_world beacon_runtime)
  endif()
endforeach()
# The signature verifier (ECDSA P-256, SHA-256 through PSA Crypto) against published vectors.
beacon_c_test(test_crypto duktape "${CMAKE_CURRENT_LIST_DIR}/test_crypto.c"
              LIBS beacon_port_host beacon_world beacon_runtime)
# The glue tests replace a few runtime functions by recorders (GNU ld's --wrap) to see what the
# generated bindings hand the runtime where no behaviour shows it yet.
foreach(_engine duktape jerryscript)
  if(TARGET beacon_engine_${_engine})
    beacon_c_test(test_glue ${_engine} "${CMAKE_CURRENT_LIST_DIR}/test_glue.c"
                  LIBS beacon_port_host beacon_world beacon_runtime)
    target_link_options(test_glue_${_engine} PRIVATE
      "LINKER:--wrap=rt_advertiser_power" "LINKER:--wrap=rt_advertiser_interval"
      "LINKER:--wrap=rt_ble_startScan")
  endif()
endforeach()

include("${CMAKE_CURRENT_LIST_DIR}/../fuzz/fuzz.cmake")
# A thousand device resets in one world: memory given back, nothing of an earlier life acting.
foreach(_engine duktape jerryscript)
  if(TARGET beacon_engine_${_engine})
    beacon_c_test(test_resets ${_engine} "${CMAKE_CURRENT_LIST_DIR}/test_resets.c"
                  LIBS beacon_port_host beacon_world beacon_runtime)
    set_tests_properties(test_resets_${_engine} PROPERTIES TIMEOUT 600)
    target_link_options(test_resets_${_engine} PRIVATE
      "LINKER:--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=aligned_alloc,--wrap=free")
  endif()
endforeach()


# storage.save against a power cut at every flash operation, app to flash.
foreach(_engine duktape jerryscript)
  if(TARGET beacon_engine_${_engine})
    beacon_c_test(test_storage_power ${_engine} "${CMAKE_CURRENT_LIST_DIR}/test_storage_power.c"
                  LIBS beacon_port_host beacon_world beacon_runtime)
  endif()
endforeach()
# The world's queue of inputs (by time, then arrival; its wheel and its heap) against a reference.
beacon_c_test(test_world_queue duktape "${CMAKE_CURRENT_LIST_DIR}/test_world_queue.c" LIBS beacon_world)
# The BLE air of the simulated world: path loss, scan windows and channels, scan responses, cost.
beacon_c_test(test_world_air duktape "${CMAKE_CURRENT_LIST_DIR}/test_world_air.c"
              LIBS beacon_port_host beacon_world beacon_runtime)
# What an advertising event costs: keyed noise, the reach of a power, the index of scanners (held
# to the exhaustive walk of every scanner), moving scanners.
beacon_c_test(test_world_air_reach duktape "${CMAKE_CURRENT_LIST_DIR}/test_world_air_reach.c"
              LIBS beacon_port_host beacon_world beacon_runtime m)

# Beacon packets: the advertising-data codec and the packet formats (pure C, like the interval
# parser: the engine is linked only because the helper links one).
beacon_c_test(test_ble_packets duktape "${CMAKE_CURRENT_LIST_DIR}/test_ble_packets.c" LIBS beacon_runtime)


# The flash record store on the simulated nRF52840 flash, power cuts at every operation included.
beacon_c_test(test_records duktape "${CMAKE_CURRENT_LIST_DIR}/test_records.c"
              LIBS beacon_port_host beacon_world beacon_runtime)
# The app store (installed app and staging slot) on the simulated flash beside the record store:
# power cuts at every operation of a switch, bit flips, refused packages, the records untouched.
beacon_c_test(test_app_store duktape "${CMAKE_CURRENT_LIST_DIR}/test_app_store.c"
              LIBS beacon_port_host beacon_world beacon_runtime)


# Location, NFC and UWB models: pure C, no engine needed (registered under duktape, which every
# host build has). They use libm.
foreach(_pure test_geo test_gnss_track test_location_filter test_ndef test_uwb_model)
  if(EXISTS "${CMAKE_CURRENT_LIST_DIR}/${_pure}.c")
    beacon_c_test(${_pure} duktape "${CMAKE_CURRENT_LIST_DIR}/${_pure}.c" LIBS beacon_runtime m)
  endif()
endforeach()
# The simulated receiver's NMEA 0183 sentences and the calendar dates under them.
beacon_c_test(test_nmea duktape "${CMAKE_CURRENT_LIST_DIR}/test_nmea.c" LIBS beacon_world beacon_runtime m)
# rt_geo against GeographicLib (Karney's algorithm) on random lines; GeographicLib's API is C++,
# so this one test is C++. Without a C++ compiler or libgeographiclib-dev it is left out, loudly.
include(CheckLanguage)
check_language(CXX)
if(CMAKE_CXX_COMPILER)
  enable_language(CXX)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(GEOGRAPHICLIB QUIET IMPORTED_TARGET geographiclib)
  endif()
endif()
if(TARGET PkgConfig::GEOGRAPHICLIB)
  beacon_c_test(test_geo_oracle duktape "${CMAKE_CURRENT_LIST_DIR}/test_geo_oracle.cc"
                LIBS beacon_runtime PkgConfig::GEOGRAPHICLIB m)
  set_target_properties(test_geo_oracle_duktape PROPERTIES CXX_STANDARD 11 CXX_STANDARD_REQUIRED ON)
else()
  message(WARNING "test_geo_oracle left out: it needs a C++ compiler and libgeographiclib-dev")
endif()


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
              LIBS beacon_port_host beacon_world beacon_runtime)
# The world's GNSS tracks, modem network, NFC and UWB statements (world script) and a device
# following its track.
beacon_c_test(test_world_radios duktape "${CMAKE_CURRENT_LIST_DIR}/test_world_radios.c"
              LIBS beacon_port_host beacon_world beacon_runtime)

# The cloud's device side: payload transcoding, the protocol's frames against the examples of
# docs/cloud-protocol.md, the flash event queue, an exchange against a stand-in cloud, the sync
# schedule.
beacon_c_test(test_cloud duktape "${CMAKE_CURRENT_LIST_DIR}/test_cloud.c"
              LIBS beacon_port_host beacon_world beacon_runtime m)
target_compile_definitions(test_cloud_duktape PRIVATE BEACON_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
# Apps deployed from the cloud: the device's download into the app store and its install.
beacon_c_test(test_cloud_deploy duktape "${CMAKE_CURRENT_LIST_DIR}/test_cloud_deploy.c"
              LIBS beacon_port_host beacon_world beacon_runtime m)
target_compile_definitions(test_cloud_deploy_duktape PRIVATE BEACON_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
# The cloud's side of the deployment frames (what the world's loopback cloud decodes and writes).
beacon_c_test(test_cloud_deploy_frames duktape "${CMAKE_CURRENT_LIST_DIR}/test_cloud_deploy_frames.c"
              LIBS beacon_port_host beacon_world beacon_runtime m)
target_compile_definitions(test_cloud_deploy_frames_duktape PRIVATE BEACON_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
# The world's loopback cloud offering, serving and withdrawing a scenario's deployments.
beacon_c_test(test_world_cloud_deploy duktape "${CMAKE_CURRENT_LIST_DIR}/test_world_cloud_deploy.c"
              LIBS beacon_port_host beacon_world beacon_runtime m)
# A message's payload from CBOR straight into the engine's values, on each engine.
foreach(_engine duktape jerryscript)
  if(TARGET beacon_engine_${_engine})
    beacon_c_test(test_cloud_payload ${_engine} "${CMAKE_CURRENT_LIST_DIR}/test_cloud_payload.c"
                  LIBS beacon_port_host beacon_world beacon_runtime m)
  endif()
endforeach()
# The event queue and cloud messages against a power cut at every flash operation of a sync.
foreach(_engine duktape jerryscript)
  if(TARGET beacon_engine_${_engine})
    beacon_c_test(test_cloud_power ${_engine} "${CMAKE_CURRENT_LIST_DIR}/test_cloud_power.c"
                  LIBS beacon_port_host beacon_world beacon_runtime)
  endif()
endforeach()

# One device of a scenario played by a firmware among others (--play N): its identity, its inputs
# and the world's shared statements; and a real radio under the world (--air radio).
beacon_c_test(test_world_play duktape "${CMAKE_CURRENT_LIST_DIR}/test_world_play.c"
              LIBS beacon_port_host beacon_world beacon_runtime)
