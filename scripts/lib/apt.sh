# Debian packages of the two entry points, and the function that installs them. Sourced by
# scripts/setup.sh (everything the tests need) and scripts/demo.sh (what running an app on the
# simulator needs).

# The simulator and the package tool (CMakeLists.txt): a C compiler, CMake, Duktape's
# amalgamation, zlib, Mbed TLS (package signatures: ECDSA P-256 through its PSA Crypto API, the
# library the firmware verifies with too), libmosquitto (the simulated device's MQTT client;
# optional in CMake, installed so that the demo's simulator is the tests' one) and cmocka (the
# host build's configure includes the C unit tests, and stops without it).
HOST_TOOLS_APT_PACKAGES=(cmake make gcc libc6-dev pkg-config zlib1g-dev libmbedtls-dev duktape-dev libmosquitto-dev libcmocka-dev)

# Everything the tests need besides: libcbor (the CBOR tests' reference decoder), the Cortex-M
# toolchain, valgrind (benchmarks), GeographicLib and g++ (the geodesic test's reference), the
# cloud's test servers and browser (mosquitto, postgresql, chromium), emscripten (the
# WebAssembly simulator of `beacon studio`), QEMU (the firmware image on an emulated Cortex-M4),
# python3 (node-gyp, when npm builds better-sqlite3 from source), ccache (the firmware's builds
# share their Zephyr objects: scripts/firmware.sh; Zephyr uses it when installed), openssl (the
# certificates of the TLS clouds the firmware and the cloud's tests sync with).
ALL_APT_PACKAGES=("${HOST_TOOLS_APT_PACKAGES[@]}" libcbor-dev gcc-arm-none-eabi libnewlib-arm-none-eabi valgrind
                  mosquitto postgresql chromium g++ python3 libgeographiclib-dev emscripten qemu-system-arm
                  ccache openssl)

# What Zephyr's own build needs from Debian, installed by scripts/setup.sh when there is a
# workspace to build with (scripts/lib/workspace.sh): Ninja, the devicetree compiler, the 32-bit
# host libraries of nrf52_bsim (BabbleSim's devices are 32-bit programs) and the Python packages
# Zephyr's build scripts import (Debian's python3, so no pip).
ZEPHYR_APT_PACKAGES=(cmake ninja-build device-tree-compiler gcc-multilib gcc-arm-none-eabi libnewlib-arm-none-eabi
                     python3 python3-pyelftools python3-yaml python3-pykwalify python3-ruamel.yaml python3-dateutil
                     python3-packaging python3-jsonschema)

# apt_missing PACKAGE...: prints those not installed.
apt_missing() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}

# apt_install_missing PACKAGE...: installs those not installed (apt-get update first, only when
# something is missing).
apt_install_missing() {
  local missing sudo=""
  mapfile -t missing < <(apt_missing "$@")
  [ ${#missing[@]} -gt 0 ] || return 0
  echo "setup: installing ${missing[*]}" >&2
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  # Another apt (a second setup, an unattended upgrade) may hold the lock: wait for it.
  $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Marks a node_modules installed by scripts/demo.sh with `npm ci --ignore-scripts` (no native
# builds: better-sqlite3, the cloud's SQLite store, is left unbuilt); scripts/setup.sh finishes it.
PARTIAL_NPM_MARK=node_modules/.beacon-partial-install

# Marks a build/host that scripts/demo.sh configured before the full set was installed: CMake
# keeps what it did not find (g++, libcbor, GeographicLib) in its cache, so scripts/setup.sh
# configures it again from scratch.
PARTIAL_CONFIGURE_MARK=build/host/.beacon-partial-configure
