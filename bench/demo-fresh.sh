#!/usr/bin/env bash
# scripts/demo.sh on a fresh machine, as near as one machine gets: a minimal Debian 12 root file
# system (debootstrap --variant=minbase) with only this machine's node and npm, git and its CA
# certificates added, no apt lists, an empty npm cache and a fresh clone of HEAD; the demo runs
# in a chroot and installs everything else itself. One line per figure (seconds from the start):
#
#   demo_fresh_apt_done      apt has installed the host tools' packages
#   demo_fresh_npm_done      npm ci has finished (meanwhile)
#   demo_fresh_first_led     the first LED line of the run
#   demo_fresh_load_average  the machine's load meanwhile (a shared machine slows every step)
#   demo_fresh_apt_download_{demo,full}  what apt fetches for the demo, and for scripts/setup.sh
#
#   sudo bash bench/demo-fresh.sh        (root: debootstrap, chroot, mount; about 300 MB in /tmp)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
[ "$(id -u)" -eq 0 ] || { echo "demo-fresh: needs root (debootstrap, chroot)" >&2; exit 1; }
command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
work=$(mktemp -d /tmp/beacon-demo-fresh-XXXXXX)
root=$work/root
cleanup() {
  mountpoint -q "$root/proc" && umount "$root/proc"
  # Only once nothing is mounted inside: never remove through a mount.
  if ! grep -q " $root/" /proc/mounts; then rm -rf "$work"; fi
}
trap cleanup EXIT

debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >/dev/null
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"
in_root() { chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb "$@"; }
# The machine: git, CA certificates (this machine's too, for a proxy that has its own), node.
in_root bash -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ca-certificates git libstdc++6 >/dev/null 2>&1'
cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/" 2>/dev/null || true
in_root update-ca-certificates >/dev/null 2>&1 || true
cp "$(command -v node)" "$root/usr/bin/node"
mkdir -p "$root/usr/lib/node_modules" "$root/usr/etc"
cp -a "$(dirname "$(readlink -f "$(command -v npm)")")/.." "$root/usr/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/bin/npx"
[ -f /usr/etc/npmrc ] && cp /usr/etc/npmrc "$root/usr/etc/npmrc"
[ -f "$HOME/.npmrc" ] && cp "$HOME/.npmrc" "$root/root/.npmrc"
in_root bash -c 'apt-get clean; rm -rf /var/lib/apt/lists/*'
git clone -q "$repo" "$root/work/repo"

# What apt fetches for the demo, and for scripts/setup.sh, on this base (then no lists again).
cat >"$root/work/apt-sizes.sh" <<'EOF'
cd /work/repo
source scripts/lib/apt.sh
apt-get update -qq
for set in demo full; do
  if [ $set = demo ]; then p=("${HOST_TOOLS_APT_PACKAGES[@]}"); else p=("${ALL_APT_PACKAGES[@]}"); fi
  apt-get install -y --no-install-recommends --print-uris "${p[@]}" 2>/dev/null |
    awk -v s=$set '/^.http/ { n++; b += $3 } END { printf "demo_fresh_apt_download_%s: %d packages, %.0f MB\n", s, n, b / 1e6 }'
done
rm -rf /var/lib/apt/lists/*
EOF
sizes=$(in_root bash /work/apt-sizes.sh)

# The demo, each line of its output stamped with the seconds since it started.
cat >"$root/work/timed.sh" <<'EOF'
cd /work/repo
start=$(date +%s%N)
bash scripts/demo.sh 2>&1 | while IFS= read -r l; do
  printf '%d %s\n' $(( ($(date +%s%N) - start) / 1000000 )) "$l"
done
EOF
in_root bash /work/timed.sh >"$work/demo.log"
at() { awk -v re="$1" '$0 ~ re { printf "%.1f", $1 / 1000; exit }' "$work/demo.log"; }
echo "demo_fresh_apt_done: $(at 'demo: building the simulator') s"
echo "demo_fresh_npm_done: $(at 'added [0-9]+ packages') s"
led=$(at 'LEDs:')
if [ -z "$led" ]; then
  echo "demo_fresh_first_led: failed"
  sed 's/^/  /' "$work/demo.log" >&2
  exit 1
fi
echo "demo_fresh_first_led: $led s"
echo "demo_fresh_load_average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$sizes"
