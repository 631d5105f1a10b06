#!/bin/sh
# fleet-lint-pypi.sh: doc/fleet/ through the newest ansible-lint from PyPI (production profile),
# installed into build-tools/lint-venv when missing (a venv: PEP 668 leaves it alone). Its rules
# run ahead of Debian's (26.x's var-naming[no-role-prefix]); make fleet-lint runs both.
set -u
cd "$(dirname "$0")/.."
v=build-tools/lint-venv
fix="python3 -m venv $v && $v/bin/python3 -m pip install ansible-lint"
if [ ! -x "$v/bin/ansible-lint" ]; then
    { python3 -m venv "$v" && "$v/bin/python3" -m pip install -q ansible-lint; } ||
        { echo "fleet-lint: could not install ansible-lint from PyPI; run: $fix"; exit 1; }
fi
echo "ansible-lint $("$v/bin/ansible-lint" --version 2>/dev/null | sed 's/\x1b\[[0-9;]*m//g' | sed -n '1s/^ansible-lint \([0-9.]*\).*/\1/p') (PyPI), production profile:"
out=$(cd doc/fleet && PATH=$(cd ../.. && pwd)/$v/bin:$PATH "$(cd ../.. && pwd)/$v/bin/ansible-lint" --offline \
      --profile production --nocolor deploy.yml collect.yml roles 2>&1)
rc=$?
printf '%s\n' "$out" | grep -v '^WARNING  Directory expansion\|^WARNING: PATH altered\|^$'
exit $rc
