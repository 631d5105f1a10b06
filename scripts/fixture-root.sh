#!/bin/sh
# fixture-root.sh FIXTURE ROOT: the sysfs files an INA3221 fixture lists
# (tests/fixtures/ina3221/*.txt: "| /path | value | ..." rows, as tests/helpers.c's
# th_build_sysfs reads them), written under ROOT with hwmon<N> as hwmon1. For scripts that
# run the tool against a fake board (readme-picture.sh, sampler-cost.sh); the C tests build
# theirs with th_build_sysfs.
set -eu
sed -n 's/^\(\/[^ ]*\) | \([^|<]*[^ |<]\) | .*/\1 \2/p' "$1" |
while read -r path value; do
    f=$2$(echo "$path" | sed 's/hwmon<N>/hwmon1/')
    mkdir -p "$(dirname "$f")"
    echo "$value" > "$f"
done
