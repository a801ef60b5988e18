#!/usr/bin/env bash
# Installs what Slabscope needs to build and test, skipping whatever is already there.
# Idempotent; a few seconds when everything is present. Used by `npm start` and `npm test`.
#
# Two toolchain paths (see README, "Setting up"):
#  - Debian (no rustup wasm32 target, no downloads besides package registries): apt packages
#    rustc-web cargo-web rust-web-src lld-22 chromium fonts-noto-cjk; std for wasm32 is built
#    from rust-web-src.
#  - rustup with network: a nightly toolchain with rust-src (set SLABSCOPE_TOOLCHAIN=rustup to
#    prefer it); Playwright's own Chromium.
# Both then get wasm-pack and wasm-bindgen-cli (at the exact wasm-bindgen version of
# Cargo.lock) from crates.io, and the npm dependencies with `npm ci`.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -d $HOME/.cargo/bin ]] && export PATH="$HOME/.cargo/bin:$PATH"

say() { printf 'setup: %s\n' "$*"; }
have() { command -v "$1" >/dev/null 2>&1; }

# --- system packages -------------------------------------------------------------------
apt_packages=(rustc-web cargo-web rust-web-src lld-22 chromium fonts-noto-cjk ffmpeg)
use_rustup() {
  [[ ${SLABSCOPE_TOOLCHAIN:-} == rustup ]] || ! have apt-get
}

if ! use_rustup; then
  missing=()
  for p in "${apt_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if ((${#missing[@]})); then
    say "installing Debian packages: ${missing[*]}"
    sudo=""
    [[ $(id -u) -ne 0 ]] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
else
  have rustup || { echo "setup: neither apt-get nor rustup is available; see README" >&2; exit 1; }
  if ! rustup toolchain list | grep -q '^nightly'; then
    say "installing the nightly Rust toolchain with rust-src"
    rustup toolchain install nightly --profile minimal --component rust-src
  fi
  rustup target add wasm32-unknown-unknown --toolchain nightly >/dev/null
fi

# --- cargo-installed tools ---------------------------------------------------------------
have cargo || { echo "setup: cargo is missing (install Rust from rustup or Debian)" >&2; exit 1; }
bindgen_version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' wasm-core/Cargo.lock)
[[ -n $bindgen_version ]] || { echo "setup: no wasm-bindgen in wasm-core/Cargo.lock" >&2; exit 1; }
if [[ $(wasm-bindgen --version 2>/dev/null) != "wasm-bindgen $bindgen_version" ]]; then
  say "installing wasm-bindgen-cli $bindgen_version (several minutes, once)"
  # Not --locked: one of the CLI's locked dependencies is no longer on crates.io.
  cargo install -q wasm-bindgen-cli --version "$bindgen_version" --force
fi
if ! have wasm-pack; then
  say "installing wasm-pack (several minutes, once)"
  cargo install -q wasm-pack
fi

# --- npm dependencies ----------------------------------------------------------------------
lock_hash=$(sha256sum package-lock.json | cut -d' ' -f1)
if [[ ! -f node_modules/.slabscope-lock || $(cat node_modules/.slabscope-lock) != "$lock_hash" ]]; then
  say "installing npm dependencies (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$lock_hash" > node_modules/.slabscope-lock
fi

# --- browser for the e2e tests -----------------------------------------------------------
if use_rustup && [[ ! -x /usr/bin/chromium && -z ${CHROMIUM_PATH:-} ]]; then
  npx playwright install chromium
fi
# Playwright records video (npm run demos) with its own ffmpeg build, which cannot be
# downloaded here: Debian's ffmpeg stands in for it, where Playwright looks for it.
if ! use_rustup; then
  ffmpeg_rev=$(node -e "const b = require('./node_modules/playwright-core/browsers.json'); console.log(b.browsers.find((x) => x.name === 'ffmpeg').revision)")
  ffmpeg_dir="${PLAYWRIGHT_BROWSERS_PATH:-$HOME/.cache/ms-playwright}/ffmpeg-$ffmpeg_rev"
  if [[ ! -e $ffmpeg_dir/ffmpeg-linux ]]; then
    say "linking Debian's ffmpeg for Playwright's video recording"
    mkdir -p "$ffmpeg_dir"
    ln -sf /usr/bin/ffmpeg "$ffmpeg_dir/ffmpeg-linux"
  fi
fi
say "ready"
