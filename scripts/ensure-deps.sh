#!/bin/sh
# Install what building and testing transpose-bench needs, when it is missing.
# `ensure-deps.sh cross`: what `make cross-test` needs (aarch64 compiler, :arm64 libraries,
# qemu-user). `ensure-deps.sh plot`: gnuplot, so that compare --plot is tested.
# `ensure-deps.sh html`: chromium and poppler-utils, so that the --html pages are rendered.
# `ensure-deps.sh valgrind`: valgrind, for make test-valgrind.
# `ensure-deps.sh fleet`: ansible-core, ansible-lint, openssh-server and -client, cron (the
# daemon and crontab), iproute2 (ip, tc), for make fleet-test and fleet-lint (doc/fleet/).
# `ensure-deps.sh metrics`: promtool (Debian's prometheus package), for make metrics-check.
# `ensure-deps.sh schema`: python3's jsonschema (python3-jsonschema), for make schema-check.
# `ensure-deps.sh dist`: what `make dist` needs: python3 with venv (python3-venv), the aarch64
# libconfig and zlib (:arm64), binutils' objcopy for both CPUs, then zig $ZIG_VERSION from PyPI (ziglang) in a project-local
# virtual environment, build-tools/venv (no root; PEP 668 leaves a venv alone); the pinned
# clang is `ensure-deps.sh clang` (dist.sh asks for it per board).
# Uses apt-get as root or through password-less sudo; otherwise prints the exact
# command to run and fails. Never touches a machine that already has everything. Waits
# (TB_APT_WAIT s, default 600) for a dpkg/apt lock held by another package manager.
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
top=$(cd "$(dirname "$0")/.." && pwd)
ZIG_VERSION=0.14.1   # 0.13 mislinks (scripts/dist.sh); dist.sh checks the version it runs
venv=$top/build-tools/venv
# zig in the venv: run after the packages (python3-venv) are there
zig_venv() {
    [ "$("$venv/bin/python3" -m ziglang version 2>/dev/null)" = "$ZIG_VERSION" ] && return 0
    echo "transpose-bench: installing zig $ZIG_VERSION (PyPI ziglang) into build-tools/venv"
    rm -rf "$venv"
    fix="python3 -m venv build-tools/venv && build-tools/venv/bin/python3 -m pip install ziglang==$ZIG_VERSION"
    python3 -m venv "$venv" >/dev/null 2>&1 || {
        echo "transpose-bench: python3 -m venv failed (no python3-venv?); run: sudo apt-get install -y python3-venv"
        exit 1; }
    "$venv/bin/python3" -m pip install -q --disable-pip-version-check "ziglang==$ZIG_VERSION" || {
        echo "transpose-bench: could not install ziglang $ZIG_VERSION into build-tools/venv (network? PyPI?); run: $fix"
        exit 1; }
    v=$("$venv/bin/python3" -m ziglang version 2>&1)
    [ "$v" = "$ZIG_VERSION" ] || { echo "transpose-bench: build-tools/venv's zig says '$v', not $ZIG_VERSION; run: rm -rf build-tools/venv && scripts/ensure-deps.sh dist"; exit 1; }
}
case "${1:-}" in
clang)
    # the pinned clang-19 (scripts/kernel-images.sh: the release images' compiler; Debian 12
    # and Ubuntu 24.04 have it), else the newest clang-N the package lists offer that targets
    # the SM ($2; sm_87, sm_89 and sm_90 need clang 16 or newer, the others 14): it builds the
    # PTX of every Jetson's tarball, no NVIDIA compiler needed. Another clang is warned about.
    need=14
    case "${2:-}" in 87|89|90) need=16 ;; esac
    have=""
    command -v clang-19 >/dev/null 2>&1 && have=clang-19
    if [ -z "$have" ] && apt-cache policy clang-19 2>/dev/null | grep -q 'Candidate: [0-9]'; then
        missing="$missing clang-19"; have=pending
    fi
    for v in 19 18 17 16 15 14; do
        [ -z "$have" ] && [ "$v" -ge "$need" ] && command -v clang-$v >/dev/null 2>&1 && { have=clang-$v; break; }
    done
    if [ -z "$have" ]; then
        pick=""
        for v in 19 18 17 16 15 14; do
            [ "$v" -ge "$need" ] || continue
            apt-cache policy clang-$v 2>/dev/null | grep -q 'Candidate: [0-9]' && { pick=clang-$v; break; }
        done
        missing="$missing ${pick:-clang-$need}"
    fi ;;
