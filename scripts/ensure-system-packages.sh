#!/usr/bin/env bash
# Install the Debian packages the tests and the grader need, when missing:
#   chromium    tests/test_site.py opens the built website in headless Chromium
#   bubblewrap  the grading sandbox (autograder/sandbox/bwrap.py); setpriv and prlimit come with
#               util-linux, which every Debian has
#   npm         tests/test_hub.py: deploy/jupyterhub/install.sh installs JupyterHub's proxy
#               (configurable-http-proxy) with it; Debian's nodejs and npm (a node that
#               ships its own npm, as NodeSource's does, is kept)
#   python3-venv  the hub's venv is made from Debian's /usr/bin/python3
# Usage: ensure-system-packages.sh [chromium] [bwrap] [npm] [venv]   (no argument: all)
# Idempotent and quiet; uses sudo when not run as root.
set -euo pipefail

tools=("$@")
[ ${#tools[@]} -eq 0 ] && tools=(chromium bwrap npm venv)
have() {  # have TOOL: whether what TOOL names is installed
    case "$1" in
        chromium) command -v chromium >/dev/null 2>&1 ;;
        bwrap) command -v bwrap >/dev/null 2>&1 ;;
        npm) command -v npm >/dev/null 2>&1 ;;
        venv) /usr/bin/python3 -c 'import ensurepip, venv' >/dev/null 2>&1 ;;
        *) echo "ensure-system-packages: unknown tool $1" >&2; exit 2 ;;
    esac
}
missing=()
for tool in "${tools[@]}"; do
    if ! have "$tool"; then
        case "$tool" in
            chromium) missing+=(chromium) ;;
            bwrap) missing+=(bubblewrap) ;;
            npm) missing+=(nodejs npm) ;;
            venv) missing+=(python3 python3-venv) ;;
        esac
    fi
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
    have "$tool" || {
        echo "ensure-system-packages: apt-get finished but $tool is still missing" >&2
        exit 1
    }
done
