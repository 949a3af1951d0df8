#!/bin/sh
# Removes from a production node_modules (npm ci --omit=dev) what the compiled bot never loads:
# better-sqlite3's build tree and SQLite's sources. Its `bindings` lookup needs only
# build/Release/better_sqlite3.node and lib/; the object files, the static sqlite3.a, the test
# extension, the Makefiles and deps/ (the SQLite amalgamation, ~10 MB) are left over from the
# compile. Run by the Dockerfile's prod-deps stage and by scripts/production-modules-size.mjs,
# so the figure measured is the image's.
#   scripts/prune-production-modules.sh <node_modules dir>
set -eu
modules="${1:?usage: prune-production-modules.sh <node_modules dir>}"
sqlite="$modules/better-sqlite3"
addon="$sqlite/build/Release/better_sqlite3.node"
if [ ! -f "$addon" ]; then
  echo "prune-production-modules: $addon is missing; nothing pruned" >&2
  exit 1
fi
keep="$(mktemp)"
cp "$addon" "$keep"
rm -rf "$sqlite/build" "$sqlite/deps" "$sqlite/src" "$sqlite/binding.gyp"
mkdir -p "$sqlite/build/Release"
mv "$keep" "$addon"
chmod 0755 "$addon"
