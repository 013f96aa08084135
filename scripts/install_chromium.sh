#!/usr/bin/env bash
# Install Debian's chromium for the end-to-end tests, when it is missing.
set -euo pipefail
command -v chromium >/dev/null 2>&1 && exit 0
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null
command -v chromium
