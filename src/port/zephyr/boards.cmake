# Configuration fragments per board, added to EXTRA_CONF_FILE before find_package(Zephyr) reads
# the configuration (the top-level CMakeLists.txt includes this file first). boards/<board>.conf
# holds what is one board's own; the fragments here are shared by several boards.
#
#   upload.conf  the upload service (MCUmgr's SMP server): the DKs and nrf52_bsim.
#   ble.conf     Bluetooth LE with Zephyr's own controller, the upload service over it: the boards
#                with an nRF52 radio, and the nRF9160 DK, whose controller is its nRF52840 (H:4).
#   cloud.conf   the cloud client (hal_cloud_zephyr.c): Zephyr's MQTT library on TLS sockets, on
#                the boards with a socket provider (nrf52_bsim: the host's, host_sockets_bsim.c).
#   signatures.conf  package signatures verified through PSA Crypto on Mbed TLS: the boards with a
#                cryptographically secure random source (PSA's initialisation needs one).

if(DEFINED BOARD)
  set(_beacon_board "${BOARD}")
else()
  set(_beacon_board "$ENV{BOARD}")
endif()
# The board's name without a revision (nrf52840dk@2.0.0/nrf52840 names the same board).
string(REGEX REPLACE "@[^/]*" "" _beacon_board "${_beacon_board}")

if(_beacon_board MATCHES "^(nrf52840dk/nrf52840|nrf9160dk/nrf9160|nrf52_bsim)(/.*)?$")
  list(APPEND EXTRA_CONF_FILE "${CMAKE_CURRENT_LIST_DIR}/../../../upload.conf")
endif()
if(_beacon_board MATCHES "^(nrf52840dk/nrf52840|nrf52_bsim)(/.*)?$")
  list(APPEND EXTRA_CONF_FILE "${CMAKE_CURRENT_LIST_DIR}/../../../ble.conf")
  list(APPEND EXTRA_CONF_FILE "${CMAKE_CURRENT_LIST_DIR}/../../../signatures.conf")
endif()
# The nRF9160 DK: the same Bluetooth host, its controller the DK's nRF52840 over H:4
# (boards/nrf9160dk_nrf9160.overlay). ble.conf's controller settings are then the controller
# image's (hci-controller.conf); Kconfig says at configuration that they do nothing here.
if(_beacon_board MATCHES "^nrf9160dk/nrf9160(/.*)?$")
  list(APPEND EXTRA_CONF_FILE "${CMAKE_CURRENT_LIST_DIR}/../../../ble.conf")
endif()
if(_beacon_board MATCHES "^nrf52_bsim(/.*)?$")
  list(APPEND EXTRA_CONF_FILE "${CMAKE_CURRENT_LIST_DIR}/../../../cloud.conf")
endif()
