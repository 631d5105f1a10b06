#!/bin/sh
# Install what building and testing transpose-bench needs, when it is missing.
# `ensure-deps.sh cross`: what `make cross-test` needs (aarch64 compiler, :arm64 libraries,
# qemu-user). `ensure-deps.sh plot`: gnuplot, so that compare --plot is tested.
# `ensure-deps.sh html`: chromium and poppler-utils, so that the --html pages are rendered.
# `ensure-deps.sh valgrind`: valgrind, for make test-valgrind.
# `ensure-deps.sh fleet`: ansible-core, ansible-lint, openssh-server and -client, cron (the
# daemon and crontab), iproute2 (ip, tc), for make fleet-test and fleet-lint (doc/fleet/).
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
arch_add=""
case "${1:-}" in
cross)
    command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || missing="$missing gcc-aarch64-linux-gnu"
    command -v qemu-aarch64 >/dev/null 2>&1 || missing="$missing qemu-user"
    for p in libconfig-dev zlib1g-dev libcmocka-dev; do
        dpkg -s "$p:arm64" >/dev/null 2>&1 || { missing="$missing $p:arm64"; arch_add=arm64; }
    done ;;
plot)
    command -v gnuplot >/dev/null 2>&1 || missing="$missing gnuplot-nox" ;;
valgrind)
    command -v valgrind >/dev/null 2>&1 || missing="$missing valgrind" ;;
html)
    command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
    command -v pdftotext >/dev/null 2>&1 || missing="$missing poppler-utils" ;;
fleet)
    command -v ansible-playbook >/dev/null 2>&1 || missing="$missing ansible-core"
    command -v ansible-lint >/dev/null 2>&1 || missing="$missing ansible-lint"
    [ -x /usr/sbin/sshd ] || missing="$missing openssh-server"
    command -v ssh >/dev/null 2>&1 || missing="$missing openssh-client"
    { command -v crontab && [ -x /usr/sbin/cron ]; } >/dev/null 2>&1 || missing="$missing cron"
    command -v tc >/dev/null 2>&1 || missing="$missing iproute2" ;;
esac
[ -z "$missing" ] && exit 0

echo "transpose-bench: missing packages:$missing"
if [ "$(id -u)" = 0 ]; then sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo"
else
    echo "transpose-bench: cannot install them here (not root, no password-less sudo); run:"
    [ -n "$arch_add" ] && echo "    sudo dpkg --add-architecture $arch_add"
    echo "    sudo apt-get update && sudo apt-get install -y$missing"
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "transpose-bench: no apt-get on this system; install the equivalents of:$missing"
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
[ -n "$arch_add" ] && $sudo dpkg --add-architecture "$arch_add"
$sudo apt-get update -qq && $sudo apt-get install -y -qq $missing >/dev/null || {
    echo "transpose-bench: apt-get failed; run: sudo apt-get update && sudo apt-get install -y$missing"
    exit 1
}
echo "transpose-bench: installed$missing"
