#!/bin/sh
# call-check.sh [-v] [-a ALLOW] [-s SEAMS] [-I DIR]... -B BUILD [ROOT]: who calls whom, from the objects
# of a build: `nm` of each object of BUILD whose source is a file of ROOT (default src) or of a
# DIR gives the symbols it defines and those it takes from others; A -> B when A's object
# takes a symbol (a function, a table) that B's defines. The include check
# (scripts/structure-check.sh) cannot see a call made through a header both sides share; this
# one sees every call the linker resolves. Checked: no circle of modules by calls (inside one
# folder or across folders), and no call from a node of the folder view to one on its own
# floor or above, the floors being those of the include check (its "floor N:" lines, the same
# nodes: each sub-folder of ROOT and each DIR one node, ROOT's own modules their own). An
# offender that ALLOW (default scripts/call-allow.txt beside this script) names is said and
# passes: "circle MODULE MODULE..." (sorted, as printed), or "call NODE -> NODE"; '#' starts a
# comment (the issue whose owner breaks it); an entry that no longer offends is an error
# (remove it: the list only shrinks). And the seams that SEAMS (default scripts/call-seams.txt
# beside this script) draws inside a folder, by function: "seam FOLDER PREFIX WHO...": no
# function of FOLDER's objects but those WHO names takes (calls, or takes the address of) a
# symbol whose name starts with PREFIX; a WHO is a function, or an object by its source's
# name (plan.c: every function of it). #59: only tb_energy_plan_make of src/energy asks the
# sampler (tb_sampler_*), only plan.c reads its feed (tb_feed_*). Read per function from
# `readelf -W -S -s -r` of each object: every relocation of its code (a call, a pointer
# taken) placed in the function whose bytes hold it (a part gcc split off, NAME.cold or
# NAME.part.0, counts as NAME's), one in data or in no function said as such. Errors: a
# FOLDER that is no folder; a WHO that none of its objects defines, or that takes no PREFIX
# symbol (the rule would guard nothing); an object of a seam's folder older than its source
# or than any header its .d file (gcc -MMD, beside it) lists: a seam is read from fresh
# objects only; an LTO object there (gcc -flto: no machine code to place a call in); readelf
# or nm missing or failing (exit 2). An object outside the seams' folders that is older
# than what it was made from is skipped and counted (make rebuilds it); no object under
# BUILD (a fresh clone): one line says so, exit 0. Reads only; never builds. -v lists every
# edge with its symbols. Exit 1 on a breach, 2 on a usage error, a bad allow-list or seam
# line, or a tool that failed.
set -eu
here=$(dirname "$0")
allow=$here/call-allow.txt
seams=$here/call-seams.txt
verbose=0; dirs=""; build=""
usage="usage: call-check.sh [-v] [-a ALLOW] [-s SEAMS] [-I DIR]... -B BUILD [ROOT]"
while [ $# -gt 0 ]; do
    case $1 in
    -v) verbose=1; shift ;;
    -a) [ $# -ge 2 ] || { echo "call-check: -a needs a file" >&2; exit 2; }
        allow=$2; shift 2 ;;
    -s) [ $# -ge 2 ] || { echo "call-check: -s needs a file" >&2; exit 2; }
        seams=$2; shift 2 ;;
    -I) [ $# -ge 2 ] || { echo "call-check: -I needs a folder" >&2; exit 2; }
        dirs="$dirs $2"; shift 2 ;;
    -B) [ $# -ge 2 ] || { echo "call-check: -B needs a build folder" >&2; exit 2; }
        build=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "call-check: unknown option '$1' ($usage)" >&2; exit 2 ;;
    *) break ;;
    esac
