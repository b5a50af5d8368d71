# fuzz_api (tests/fuzz/fuzz_api.c): every API function and handle method of every version, called
# with random argument lists; one test per engine built. BEACON_FUZZ_LISTS sets the lists per
# function and version (the seed is fixed, so a run is reproducible).
set(BEACON_FUZZ_LISTS 2000 CACHE STRING "Random argument lists per function and API version in the fuzz test")

foreach(_engine duktape jerryscript)
  if(TARGET beacon_engine_${_engine})
    add_executable(fuzz_api_${_engine} "${CMAKE_CURRENT_LIST_DIR}/fuzz_api.c")
    target_link_libraries(fuzz_api_${_engine} PRIVATE
                          "$<LINK_GROUP:RESCAN,beacon_port_host,beacon_world,beacon_runtime,beacon_engine_${_engine}>" m)
    target_compile_options(fuzz_api_${_engine} PRIVATE ${BEACON_WARNINGS})
    # Allocation failures are injected by wrapping the C library's allocator (fuzz_api.c).
    target_link_options(fuzz_api_${_engine} PRIVATE "LINKER:--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=aligned_alloc")
    if(_engine STREQUAL duktape)
      # Duktape's small blocks come from its slabs, not the C library (eng_duk_slab.h): they
      # fail as often.
      target_link_options(fuzz_api_${_engine} PRIVATE "LINKER:--wrap=eng_duk_slab_alloc")
      target_compile_definitions(fuzz_api_${_engine} PRIVATE FUZZ_DUK_SLABS=1)
      target_include_directories(fuzz_api_${_engine} PRIVATE "${CMAKE_CURRENT_LIST_DIR}/../../src/engine/duktape")
    endif()
    add_test(NAME fuzz_api_${_engine}
             COMMAND fuzz_api_${_engine} --seed 1 --lists ${BEACON_FUZZ_LISTS})
    set_tests_properties(fuzz_api_${_engine} PROPERTIES TIMEOUT 600)
  endif()
endforeach()

# fuzz_ble_parse (tests/fuzz/fuzz_ble_parse.c): the advertising-data decoder and the beacon parser
# on random, mutated and malformed payloads. Pure C: no engine. BEACON_FUZZ_BLE_CASES sets the
# number of payloads (the seed is fixed, so a run is reproducible).
set(BEACON_FUZZ_BLE_CASES 1000000 CACHE STRING "Payloads in the BLE parser fuzz test")
add_executable(fuzz_ble_parse "${CMAKE_CURRENT_LIST_DIR}/fuzz_ble_parse.c")
target_link_libraries(fuzz_ble_parse PRIVATE beacon_runtime m)
target_compile_options(fuzz_ble_parse PRIVATE ${BEACON_WARNINGS})
add_test(NAME fuzz_ble_parse COMMAND fuzz_ble_parse --seed 1 --cases ${BEACON_FUZZ_BLE_CASES})
set_tests_properties(fuzz_ble_parse PROPERTIES TIMEOUT 600)

# fuzz_smp (tests/fuzz/fuzz_smp.c): the SMP server and its serial framing fed random, truncated
# and mutated requests, raw and framed; every malformed request must get the documented error
# or be dropped where the protocol drops it. The seed is fixed, so a run is reproducible.
set(BEACON_FUZZ_SMP_ROUNDS 200000 CACHE STRING "Requests per mode in the SMP fuzz test")
add_executable(fuzz_smp "${CMAKE_CURRENT_LIST_DIR}/fuzz_smp.c")
target_link_libraries(fuzz_smp PRIVATE
                      "$<LINK_GROUP:RESCAN,beacon_port_host,beacon_world,beacon_runtime,beacon_engine_duktape>")
target_compile_options(fuzz_smp PRIVATE ${BEACON_WARNINGS})
add_test(NAME fuzz_smp COMMAND fuzz_smp --seed 1 --rounds ${BEACON_FUZZ_SMP_ROUNDS})
set_tests_properties(fuzz_smp PROPERTIES TIMEOUT 600)
