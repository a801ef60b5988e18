# Sourced by the build scripts: the environment for the wasm builds.
# On Debian (rustc-web, no rustup wasm32 target) the system rustc 1.96 with its library
# source builds std for wasm32 under RUSTC_BOOTSTRAP, linked by wasm-ld from lld-22. Where
# rustup has a nightly toolchain with rust-src, that is used instead.
if [[ -x /usr/bin/rustc && -d /usr/lib/rustlib/src/rust/library ]] && command -v wasm-ld-22 >/dev/null; then
  export PATH="/usr/bin:$HOME/.cargo/bin:$PATH"
  export RUSTC_BOOTSTRAP=1
  export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER=wasm-ld-22
  export SLABSCOPE_TOOLCHAIN=debian
elif command -v rustup >/dev/null && rustup toolchain list | grep -q '^nightly'; then
  export PATH="$HOME/.cargo/bin:$PATH"
  export RUSTUP_TOOLCHAIN=nightly
  export SLABSCOPE_TOOLCHAIN=rustup-nightly
else
  echo "error: no wasm toolchain; run scripts/setup.sh first" >&2
  exit 1
fi
