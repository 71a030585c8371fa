#!/usr/bin/env bash
# Install Debian's chromium (used by tests/test_site.py to render the website) unless a
# `chromium` is already on PATH. Idempotent and quiet; uses sudo when not run as root.
set -euo pipefail

if command -v chromium >/dev/null 2>&1; then
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    SUDO=()
elif command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
else
    echo "ensure-chromium: chromium is missing and sudo is not available; run as root:" >&2
    echo "  apt-get update && apt-get install -y chromium" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq >/dev/null
"${SUDO[@]}" apt-get install -y -qq chromium >/dev/null

command -v chromium >/dev/null 2>&1 || {
    echo "ensure-chromium: apt-get finished but chromium is still not on PATH" >&2
    exit 1
}
