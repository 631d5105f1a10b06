#!/bin/sh
# Install what building and testing transpose-bench needs, when it is missing.
# Uses apt-get as root or through password-less sudo; otherwise prints the exact
# command to run and fails. Never touches a machine that already has everything.
set -u
pc=${PKG_CONFIG:-pkg-config}
missing=""
command -v "${CC:-gcc}" >/dev/null 2>&1 || missing="$missing gcc"
command -v make >/dev/null 2>&1 || missing="$missing make"
command -v "$pc" >/dev/null 2>&1 || missing="$missing pkg-config"
if command -v "$pc" >/dev/null 2>&1; then
    "$pc" --exists libconfig || missing="$missing libconfig-dev"
    "$pc" --exists zlib || missing="$missing zlib1g-dev"
    "$pc" --exists cmocka || missing="$missing libcmocka-dev"
else
    missing="$missing libconfig-dev zlib1g-dev libcmocka-dev"
fi
[ -z "$missing" ] && exit 0

echo "transpose-bench: missing packages:$missing"
if [ "$(id -u)" = 0 ]; then sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo"
else
    echo "transpose-bench: cannot install them here (not root, no password-less sudo); run:"
    echo "    sudo apt-get update && sudo apt-get install -y$missing"
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "transpose-bench: no apt-get on this system; install the equivalents of:$missing"
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq && $sudo apt-get install -y -qq $missing >/dev/null || {
    echo "transpose-bench: apt-get failed; run: sudo apt-get update && sudo apt-get install -y$missing"
    exit 1
}
echo "transpose-bench: installed$missing"
