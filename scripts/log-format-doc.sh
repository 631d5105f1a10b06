#!/bin/sh
# Rewrites the column table of doc/log-format.md from `transpose-bench list --columns`, the
# one column table (src/log_columns.h). test_csvlog checks that the two agree.
set -eu
bin=${1:-./transpose-bench}
doc=doc/log-format.md
tmp=$doc.tmp
"$bin" list --columns > "$tmp.table"
awk -v table="$tmp.table" '
    /^\| column \| unit/ { while ((getline l < table) > 0) print l; skipping = 1; next }
    skipping && /^\|/ { next }
    { skipping = 0; print }' "$doc" > "$tmp"
mv "$tmp" "$doc"
rm -f "$tmp.table"
