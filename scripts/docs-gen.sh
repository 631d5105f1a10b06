#!/bin/sh
# docs-gen: writes the parts of README.md and doc/transpose-bench.1 that the tool prints from
# its command table, option rows and settings schema (`transpose-bench help --doc STYLE`):
# the README's commands table, the man page's SYNOPSIS, OPTIONS and SETTINGS. Each part sits
# between two marker lines that name its style; what is between them is replaced, nothing
# else is touched. --check rewrites nothing and fails, naming each part and showing the diff,
# when a document differs from what the tool prints (make test runs it: the docs cannot drift
# from --help). Not here: any text written by hand, but that --check also fails when a TB_*
# variable the code reads has no entry in the man page's ENVIRONMENT section.
# usage: scripts/docs-gen.sh [--check] BIN [ROOT]   (ROOT: the tree whose documents, default .)
set -eu
check=0
[ "${1:-}" = --check ] && { check=1; shift; }
bin=${1:?usage: scripts/docs-gen.sh [--check] BIN [ROOT]}
root=${2:-.}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tb-docs-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
bad=0

# part FILE STYLE BEGIN END: FILE's lines between BEGIN and END replaced by `help --doc STYLE`
part() {
    file=$root/$1 style=$2 begin=$3 end=$4
    "$bin" help --doc "$style" > "$tmp/gen" || { echo "docs-gen: help --doc $style failed" >&2; exit 1; }
    # the markers through the environment: awk -v would read the man page's \" as an escape
    B=$begin E=$end G=$tmp/gen awk '
        $0 == ENVIRON["B"] { print; while ((getline l < ENVIRON["G"]) > 0) print l; skip = 1; found++; next }
        $0 == ENVIRON["E"] { skip = 0; ended++ }
        !skip { print }
        END { if (found != 1 || ended != 1 || skip) exit 3 }' "$file" > "$tmp/new" || {
        echo "docs-gen: $1: expected one '$begin' line and one '$end' line after it" >&2
        exit 1
    }
    if cmp -s "$file" "$tmp/new"; then
        return 0
    elif [ "$check" = 1 ]; then
        echo "docs-gen: $1: the $style part is not what the tool prints (make docs-gen writes it):" >&2
        diff -u "$file" "$tmp/new" >&2 || true
        bad=1
    else
        cat "$tmp/new" > "$file"
        echo "docs-gen: $1: $style part written"
    fi
}

md() { part README.md "$1" "<!-- generated: $1 (scripts/docs-gen.sh) -->" "<!-- end of generated: $1 -->"; }
man() { part doc/transpose-bench.1 "$1" ".\\\" generated: $1 (scripts/docs-gen.sh)" ".\\\" end of generated: $1"; }

md readme
man man-synopsis
man man-options
man man-settings
# every TB_* variable the tool's code names ("TB_NAME", as getenv and the path checks take it)
# has its entry in the man page's ENVIRONMENT section (a `.B` line there; written by hand):
# the code's list, not the page's, is the one that cannot be forgotten (TB_SETTLE_TIMEOUT_S was)
if [ "$check" = 1 ]; then
    src=$root/src; [ -d "$src" ] || src=$(dirname "$0")/../src
    awk '/^\.SH / { env = ($0 == ".SH ENVIRONMENT") } env && /^\.B / { sub(/^\.B /, ""); gsub(/,/, " ");
         for (i = 1; i <= NF; i++) print $i }' "$root/doc/transpose-bench.1" > "$tmp/env-doc"
    (cd "$src" && grep -rnoE '"TB_[A-Z0-9_]+"' --include='*.c' --include='*.h' .) | sed 's/"//g' |
    while IFS=: read -r f l v; do
        grep -qxF "$v" "$tmp/env-doc" || echo "docs-gen: doc/transpose-bench.1: $v (read by src/${f#./}:$l) has no entry in the ENVIRONMENT section" >&2
    done > /dev/null 2> "$tmp/env-missing"
    [ -s "$tmp/env-missing" ] && { cat "$tmp/env-missing" >&2; bad=1; }
fi
# the README is read in two minutes (#42): under 120 lines, the details in doc/ and the man page
lines=$(wc -l < "$root/README.md")
if [ "$check" = 1 ] && [ "$lines" -ge 120 ]; then
    echo "docs-gen: README.md: $lines lines, 120 at most: move the detail to doc/ or the man page" >&2
    bad=1
fi
[ "$bad" = 0 ] || exit 1
[ "$check" = 1 ] && echo "docs-gen: README.md and doc/transpose-bench.1 are what the tool prints"
exit 0
