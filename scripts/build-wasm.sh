#!/usr/bin/env bash
# Builds the simulator's two WebAssembly modules with wasm-pack:
#   web/wasm/pkg-st  single-threaded (any page)
#   web/wasm/pkg-mt  threaded: shared memory, atomics, for cross-origin isolated pages
# Usage: scripts/build-wasm.sh [st|mt|all]   (default all)
#
# Both builds compile std from source (-Z build-std): the Debian toolchain ships no prebuilt
# wasm32 std, and the threaded build needs one compiled with atomics anyway. The flags that
# make memory shared stay on the wasm target (CARGO_TARGET_WASM32_..._RUSTFLAGS), so host
# build scripts and proc macros are compiled normally.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/toolchain-env.sh

which="${1:-all}"
crate=wasm-core/wasm
# Largest the shared memory may grow to (1 GiB); a sweep's table is at most ~100 MiB.
max_memory=1073741824

build() { # name, extra target rustflags
  local name=$1 flags=$2
  echo "wasm: building pkg-$name"
  CARGO_TARGET_DIR="$PWD/wasm-core/target/wasm-$name" \
  CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="$flags" \
    wasm-pack --log-level warn build "$crate" --target web --release --mode force --no-opt \
      --no-pack --out-dir "$PWD/web/wasm/pkg-$name" --out-name slabscope \
      -- -Z build-std=std,panic_abort
  rm -f "web/wasm/pkg-$name/.gitignore"
}

if [[ $which == st || $which == all ]]; then
  build st ""
fi
if [[ $which == mt || $which == all ]]; then
  mt_flags="-C target-feature=+atomics,+bulk-memory,+mutable-globals"
  for arg in --shared-memory --import-memory --max-memory=$max_memory \
             --export=__wasm_init_tls --export=__tls_size --export=__tls_align \
             --export=__tls_base --export=__heap_base; do
    mt_flags+=" -C link-arg=$arg"
  done
  build mt "$mt_flags"
fi
