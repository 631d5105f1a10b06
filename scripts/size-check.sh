#!/bin/sh
# size-check.sh [-a ALLOW] [-l LINES] [-f LINES] [FOLDER]...: no .c or .h file over 700 lines
# and no function over 80 (house rule: a file over 700 lines is two rooms). FOLDERs default to
# src and tests (walked down) and kernels (its own files only); .cu files are never counted (CUDA
# kernels are long by nature). A function is a body whose '{' opens at column 0 (the house
# style) or ends a column-0 line naming it ("int f(void) {"), closed by the next '}' at column
# 0; its length runs from the line naming it to that '}', both counted. ALLOW (default
# scripts/size-allow.txt, beside this script) names offenders accepted for now, one a line:
# "FILE" for a long file, "FILE:FUNCTION" for a long function; '#' starts a comment. An entry
# that no longer offends is noted (remove it), not an error. Exit 1 naming each offender not
# allowed, 2 on a usage error or a bad allow-list line. Reads only; no compiler.
set -eu
allow=$(dirname "$0")/size-allow.txt
max_file=700
max_fn=80
usage="usage: size-check.sh [-a ALLOW] [-l LINES] [-f LINES] [FOLDER]..."
while [ $# -gt 0 ]; do
    case $1 in
    -a) [ $# -ge 2 ] || { echo "size-check: -a needs a file" >&2; exit 2; }
        allow=$2; shift 2 ;;
    -l|-f) [ $# -ge 2 ] && [ "$2" -gt 0 ] 2>/dev/null ||
            { echo "size-check: $1 needs a number of lines above 0" >&2; exit 2; }
        if [ "$1" = -l ]; then max_file=$2; else max_fn=$2; fi
        shift 2 ;;
    -h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "size-check: unknown option '$1' ($usage)" >&2; exit 2 ;;
    *) break ;;
    esac
done
[ $# -gt 0 ] || set -- src kernels tests
[ -f "$allow" ] || { echo "size-check: no allow-list '$allow' (an empty file allows nothing)" >&2; exit 2; }
list=$(mktemp "${TMPDIR:-/tmp}/tb-size-XXXXXX")
trap 'rm -f "$list"' EXIT
for d in "$@"; do
    [ -d "$d" ] || { echo "size-check: no folder '$d'" >&2; exit 2; }
done
for d in "$@"; do
    # src/ and tests/ are trees of folders (tests/sim, tests/fuzz); any other folder
    # (kernels/) counts its own files only
    case ${d%/} in src|tests) depth="" ;; *) depth="-maxdepth 1" ;; esac
    find "${d%/}" $depth -type f \( -name '*.c' -o -name '*.h' \) -print
done | LC_ALL=C sort > "$list"
[ -s "$list" ] || { echo "size-check: no .c or .h file in $*"; echo "size-check: ok"; exit 0; }

LC_ALL=C awk -v max_file="$max_file" -v max_fn="$max_fn" -v allow="$allow" '
function fn_name(line,    s, n, w) {
    s = line; sub(/\(.*/, "", s); n = split(s, w, /[ \t*]+/)
    return w[n]
}
function offend(key, msg) {
    if (key in allowed) { used[key] = 1; nallowed++; print "size-check: allowed for now (" allow "): " msg; return }
    bad[++nbad] = msg
}
BEGIN {
    while ((getline line < allow) > 0) {
        aline++
        sub(/#.*/, "", line); gsub(/^[ \t]+|[ \t]+$/, "", line)
        if (line == "") continue
        if (line ~ /[ \t]/ || line ~ /:$/ || line ~ /^:/) {
            print "size-check: " allow ":" aline ": expected FILE or FILE:FUNCTION, got \"" line "\"" > "/dev/stderr"
            exit_code = 2; exit 2
        }
        allowed[line] = 1; order[++nallow] = line; where[line] = aline
    }
    close(allow)
}
FNR == 1 {
    if (NR > 1) end_file()
    open = 0; sig = ""; sigline = 0; prev = ""
}
{
    if (open && /^}/) {
        len = FNR - open_at + 1; nfn++
        if (len > longest_fn) { longest_fn = len; longest_fn_at = FILENAME ":" open_at ": " open_name "()" }
        if (len > max_fn)
            offend(FILENAME ":" open_name, FILENAME ":" open_at ": " open_name "(): " len " lines (over " max_fn ")")
        open = 0
    } else if (!open && /^\{/ && prev !~ /\\$/ && sig != "") {
        open = 1; open_at = sigline; open_name = sig
    } else if (!open && /^[A-Za-z_]/ && /\(/ && prev !~ /\\$/) {
        sig = fn_name($0); sigline = FNR
        # the body opening on the line that names it (not an initialiser, not a one-liner)
        if ($0 ~ /\{[ \t]*$/ && $0 !~ /=/) { open = 1; open_at = FNR; open_name = sig }
    } else if (!open && (/^[A-Za-z_#}]/ && /(;[ \t]*|^#.*|^}.*)$/))
        sig = ""   # a declaration, a directive or the end of a block: no signature pending
    prev = $0
}
function end_file() {
    nfiles++
    if (lines > longest_file) { longest_file = lines; longest_file_at = file }
    if (lines > max_file) offend(file, file ": " lines " lines (over " max_file ")")
}
{ file = FILENAME; lines = FNR }
END {
    if (exit_code) exit exit_code
    if (NR > 0) end_file()
    for (k = 1; k <= nallow; k++)
        if (!(order[k] in used))
            print "size-check: note: " allow ":" where[order[k]] ": \"" order[k] "\" is within the limits now (or gone): remove it"
    print "size-check: " (nfiles + 0) " files, " (nfn + 0) " functions; longest file " longest_file_at \
        " (" (longest_file + 0) " lines), longest function " (nfn ? longest_fn_at : "none") " (" \
        (longest_fn + 0) " lines); " (nallowed + 0) " allowed"
    for (k = 1; k <= nbad; k++) print "size-check: error: " bad[k] > "/dev/stderr"
    if (nbad) {
        print "size-check: FAILED: " nbad " over the limits (" max_file " lines a file, " max_fn \
            " a function): split where the concern splits" > "/dev/stderr"
        exit 1
    }
    print "size-check: ok"
}' $(cat "$list")