dist)
    command -v python3 >/dev/null 2>&1 || missing="$missing python3"
    # Debian and Ubuntu split venv (its ensurepip) out of python3: a throwaway venv proves it
    if command -v python3 >/dev/null 2>&1; then
        t=$(mktemp -d)
        python3 -m venv "$t/v" >/dev/null 2>&1 || missing="$missing python3-venv"
        rm -rf "$t"
    fi
    for p in libconfig-dev zlib1g-dev; do
        dpkg -s "$p:arm64" >/dev/null 2>&1 || { missing="$missing $p:arm64"; arch_add=arm64; }
    done
    # objcopy strips the shipped executable's debug info, binutils' for each CPU
    command -v objcopy >/dev/null 2>&1 || missing="$missing binutils"
    command -v aarch64-linux-gnu-objcopy >/dev/null 2>&1 || missing="$missing binutils-aarch64-linux-gnu"
    [ -z "$missing" ] && { zig_venv; exit 0; } ;;
cross)
    command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || missing="$missing gcc-aarch64-linux-gnu"
    command -v qemu-aarch64 >/dev/null 2>&1 || missing="$missing qemu-user"
    for p in libconfig-dev zlib1g-dev libcmocka-dev; do
        dpkg -s "$p:arm64" >/dev/null 2>&1 || { missing="$missing $p:arm64"; arch_add=arm64; }
    done ;;
plot)
    command -v gnuplot >/dev/null 2>&1 || missing="$missing gnuplot-nox" ;;
metrics)
    command -v promtool >/dev/null 2>&1 || missing="$missing prometheus" ;;
schema)
    python3 -c 'import jsonschema' >/dev/null 2>&1 || missing="$missing python3-jsonschema" ;;
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
    if [ -n "$arch_add" ]; then echo "    sudo dpkg --add-architecture $arch_add && sudo apt-get update && sudo apt-get install -y$missing"
    else echo "    sudo apt-get update && sudo apt-get install -y$missing"; fi
    [ "${1:-}" = dist ] && echo "  then scripts/ensure-deps.sh dist again (it installs zig into build-tools/venv)"
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "transpose-bench: no apt-get on this system; install the equivalents of:$missing"
    exit 1
fi
# On a board, unattended-upgrades holds the dpkg/apt lock for minutes after boot: wait for
# it (TB_APT_WAIT seconds, default 600), saying so, rather than fail at once. apt 1.9.11+
# waits itself (DPkg::Lock::Timeout); Ubuntu 18.04's apt 1.6 (JetPack 4) does not, so the
# lock's holders are looked for first: fuser on the lock files where psmisc is installed,
# else the package tools' processes by name.
apt_wait=${TB_APT_WAIT:-600}
apt_locked() {
    if command -v fuser >/dev/null 2>&1; then
        $sudo fuser /var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock \
            /var/cache/apt/archives/lock >/dev/null 2>&1
    else
        pgrep -x 'apt|apt-get|aptitude|dpkg|unattended-upgr' >/dev/null 2>&1
    fi
}
wait_for_apt() {
    waited=0
    while apt_locked; do
        if [ "$waited" -ge "$apt_wait" ]; then
            echo "transpose-bench: the dpkg/apt lock is still held after ${apt_wait} s (unattended-upgrades?); try again later, or set TB_APT_WAIT"
            exit 1
        fi
        [ "$waited" = 0 ] && echo "transpose-bench: waiting for the dpkg/apt lock (held by another package manager, e.g. unattended-upgrades at boot; up to ${apt_wait} s)"
        sleep 5
        waited=$((waited + 5))
    done
}
export DEBIAN_FRONTEND=noninteractive
wait_for_apt
[ -n "$arch_add" ] && $sudo dpkg --add-architecture "$arch_add"
lockwait="-oDPkg::Lock::Timeout=$apt_wait"
$sudo apt-get "$lockwait" update -qq && wait_for_apt &&
    $sudo apt-get "$lockwait" install -y -qq $missing >/dev/null || {
    echo "transpose-bench: apt-get failed; run: sudo apt-get update && sudo apt-get install -y$missing"
    exit 1
}
echo "transpose-bench: installed$missing"
[ "${1:-}" = dist ] && zig_venv
exit 0
