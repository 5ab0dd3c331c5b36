#!/usr/bin/env bash
# Fetch Neovim from Debian's newer suites into a cache folder and print the path of a wrapper
# that runs it. The host OS (Debian bookworm) ships a Neovim too old for tine.nvim, and the newer
# builds need a newer glibc, so we extract the package with all its shared-library dependencies
# (libc6 included) and make nvim run through the loader from that extracted libc6: patchelf (from
# the same suite, itself run through that loader) sets the binary's interpreter and library path.
# Starting nvim as `ld.so nvim` would not do: the TUI re-executes /proc/self/exe with --embed.
#
#   scripts/fetch-nvim.sh trixie   -> Neovim 0.10.x
#   scripts/fetch-nvim.sh forky    -> Neovim 0.12.x
#
# Nothing is installed system-wide: apt runs against private lists and an empty dpkg status.
set -euo pipefail

suite=${1:?usage: fetch-nvim.sh <debian-suite>}
cache=${TINE_NVIM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tine.nvim}
dir="$cache/nvim-$suite"
wrapper="$dir/bin/nvim"

if [ -x "$wrapper" ] && "$wrapper" --version >/dev/null 2>&1; then
  echo "$wrapper"
  exit 0
fi

command -v apt-get >/dev/null || { echo "fetch-nvim: apt-get is needed to fetch Neovim" >&2; exit 1; }

tmp="$dir.tmp"
rm -rf "$tmp"
mkdir -p "$tmp"/apt/{lists/partial,cache/archives/partial} "$tmp/debs" "$tmp/root"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main" \
  >"$tmp/apt/sources.list"
: >"$tmp/apt/status"
apt_opts=(
  -o "Dir::Etc::SourceList=$tmp/apt/sources.list" -o "Dir::Etc::SourceParts=/nonexistent"
  -o "Dir::State::Lists=$tmp/apt/lists" -o "Dir::Cache=$tmp/apt/cache"
  -o "Dir::State::status=$tmp/apt/status" -o "Debug::NoLocking=1" -o "APT::Sandbox::User=root"
)

echo "fetch-nvim: fetching Neovim from Debian $suite into $dir" >&2
apt-get "${apt_opts[@]}" -qq update >&2
# The empty dpkg status makes apt resolve every dependency from the suite itself.
mapfile -t pkgs < <(apt-cache "${apt_opts[@]}" depends --recurse --no-recommends --no-suggests \
  --no-conflicts --no-breaks --no-replaces --no-enhances neovim patchelf | grep -v '^ ' | grep -v '^<' | sort -u)
(cd "$tmp/debs" && apt-get "${apt_opts[@]}" -qq download "${pkgs[@]}" >&2)
for deb in "$tmp"/debs/*.deb; do dpkg -x "$deb" "$tmp/root"; done

lib="$dir/root/usr/lib/x86_64-linux-gnu" # the final location, written into the binary
"$tmp/root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" --library-path "$tmp/root/usr/lib/x86_64-linux-gnu" \
  "$tmp/root/usr/bin/patchelf" --set-interpreter "$lib/ld-linux-x86-64.so.2" --set-rpath "$lib" "$tmp/root/usr/bin/nvim"

mkdir -p "$tmp/bin"
cat >"$tmp/bin/nvim" <<'EOF'
#!/bin/sh
# Runs the extracted Neovim (its interpreter is the extracted glibc's loader; see fetch-nvim.sh).
root=$(cd "$(dirname "$0")/../root" && pwd)
export VIMRUNTIME="${TINE_VIMRUNTIME:-$root/usr/share/nvim/runtime}"
exec "$root/usr/bin/nvim" "$@"
EOF
chmod +x "$tmp/bin/nvim"
rm -rf "$tmp/debs" "$tmp/apt"
rm -rf "$dir"
mv "$tmp" "$dir"
"$wrapper" --version >/dev/null
echo "$wrapper"
