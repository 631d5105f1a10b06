#!/bin/sh
# Rewrites the two generated tables of doc/log-format.md: the columns from
# `transpose-bench list --columns` (src/log/log_columns.h) and the metadata keys from
# src/log/log_meta.h's X-list. test_csvlog and test_logread check that the doc and the lists agree.
set -eu
bin=${1:-./transpose-bench}
doc=doc/log-format.md
tmp=$doc.tmp
"$bin" list --columns > "$tmp.table"
# X(id, "key", "when", "meaning"): one row per key, in the list's order
{
    echo '| key | when | meaning |'
    echo '|---|---|---|'
    sed -n 's/^ *X([a-z0-9_]*, *"\([^"]*\)", *"\([^"]*\)", *"\([^"]*\)").*/| `\1` | \2 | \3 |/p' src/log/log_meta.h
} > "$tmp.meta"
awk -v table="$tmp.table" -v meta="$tmp.meta" '
    /^\| column \| unit/ { while ((getline l < table) > 0) print l; skipping = 1; next }
    /^\| key \| when \| meaning/ { while ((getline l < meta) > 0) print l; skipping = 1; next }
    skipping && /^\|/ { next }
    { skipping = 0; print }' "$doc" > "$tmp"
mv "$tmp" "$doc"
rm -f "$tmp.table" "$tmp.meta"