done
[ $# -le 1 ] || { echo "call-check: one source root at most ($usage)" >&2; exit 2; }
root=${1:-src}; root=${root%/}
[ -n "$build" ] || { echo "call-check: -B BUILD is needed ($usage)" >&2; exit 2; }
for d in "$root" $dirs; do
    [ -d "$d" ] || { echo "call-check: no folder '$d'" >&2; exit 2; }
done
[ -f "$allow" ] || { echo "call-check: no allow-list '$allow' (an empty file allows nothing)" >&2; exit 2; }
[ -f "$seams" ] || { echo "call-check: no seams file '$seams' (an empty file draws none)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tb-calls-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# the seams: each rule's folder, prefix and who may ("LINE FOLDER PREFIX WHO..."), WHO a
# function or an object by its source's name (NAME.c, NAME.cu: every function of it)
awk -v f="$seams" '{ line = $0; sub(/#.*/, "", line); gsub(/^[ \t]+|[ \t]+$/, "", line); gsub(/[ \t]+/, " ", line)
      if (line == "") next
      if (line !~ /^seam [^ ]+ [A-Za-z_][A-Za-z_0-9]*( ([A-Za-z_][A-Za-z_0-9]*|[A-Za-z_0-9][A-Za-z_0-9-]*\.(c|cu)))+$/) {
          print "call-check: " f ":" NR ": expected \"seam FOLDER PREFIX FUNCTION-OR-FILE.c...\", got \"" line "\"" > "/dev/stderr"; exit 2 }
      sub(/\/( |$)/, " ", line); print NR, substr(line, 6) }' "$seams" > "$tmp/seamrules" || exit 2
if [ -s "$tmp/seamrules" ]; then
    command -v readelf > /dev/null 2>&1 ||
        { echo "call-check: no readelf (binutils) on PATH: the seams of $seams cannot be read" >&2; exit 2; }
fi
command -v nm > /dev/null 2>&1 || { echo "call-check: no nm (binutils) on PATH: the calls cannot be read" >&2; exit 2; }

# What an object was made from that is newer than it: its source and, where the build left
# its .d file beside it (gcc -MMD), every header gcc read for it (the .d's first rule).
newer_input() {   # OBJECT SOURCE
    deps=$2
    if [ -f "${1%.o}.d" ]; then
        deps="$deps $(awk '{ if (sub(/\\$/, "")) { all = all $0; next } all = all $0; sub(/^[^:]*:/, "", all); print all; exit }' "${1%.o}.d")"
    fi
    # shellcheck disable=SC2086
    find $deps -newer "$1" -print 2>/dev/null | head -n 1
}
# a stale object in a seam's folder: an error (the seam would be read from old code)
in_seam_folder() {   # SOURCE
    awk -v s="$1" '{ if (index(s, $2 "/") == 1) { found = 1; exit } } END { exit !found }' "$tmp/seamrules"
}
# the objects of ROOT's and the DIRs' sources: current ones into objs, stale ones counted
# (outside a seam's folder) or errors (inside one)
: > "$tmp/objs"; : > "$tmp/stale"; nstale=0; nobj=0
for d in "$root" $dirs; do
    [ -d "$build/$d" ] || continue
    for o in $(find "$build/$d" -name '*.o' -type f | LC_ALL=C sort); do
        s=${o#"$build"/}; s=${s%.o}
        if [ -f "$s.c" ]; then s=$s.c; elif [ -f "$s.cu" ]; then s=$s.cu; else continue; fi
        nobj=$((nobj + 1))
        newer=$(newer_input "$o" "$s")
        if [ -z "$newer" ]; then printf '%s %s\n' "$o" "$s" >> "$tmp/objs"; continue; fi
        nstale=$((nstale + 1))
        in_seam_folder "$s" && echo "call-check: error: $o is older than $newer: a seam's folder is read from fresh objects only (make rebuilds it)" >> "$tmp/stale"
    done
done
if [ -s "$tmp/stale" ]; then
    cat "$tmp/stale" >&2
    echo "call-check: FAILED: $(wc -l < "$tmp/stale") stale object(s) in a seam's folder" >&2
    exit 1
fi
if [ "$nobj" -eq 0 ] || [ ! -s "$tmp/objs" ]; then
    echo "calls: no current object of $root$dirs under $build ($nobj found, $nstale stale): skipped"
    exit 0
fi

# Each object's functions and the symbols of PREFIX its code or data takes, from readelf
# (its status kept: no pipe): "def SRC FUNC", "ref SRC FUNC SYMBOL" (FUNC "-" in data or in
# no function). An LTO object (gcc -flto: GIMPLE, no machine code) holds no function to
# place a call in: an error, not a pass.
seam_refs() {   # OBJECT SOURCE PREFIX
    if ! readelf -W -S -s -r "$1" > "$tmp/elf" 2> "$tmp/elferr"; then
        echo "call-check: readelf failed on $1: $(head -n 1 "$tmp/elferr")" >&2; exit 2
    fi
    if grep -q '\.gnu\.lto_\|__gnu_lto_slim' "$tmp/elf"; then
        echo "call-check: $1 is an LTO object (gcc -flto: no machine code, its calls cannot be placed in functions): build the seams' objects without -flto" >&2
        exit 2
    fi
    awk -v src="$2" -v prefix="$3" '
    function hex(h,    v, k) { v = 0; h = tolower(h); sub(/^0x/, "", h)
        for (k = 1; k <= length(h); k++) v = v * 16 + index("0123456789abcdef", substr(h, k, 1)) - 1
        return v }
    function size(z) { return z ~ /^0x/ ? hex(z) : z + 0 }   # decimal unless large
    function base(n) { sub(/\..*/, "", n); return n }
    /^ *\[ *[0-9]+\] / { n = $0; sub(/^ *\[ */, "", n); i = n + 0; sub(/^[0-9]+\] */, "", n); sub(/ .*/, "", n)
                         secname[i] = n; mode = ""; next }
    /^Symbol table/ { mode = "sym"; next }
    /^Relocation section/ { mode = "rel"; t = $3; gsub(/\047/, "", t); sub(/^\.rela?/, "", t); next }
    mode == "sym" && $4 == "FUNC" && $7 ~ /^[0-9]+$/ {
        nf++; fsec[nf] = secname[$7 + 0]; fval[nf] = hex($2); fsize[nf] = size($3); fname[nf] = base($8)
        print "def", src, fname[nf]; next }
    mode == "rel" && NF >= 5 && index($5, prefix) == 1 && t !~ /^\.(debug|eh_frame|note|comment)/ {
        nr++; rsec[nr] = t; roff[nr] = hex($1); rsym[nr] = $5 }
    END {   # readelf prints the symbols after the relocations
        for (r = 1; r <= nr; r++) {
            who = "-"
            for (k = 1; k <= nf; k++)
                if (fsec[k] == rsec[r] && roff[r] >= fval[k] && roff[r] < fval[k] + fsize[k]) { who = fname[k]; break }
            print "ref", src, who, rsym[r]
        } }' "$tmp/elf"
}
# each rule's findings into $tmp/seams, as the main program reads them: "error TEXT",
# "count N" (functions of the folders that take a PREFIX symbol). A WHO that no current
# object defines, or that takes no PREFIX symbol, is an error: the rule would guard nothing.
: > "$tmp/seams"
while read -r ln folder prefix funcs; do
    where="$seams:$ln"
    if [ ! -d "$folder" ]; then echo "error $where: seam of '$folder': no such folder" >> "$tmp/seams"; continue; fi
    awk -v f="$folder/" 'index($2, f) == 1' "$tmp/objs" > "$tmp/seamobjs"
    : > "$tmp/refs"
    while read -r o src; do seam_refs "$o" "$src" "$prefix" >> "$tmp/refs"; done < "$tmp/seamobjs"
    awk -v where="$where" -v folder="$folder" -v prefix="$prefix" -v funcs="$funcs" '
        function file(s) { sub(/.*\//, "", s); return s }
        BEGIN { n = split(funcs, F, " "); for (k = 1; k <= n; k++) may[F[k]] = 1 }
        $1 == "def" { defined[$3] = 1; defined[file($2)] = 1; next }
        $1 == "ref" { key = $2 " " $3; if (!(key in seen)) { seen[key] = 1; order[++nk] = key } syms[key] = syms[key] " " $4 }
        END {
            for (k = 1; k <= nk; k++) {
                split(order[k], w, " ")
                if (w[2] in may) { took[w[2]] = 1; continue }
                if (file(w[1]) in may) { took[file(w[1])] = 1; continue }
                print "error " where ": " w[1] ": " (w[2] == "-" ? "data or code outside any function" : w[2] "()") \
                    " takes " substr(syms[order[k]], 2) ", and only " funcs " of " folder "/ may take " prefix "*"
            }
            for (k = 1; k <= n; k++)
                if (!(F[k] in defined))
                    print "error " where ": " F[k] " is no " (F[k] ~ /\./ ? "object" : "function") " of " folder "/ (the seam names what is not there)"
                else if (!(F[k] in took))
                    print "error " where ": " F[k] " takes no " prefix "* symbol: the seam guards nothing (a rule that cannot fail)"
            print "count " nk + 0
        }' "$tmp/refs" >> "$tmp/seams"
done < "$tmp/seamrules"

# the floors of the include check (its folder view)
# shellcheck disable=SC2046
"$here/structure-check.sh" $(for d in $dirs; do printf ' -I %s' "$d"; done) "$root" > "$tmp/floors" 2>/dev/null || :
grep -q '^floor ' "$tmp/floors" || { echo "call-check: the include check printed no floors" >&2; exit 2; }
# nm of the objects at once, each line as "SOURCE TYPE SYMBOL" (U: taken from another)
# (nm's status kept: no pipe)
# shellcheck disable=SC2046
if ! nm -A -g $(cut -d' ' -f1 "$tmp/objs") > "$tmp/nm" 2> "$tmp/nmerr"; then
    echo "call-check: nm failed: $(head -n 1 "$tmp/nmerr")" >&2; exit 2
fi
awk 'FILENAME == ARGV[1] { src[$1] = $2; next }
    { p = index($0, ":"); o = substr($0, 1, p - 1); n = split(substr($0, p + 1), f, " ")
      if (o in src && n >= 2) print src[o], f[n - 1], f[n] }' "$tmp/objs" "$tmp/nm" > "$tmp/syms"

LC_ALL=C awk -v root="$root" -v dirs="$dirs" -v allow="$allow" -v verbose="$verbose" \
    -v floors="$tmp/floors" -v nstale="$nstale" -v build="$build" -v seamsays="$tmp/seams" \
    -v nseams="$(wc -l < "$tmp/seamrules")" "$(cat "$here/graph.awk")"'
function modname(p) { sub(/\.[^.\/]*$/, "", p); return p }
function dirname(p) { if (p !~ /\//) return "."; sub(/\/[^\/]*$/, "", p); return p }
# the folder-view node of a module, as the include check names it
function node_of(m,    k, rest) {
    for (k = 1; k <= nd; k++) if (index(m, D[k] "/") == 1) return D[k] "/"
    rest = substr(m, length(root) + 2)
    if (rest ~ /\//) { sub(/\/.*/, "", rest); return root "/" rest "/" }
    return m
}
function mod_id(m) { if (!(m in mid)) { mid[m] = ++nmod; mname[nmod] = m } return mid[m] }
function offend(key, msg) {
    if (key in allowed) { used[key] = 1; nallowed++; notes[++nnote] = "call-check: allowed for now (" allow ":" where[key] "): " msg; return }
    status = 1; errors[++nerr] = "call-check: error: " msg
}
BEGIN {
    nd = split(dirs, D, " ")
    for (k = 1; k <= nd; k++) sub(/\/$/, "", D[k])
    while ((getline line < allow) > 0) {
        aline++
        sub(/#.*/, "", line); gsub(/^[ \t]+|[ \t]+$/, "", line); gsub(/[ \t]+/, " ", line)
        if (line == "") continue
        if (line !~ /^circle [^ ]+ [^ ]+/ && line !~ /^call [^ ]+ -> [^ ]+$/) {
            print "call-check: " allow ":" aline ": expected \"circle MODULE MODULE...\" or \"call NODE -> NODE\", got \"" line "\"" > "/dev/stderr"
            bad_allow = 1; exit 2
        }
        if (line ~ /^circle /) line = "circle " sort_words(substr(line, 8))
        allowed[line] = 1; order[++nallow] = line; where[line] = aline
    }
    close(allow)
    # "floor  N: a b c" and its wrapped lines (blank-led) from the include check
    while ((getline line < floors) > 0) {
        if (line ~ /^floor +[0-9]+:/) { f = line; sub(/^floor +/, "", f); sub(/:.*/, "", f); sub(/^floor +[0-9]+:/, "", line); cur = f + 0 }
        else if (line !~ /^ / || cur == 0) { cur = 0; continue }
        n = split(line, w, " ")
        for (k = 1; k <= n; k++) floor_of[w[k]] = cur
    }
    close(floors)
}
$2 == "U" { takes[$1] = takes[$1] " " $3; mod_id(modname($1)); next }
$2 ~ /^[A-TV-Z]$/ { if (!($3 in def)) def[$3] = modname($1); mod_id(modname($1)) }
END {
    if (bad_allow) exit 2
    for (s in takes) {
        u = mod_id(modname(s)); n = split(takes[s], t, " ")
        for (k = 1; k <= n; k++) {
            if (!(t[k] in def)) continue                       # libc, libconfig, zlib: not ours
            v = mod_id(def[t[k]]); if (u == v) continue
            if (!((u, v) in edge)) { edge[u, v] = t[k]; adj[u] = adj[u] " " v; nedge++ }
            else edge[u, v] = edge[u, v] " " t[k]
        }
    }
    # 1. circles of modules by calls
    nc = scc(nmod, adj, comp)
    for (v = 1; v <= nmod; v++) { c = comp[v]; size[c]++; members[c] = members[c] " " mname[v] }
    ncirc = 0
    for (c = 1; c <= nc; c++) {
        if (size[c] < 2) continue
        ncirc++; names = sort_words(members[c]); calls = ""
        for (u = 1; u <= nmod; u++) {
            if (comp[u] != c) continue
            n = split(adj[u], e, " ")
            for (j = 1; j <= n; j++) if (comp[e[j] + 0] == c)
                calls = calls "\n    " mname[u] " -> " mname[e[j] + 0] ": " sort_words(edge[u, e[j] + 0])
        }
        offend("circle " names, "a circle by calls: " names calls)
    }
    # 2. calls in the folder view that do not go down a floor
    nup = 0
    for (u = 1; u <= nmod; u++) {
        n = split(adj[u], e, " ")
        for (j = 1; j <= n; j++) {
            v = e[j] + 0; a = node_of(mname[u]); b = node_of(mname[v])
            if (a == b) continue
            fa = floor_of[a] + 0; fb = floor_of[b] + 0
            if (fa == 0 || fb == 0 || fb < fa) continue
            key = "call " a " -> " b
            if (!(key in upsite)) order_up[++nup] = key
            upsite[key] = upsite[key] "\n    " mname[u] " -> " mname[v] ": " sort_words(edge[u, v])
            upmsg[key] = (fb > fa ? "a call up a floor, " a " (floor " fa ") -> " b " (floor " fb ")" \
                                  : "a call on one floor, " a " -> " b " (both floor " fa ")")
        }
    }
    for (k = 1; k <= nup; k++) offend(order_up[k], upmsg[order_up[k]] upsite[order_up[k]])
    # 3. the seams (read above, per function)
    while ((getline line < seamsays) > 0) {
        if (line ~ /^error /) { status = 1; errors[++nerr] = "call-check: error: " substr(line, 7) }
        else if (line ~ /^note /) notes[++nnote] = "call-check: " substr(line, 6)
        else if (line ~ /^count /) nseamf += substr(line, 7) + 0
    }
    for (k = 1; k <= nallow; k++)
        if (!(order[k] in used)) {
            status = 1
            errors[++nerr] = "call-check: error: " allow ":" where[order[k]] ": \"" order[k] "\" no longer offends: remove it (the list only shrinks)"
        }
    print "calls (" build "): " nmod " modules, " (nedge + 0) " edges between them; " ncirc " circles, " \
        nup " calls not down a floor (" (nallowed + 0) " allowed for now); " nstale " stale objects skipped"
    print "seams: " nseams + 0 " rule(s), " nseamf + 0 " function(s) taking a symbol one guards"
    for (k = 1; k <= nnote; k++) print notes[k]
    if (verbose)
        for (u = 1; u <= nmod; u++) { n = split(adj[u], e, " "); for (j = 1; j <= n; j++) print "  " mname[u] " -> " mname[e[j] + 0] ": " sort_words(edge[u, e[j] + 0]) }
    for (k = 1; k <= nerr; k++) print errors[k] > "/dev/stderr"
    if (status) print "call-check: FAILED: " nerr " (circles by calls, calls not down a floor, stale allow-list entries, seams crossed)" > "/dev/stderr"
    else print "call-check: ok"
    exit status
}' "$tmp/syms"
