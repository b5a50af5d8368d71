# The WebAssembly build for `beacon studio` (emcmake cmake ...; scripts/build-wasm.sh): the world,
# runtime, glue and engine of the host simulator, with this port as their front end, one module per
# engine built: beacon-sim-duktape.{js,wasm}, and beacon-sim-jerryscript.{js,wasm} when
# JERRYSCRIPT_DIR is set.
#
# The modules are "modularized": the page (and node, for the benchmark) calls
# createBeaconSim_<engine>(Module) and gets the instance; functions are called through cwrap.

set(_beacon_wasm_here "${CMAKE_CURRENT_LIST_DIR}")
set(BEACON_WASM_EXPORTS
    _studio_open _studio_close _studio_message _studio_device_package _studio_device_heap
    _studio_start _studio_failure _studio_run_until _studio_idle_until _studio_now _studio_next _studio_input
    _studio_check_package _studio_install _studio_device_count _studio_device_name
    _studio_device_profile _studio_device_leds _studio_device_resets _studio_device_value
    _studio_devices_alive _studio_deploy_package _studio_deploy_clear
    _malloc _free)
list(JOIN BEACON_WASM_EXPORTS "," _beacon_wasm_exports)

function(beacon_wasm_module engine)
  set(_target beacon-sim-${engine})
  add_executable(${_target} "${_beacon_wasm_here}/studio_main.c" "${_beacon_wasm_here}/wasm_hal.c"
    "${_beacon_wasm_here}/wasm_sha256.c")
  # wasm-ld, like lld, resolves symbols across archives in any order: no link group needed.
  target_link_libraries(${_target} beacon_world beacon_runtime beacon_engine_${engine})
  target_compile_options(${_target} PRIVATE ${BEACON_WARNINGS})
  set_target_properties(${_target} PROPERTIES SUFFIX ".js")
  target_link_options(${_target} PRIVATE
    -sMODULARIZE=1
    -sEXPORT_NAME=createBeaconSim_${engine}
    -sENVIRONMENT=web,node
    -sALLOW_MEMORY_GROWTH=1
    -sFILESYSTEM=0
    -sEXIT_RUNTIME=0
    "-sEXPORTED_FUNCTIONS=[${_beacon_wasm_exports}]"
    "-sEXPORTED_RUNTIME_METHODS=[cwrap,UTF8ToString,HEAPU8]")
endfunction()

beacon_wasm_module(duktape)
if(TARGET beacon_engine_jerryscript)
  beacon_wasm_module(jerryscript)
endif()
