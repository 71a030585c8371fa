#!/usr/bin/env bash
# Install the Debian packages the tests and the grader need, when missing:
#   chromium    tests/test_site.py opens the built website in headless Chromium
#   bubblewrap  the grading sandbox (autograder/sandbox.py); setpriv and prlimit come with
#               util-linux, which every Debian has
# Usage: ensure-system-packages.sh [chromium] [bwrap]   (no argument: both)
# Idempotent and quiet; uses sudo when not run as root.
set -euo pipefail

tools=("$@")
[ ${#tools[@]} -eq 0 ] && tools=(chromium bwrap)
missing=()
for tool in "${tools[@]}"; do
    case "$tool" in
        chromium) command -v chromium >/dev/null 2>&1 || missing+=(chromium) ;;
        bwrap) command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap) ;;
        *) echo "ensure-system-packages: unknown tool $tool" >&2; exit 2 ;;
    esac
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
    SUDO=()
elif command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
else
    echo "ensure-system-packages: missing ${missing[*]} and sudo is not available; as root:" >&2
    echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq >/dev/null
"${SUDO[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null

for tool in "${tools[@]}"; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "ensure-system-packages: apt-get finished but $tool is still not on PATH" >&2
        exit 1
    }
done
