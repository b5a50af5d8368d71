# apt_install_missing PACKAGE...: install those of the Debian packages that are not installed
# (apt-get update first, only when something is missing). Sourced by scripts/setup.sh (everything
# the tests need) and scripts/demo.sh (what running an app on the simulator needs).
apt_install_missing() {
  local missing=() p sudo=""
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  echo "setup: installing ${missing[*]}" >&2
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The apt packages the simulator and the package tool are built with (CMakeLists.txt): a C
# compiler, CMake, Duktape's amalgamation, zlib, libsodium (signatures) and libmosquitto (the
# simulated device's MQTT client; optional in CMake, installed so that the first build already
# has it: CMake caches what pkg-config did not find).
HOST_TOOLS_APT_PACKAGES=(cmake make gcc libc6-dev pkg-config zlib1g-dev libsodium-dev duktape-dev libmosquitto-dev)

# Marks a node_modules installed by scripts/demo.sh with `npm ci --ignore-scripts` (no native
# builds: better-sqlite3, the cloud's SQLite store, is left unbuilt); scripts/setup.sh finishes it.
PARTIAL_NPM_MARK=node_modules/.beacon-partial-install
