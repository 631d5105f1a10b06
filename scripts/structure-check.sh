#!/bin/sh
# structure-check.sh [-v] [-I DIR]... [-D DOCS]... [-X PATH]... [-O NAMES] [-M BUILD] [ROOT]: the include graph of ROOT
# (default src) and of each DIR, checked: no circle of modules (across folders or inside one),
# and no back-arrow in the folder view. A module is a .c/.h pair (path without extension); A -> B when A's .c or .h
# includes "B.h", resolved as the compiler does: the including file's folder first, then ROOT,
# then each DIR in order (the Makefile's -Isrc -Ikernels). The folder view collapses each
# sub-folder of ROOT, and each DIR, into one node; ROOT's own files stay nodes. Floors: 1 for a
# node that depends on nothing, else 1 + the highest floor it depends on. A back-arrow is an
# edge between two nodes of one cycle of that view. Also: a private header of a sub-folder
# (internal.h, NAME_internal.h, NAME_int.h) is included from inside that folder only; and
# every file of ROOT and of each DIR (comments, strings: not an include line) and of each DOCS
# folder (but what -X PATH leaves out) that names a .c, .h or .cu file names one that exists,
# whatever the spelling (#59): a path whose first folder is one beside ROOT (src/a/b.c,
# tests/t.c) or one of ROOT's sub-folders (a/b.c) must be a file there (ROOT's parent is the
# project); a bare name (b.c) must be some file's of the project (builds, .git and dist/ aside),
# a system header's (/usr/include) or one the file -O NAMES gives (one a line, '#' comments:
# another project's file, a placeholder); a path of another project (sys/, linux/, an absolute
# one) and a name written <x.h> are not read. Prints a summary; exit 1 naming the includes (or
# the lines) on any breach.
# -v also lists every folder-level edge with its #include lines. Reads only; no compiler: every
# include outside comments counts, under whichever #if it sits, read as gcc -std=c11 reads it
# (tests/structure-check-test.sh holds each case against gcc -MM): trigraphs ??= and ??/, a
# backslash-newline anywhere (a // comment so continued swallows the next line), comments
# anywhere in the line, # or %: (the digraph), #include, #include_next and #import, "x.h"
# or <x.h> (found in ROOT or a DIR: ours, an edge; else the system's, left out), or a macro
# #defined in the same file as one of those; any other macro is an error (not followed).
# -M BUILD holds that reading against gcc's: every .d file under BUILD (gcc -MMD -MP: an
# object, its source, then every header gcc read for it, direct or not) whose source is a file
# of ROOT or a DIR. Every header of ROOT and the DIRs that gcc read for X.c must be reached
# from X.c over the includes this check read (not only X.c's own: the .d lists them all),
# else the error names the .d and the header: this check misread an include. A private header
# gcc read for a file outside its folder is an error even when the way there passes through
# the folder's public header: the point of a private header is that its declarations and
# macros reach no one outside the folder, and one behind a public header reaches every
# includer of it (and src/config/internal.h's and src/format/internal.h's own #error, armed
# by a -D the Makefile sets for that folder's objects only, refuses exactly that). The way is
# named (top.c -> sub/x.h -> sub/internal.h); one whose last include is from outside the
# folder is said once, at that include. The edges gcc recorded (X's module -> each header's)
# must make no circle and no back-arrow of the folder view that this check's own edges do not
# (these are closures, from .c files: a header-only module's circle shows only in the check's
# own view, which reaches at least what gcc read). Not read: a .d of another source (tests,
# which open a room on purpose; generated files), counted; a stale one (a file it names is
# newer than it, or gone: make rewrites it), counted and skipped; no .d under BUILD (a fresh
# clone, CI before its build): one line says so and the rest runs. It never builds.
set -eu
here=$(dirname "$0")
verbose=0
dirs=""
docs=""
skip=""
build=""
outside=/dev/null
while [ $# -gt 0 ]; do
    case $1 in
    -v) verbose=1; shift ;;
    -I) [ $# -ge 2 ] || { echo "structure-check: -I needs a folder" >&2; exit 2; }
        dirs="$dirs $2"; shift 2 ;;
    -I*) dirs="$dirs ${1#-I}"; shift ;;
    -D) [ $# -ge 2 ] || { echo "structure-check: -D needs a folder" >&2; exit 2; }
        docs="$docs $2"; shift 2 ;;
    -X) [ $# -ge 2 ] || { echo "structure-check: -X needs a path" >&2; exit 2; }
        skip="$skip $2"; shift 2 ;;
    -O) [ $# -ge 2 ] && [ -f "$2" ] || { echo "structure-check: -O needs a file (names of files not ours)" >&2; exit 2; }
        outside=$2; shift 2 ;;
    -M) [ $# -ge 2 ] || { echo "structure-check: -M needs a build folder" >&2; exit 2; }
        [ -z "$build" ] || { echo "structure-check: -M given twice ('$build', '$2'): one build folder" >&2; exit 2; }
        build=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "structure-check: unknown option '$1' (usage: structure-check.sh [-v] [-I DIR]... [-D DOCS]... [-X PATH]... [-O NAMES] [-M BUILD] [ROOT])" >&2
        exit 2 ;;
    *) break ;;
    esac
done
[ $# -le 1 ] || { echo "structure-check: one source root at most (usage: structure-check.sh [-v] [-I DIR]... [-D DOCS]... [-X PATH]... [-O NAMES] [-M BUILD] [ROOT])" >&2; exit 2; }
root=${1:-src}
for d in "$root" $dirs $docs; do
    case $d in *' '*) echo "structure-check: '$d': folders with spaces are not supported" >&2; exit 2 ;; esac
    [ -d "$d" ] || { echo "structure-check: no folder '$d'" >&2; exit 2; }
done
case $build in *' '*) echo "structure-check: '$build': folders with spaces are not supported" >&2; exit 2 ;; esac
list=$(mktemp "${TMPDIR:-/tmp}/tb-structure-XXXXXX")
named=$(mktemp "${TMPDIR:-/tmp}/tb-structure-XXXXXX")
deps=$(mktemp "${TMPDIR:-/tmp}/tb-structure-XXXXXX")
ours=$(mktemp "${TMPDIR:-/tmp}/tb-structure-XXXXXX")
trap 'rm -f "$list" "$named" "$ours" "$deps" "$deps.all" "$deps.raw" "$deps.files" "$deps.have" "$deps.newer"' EXIT
# -M: the build's .d files that are current (none of the files one names is newer than it,
# and all of them are still there) into $deps; a stale one is counted and left out, as make
# would rewrite it (a file edited or moved since the build says nothing of today's includes).
nstale=0; dnote=""
if [ -n "$build" ]; then
    if [ -d "$build" ]; then find "$build" -name '*.d' -type f -print | LC_ALL=C sort > "$deps.all"
    else : > "$deps.all"; fi
    if [ ! -s "$deps.all" ]; then
        dnote="gcc's view: no .d file under $build (no build there yet): skipped"
    else
        # each .d and the files its rule names, on one line (none: malformed, the awk below
        # says so; an empty file has no line here and is passed on as such). Names split on
        # blanks below (no name holds one: a space is refused above), never globbed.
        set -f
        # shellcheck disable=SC2046
        awk 'FNR == 1 { if (NR > 1) print out; out = FILENAME; done = 0; cont = 0 }
             done { next }
             { line = $0; sub(/\\[ \t]*$/, "", line)
               if (!cont) { if (index(line, ":") == 0) { done = 1; next } sub(/^[^:]*:/, "", line) }
               out = out " " line; cont = ($0 ~ /\\[ \t]*$/); if (!cont) done = 1 }
             END { if (NR) print out }' $(cat "$deps.all") > "$deps.raw"
        find "$build" -name '*.d' -type f -size 0 -print >> "$deps"
        # which of the files named are there, and which are newer than the oldest .d: one find
        # each over them all; only a .d naming one of the newer is held against its own time
        # shellcheck disable=SC2046,SC2012
        oldest=$(ls -t $(cat "$deps.all") | tail -n 1)
        awk '{ for (k = 2; k <= NF; k++) if (!($k in seen)) { seen[$k] = 1; print $k } }' "$deps.raw" > "$deps.files"
        : > "$deps.have"; : > "$deps.newer"
        if [ -s "$deps.files" ]; then
            # shellcheck disable=SC2046
            find $(cat "$deps.files") -prune -print > "$deps.have" 2>/dev/null || :
            # shellcheck disable=SC2046
            find $(cat "$deps.files") -prune -newer "$oldest" -print > "$deps.newer" 2>/dev/null || :
        fi
        awk 'FILENAME == ARGV[1] { have[$0] = 1; next }
             FILENAME == ARGV[2] { newer[$0] = 1; next }
             { v = "ok"
               for (k = 2; k <= NF; k++) { if (!($k in have)) { v = "stale"; break } if ($k in newer) v = "check" }
               print v, $0 }' "$deps.have" "$deps.newer" "$deps.raw" |
        while read -r v d fs; do
            case $v in
            ok) echo "$d" ;;
            stale) echo "stale $d" ;;
            *) # shellcheck disable=SC2086
               if newer=$(find $fs -prune -newer "$d" -print 2>/dev/null) && [ -z "$newer" ]; then echo "$d"
               else echo "stale $d"; fi ;;
            esac
        done > "$deps.all"
        set +f
        nstale=$(grep -c '^stale ' "$deps.all" || :)
        grep -v '^stale ' "$deps.all" >> "$deps" || :
    fi
fi
# every file (an include may name any of them); sources are .c, .h and .cu
find "$root" $dirs -type f -print | LC_ALL=C sort > "$list"
# the files whose text may name a source file: ROOT's and the DOCS folders', less -X's
find "$root" $dirs $docs -type f -print | LC_ALL=C sort | awk -v skip="$skip" '
    BEGIN { n = split(skip, S, " ") }
    { for (k = 1; k <= n; k++) if ($0 == S[k] || index($0, S[k] "/") == 1) next; print }' > "$named"

# every file of the project (the folder above ROOT, less builds, git and dist), for the names
# a comment or a doc gives: a path is looked for there, a bare name among their names; then the
# system's headers (a bare "stdio.h") and the names -O gives (another project's files, a
# generated file, a placeholder), after a line "--"
ptop=$(dirname "$root")
{ find "$ptop" \( -path "$ptop/.git" -o -path "$ptop/build" -o -path "$ptop/build-*" -o -path "$ptop/dist" \) -prune \
      -o -type f -print | sed "s|^\./||"
  echo "--"
  for d in /usr/include /usr/include/*-linux-gnu /usr/lib/gcc/*/*/include; do
      [ -d "$d" ] && ls "$d"
  done 2>/dev/null | grep '\.h$' || :
  sed 's/#.*//' "$outside" | tr -s ' \t' '\n\n' | grep . || :
} > "$ours"

LC_ALL=C awk -v search="$root$dirs" -v verbose="$verbose" -v named="$named" -v build="$build" -v ours="$ours" \
    -v deps="$deps" -v nstale="$nstale" -v dnote="$dnote" "$(cat "$here/graph.awk")"'
function norm(p,    n, k, c, out, top, parts, st) {
    n = split(p, parts, "/"); top = 0
    for (k = 1; k <= n; k++) {
        c = parts[k]
        if (c == "" && k > 1) continue
        if (c == ".") continue
        if (c == ".." && top > 0 && st[top] != ".." && st[top] != "") { top--; continue }
        st[++top] = c
    }
    out = ""
    for (k = 1; k <= top; k++) out = out (k > 1 ? "/" : "") st[k]
    if (out == "") out = "."
    return out
}
function dirname(p) { if (p !~ /\//) return "."; sub(/\/[^\/]*$/, "", p); return p == "" ? "/" : p }
function modname(p) { sub(/\.[^.\/]*$/, "", p); return p }
function is_source(p) { return p ~ /\.(c|h|cu)$/ }
# Comments removed from one line (strings and character constants kept whole, so "src/*.c"
# opens no comment); incom carries a block comment over lines.
function uncomment(line,    out, i, n, c, q) {
    out = ""; i = 1; n = length(line)
    while (i <= n) {
        c = substr(line, i, 1)
        if (incom) {
            if (c == "*" && substr(line, i + 1, 1) == "/") { incom = 0; i += 2; out = out " " }
            else i++
            continue
        }
        if (c == "\"" || c == "\047") {
            q = c; out = out c; i++
            while (i <= n) {
                c = substr(line, i, 1); out = out c; i++
                if (c == "\\") { out = out substr(line, i, 1); i++; continue }
                if (c == q) break
            }
            continue
        }
        if (c == "/" && substr(line, i + 1, 1) == "*") { incom = 1; i += 2; continue }
        if (c == "/" && substr(line, i + 1, 1) == "/") break
        out = out c; i++
    }
    return out
}
function resolve(dir, name,    c, k) {
    if (name ~ /^\//) { c = norm(name); return (c in exists) ? c : "" }
    if (dir != "") { c = norm(dir "/" name); if (c in exists) return c }
    for (k = 1; k <= nsearch; k++) { c = norm(S[k] "/" name); if (c in exists) return c }
    return ""
}
# A private header: internal.h, NAME_internal.h or NAME_int.h of a sub-folder of ROOT.
function is_private(t) {
    return t ~ /\/([A-Za-z0-9_]*_)?internal\.h$|_int\.h$/ && index(t, root "/") == 1 && dirname(t) != root
}
function add_module(m) { if (!(m in mid)) { mid[m] = ++nmod; mname[nmod] = m } return mid[m] }
# The folder-view node of a module: its sub-folder of ROOT, or its DIR, or itself (ROOT/x).
function node_of(m,    k, r, rest) {
    for (k = 1; k <= nsearch; k++) {
        r = S[k]
        if (r == ".") rest = m
        else if (index(m, r "/") == 1) rest = substr(m, length(r) + 2)
        else continue
        if (k > 1) return r "/"
        if (rest ~ /\//) { sub(/\/.*/, "", rest); return (r == "." ? "" : r "/") rest "/" }
        return m
    }
    return m
}
function add_node(x) { if (!(x in nid)) { nid[x] = ++nnode; nname[nnode] = x } return nid[x] }
# Translation phases 1 and 2 as gcc -std=c11 runs them: a trigraph ??= is #, ??/ is a
# backslash (the others change no directive), and a backslash at the end of a line (spaces after it
# too, as gcc allows) joins the next line. One logical line of f into LINE; its first physical
# line number into LN; 0 at the end.
function logical(f,    got, more, cont) {
    got = getline LINE < f
    if (got <= 0) return 0
    PHYS++; LN = PHYS
    while (1) {
        sub(/\r$/, "", LINE)
        if (index(LINE, "??")) { gsub(/\?\?=/, "#", LINE); gsub(/\?\?\//, "\\", LINE) }
        if (LINE !~ /\\[ \t]*$/) return 1
        sub(/\\[ \t]*$/, "", LINE)
        if ((getline more < f) <= 0) return 1
        PHYS++; LINE = LINE more
    }
}
# The header an #include, #include_next or #import names (%: is #, a digraph): "x.h" or
# <x.h> as written, or an object-like macro defined earlier in the file as one of those;
# "?" for a macro this check cannot follow; "" when the line is no such directive.
function header_of(line, f,    rest, m, k) {
    if (line !~ /^[ \t]*(#|%:)[ \t]*(include_next|include|import)([ \t"<]|$)/) return ""
    rest = line
    sub(/^[ \t]*(#|%:)[ \t]*(include_next|include|import)[ \t]*/, "", rest)
    for (k = 0; k < 8 && rest ~ /^[A-Za-z_][A-Za-z_0-9]*[ \t]*$/; k++) {
        sub(/[ \t]*$/, "", rest)
        if (!((f, rest) in macro)) return "?"
        rest = macro[f, rest]
    }
    if (rest ~ /^"[^"]*"/) { m = rest; sub(/^"/, "", m); sub(/".*/, "", m); return "\"" m }
    if (rest ~ /^<[^>]*>/) { m = rest; sub(/^</, "", m); sub(/>.*/, "", m); return "<" m }
    return "?"
}
# #define NAME value / #undef NAME: the object-like macros of f, for computed includes.
function define(line, f,    name, val) {
    if (line ~ /^[ \t]*(#|%:)[ \t]*undef[ \t]/) {
        name = line; sub(/^[ \t]*(#|%:)[ \t]*undef[ \t]+/, "", name); sub(/[^A-Za-z_0-9].*/, "", name)
        delete macro[f, name]; return
    }
    if (line !~ /^[ \t]*(#|%:)[ \t]*define[ \t]+[A-Za-z_][A-Za-z_0-9]*([ \t]|$)/) return
    name = line; sub(/^[ \t]*(#|%:)[ \t]*define[ \t]+/, "", name)
    val = name; sub(/[^A-Za-z_0-9].*/, "", name); sub(/^[A-Za-z_0-9]*[ \t]*/, "", val)
    sub(/[ \t]*$/, "", val)
    macro[f, name] = val
}
function scan(f,    line, inc, name, t, m, u, v, site, rm, text) {
    m = modname(f); u = add_module(m); incom = 0; PHYS = 0
    while (logical(f)) {
        line = LINE
        if (incom || index(line, "/*") || index(line, "//")) line = uncomment(line)
        if (line !~ /^[ \t]*(#|%:)/) continue
        define(line, f)
        inc = header_of(line, f)
        if (inc == "") continue
        text = line; gsub(/[ \t]+/, " ", text); sub(/^ /, "", text); sub(/ $/, "", text)
        site = f ":" LN ": " text
        if (inc == "?") { unverifiable[++nunver] = site; continue }
        name = substr(inc, 2)
        # "x.h": the folder of the including file first, then the search folders; <x.h>: the
        # search folders (-I) only, then the system folders (not ours: left out)
        t = substr(inc, 1, 1) == "<" ? resolve("", name) : resolve(dirname(f), name)
        if (t == "") { if (substr(inc, 1, 1) == "\"") unresolved[++nunres] = site; continue }
        if (!((f, t) in fedgef)) { fedgef[f, t] = 1; fadjf[f] = fadjf[f] " " t }
        rm = dirname(t)
        if (is_private(t)) {
            room_sites[t] = room_sites[t] "\n" site
            room_count[t]++
            if (index(f, rm "/") != 1) room_bad[++nroombad] = t "\t" site
        }
        if (modname(t) == m) continue
        v = add_module(modname(t))
        if (!((u, v) in medge)) { medge[u, v] = site; madj[u] = madj[u] " " v }
        else medge[u, v] = medge[u, v] "\n" site
    }
    close(f)
}
# The shortest way from node b back to node a in the folder view, as "b -> ... -> a".
function way_back(b, a,    q, head, tail, from, x, e, n, j, y, out) {
    head = 1; tail = 0; q[++tail] = b; from[b] = 0
    while (head <= tail && !(a in from)) {
        x = q[head++]; n = split(fadj[x], e, " ")
        for (j = 1; j <= n; j++) { y = e[j] + 0; if (!(y in from)) { from[y] = x; q[++tail] = y } }
    }
    if (!(a in from)) return nname[a]
    out = nname[a]
    for (x = from[a]; x; x = from[x]) out = nname[x] " -> " out
    return out
}
function indent(s) { gsub(/\n/, "\n      ", s); return s }
# The includes of the modules of circle c to each other, a line each (only those crossing a
# folder where across is 1).
function circle_edges(c, across,    u, n2, e, j, w, out) {
    for (u = 1; u <= nmod; u++) {
        if (mcomp[u] != c) continue
        n2 = split(madj[u], e, " ")
        for (j = 1; j <= n2; j++) {
            w = e[j] + 0
            if (mcomp[w] == c && (!across || dirname(mname[u]) != dirname(mname[w])))
                out = out "\n    " mname[u] " -> " mname[w] ": " indent(medge[u, w])
        }
    }
    return out
}
# The names of source files (.c, .h, .cu) in file f, of a comment or a doc, but in an include
# line of a source (the include check reads those) or written <x.h>: a path whose first folder is one of
# the project (a folder beside ROOT, or one of the sub-folders of ROOT) must be a file there
# (src/a/b.c, a/b.c, tests/t.c); a path of another project (sys/, linux/, an absolute one) is not read;
# a bare name (modes.c) must be the name of some file of the project, a system header, or
# one -O gives. One error each name and file.
function names_in(f,    line, ln, rest, pre, m, src) {
    src = is_source(f); ln = 0
    while ((getline line < f) > 0) {
        ln++; rest = line
        if (src && line ~ /^[ \t]*(#|%:)[ \t]*(include_next|include|import)/) continue
        while (match(rest, /[A-Za-z0-9_.\/-]*[A-Za-z0-9_]\.(cu|c|h)([^A-Za-z0-9_]|$)/)) {
            pre = RSTART > 1 ? substr(rest, RSTART - 1, 1) : ""
            m = substr(rest, RSTART, RLENGTH); sub(/[^A-Za-z0-9_]$/, "", m)
            rest = substr(rest, RSTART + length(m))
            if (pre != "<" && !name_ok(m) && !((f, m) in said)) {
                said[f, m] = 1; nmissing++; status = 1
                errors[++nerr] = "structure-check: error: " f ":" ln ": names " m ", which " \
                    (index(m, "/") ? "does not exist" : "no file of the project has (nor a system header; -O names outside ones)")
            }
        }
    }
    close(f)
}
function name_ok(m,    first, k) {
    if (m ~ /^\//) return 1
    sub(/^(\.\/)+/, "", m)
    if (m ~ /^\.\.\//) return 1
    if (!index(m, "/")) return (m in pbase)
    first = m; sub(/\/.*/, "", first)
    if (first in ptopdir) return ((ptopp m) in pfile)
    if (first in rootsub) {
        for (k = 1; k <= nsearch; k++) if ((S[k] "/" m) in exists) return 1
        return 0
    }
    return 1
}
# the project files (paths and names), the system headers and the names -O gives (after "--")
function read_ours(    line, after, n, p, r) {
    ptopp = root; sub(/[^\/]*$/, "", ptopp)
    while ((getline line < ours) > 0) {
        if (line == "--") { after = 1; continue }
        if (after) { pbase[line] = 1; continue }
        pfile[line] = 1; n = split(line, p, "/"); pbase[p[n]] = 1
        r = substr(line, length(ptopp) + 1)
        if (r ~ /\//) { sub(/\/.*/, "", r); ptopdir[r] = 1 }
        if (index(line, root "/") == 1) { r = substr(line, length(root) + 2); if (r ~ /\//) { sub(/\/.*/, "", r); rootsub[r] = 1 } }
    }
    close(ours)
}
# -M, what gcc saw. reach_from(x): every file x reaches over the includes this check read, into
# R (RP: the file that includes it on one shortest way, for chain()).
function reach_from(x,    q, head, tail, n, e, j, y) {
    split("", R); split("", RP)
    head = 1; tail = 0; q[++tail] = x; R[x] = 1
    while (head <= tail) {
        y = q[head++]; n = split(fadjf[y], e, " ")
        for (j = 1; j <= n; j++) if (!(e[j] in R)) { R[e[j]] = 1; RP[e[j]] = y; q[++tail] = e[j] }
    }
}
function chain(h,    out, x) { out = h; for (x = h; x in RP; ) { x = RP[x]; out = x " -> " out } return out }
# The first rule of a .d file (gcc -MMD: "OBJ: SOURCE HEADER... \" over lines) into DW[1..n]:
# DW[1] the source, the rest every header gcc read for it; 0 when d holds no such rule.
function dep_words(d,    line, all, got, cont) {
    all = ""; got = 0; cont = 0
    while ((getline line < d) > 0) {
        if (got && !cont) break
        if (!got) { if (index(line, ":") == 0) break; sub(/^[^:]*:/, "", line); got = 1 }
        cont = (line ~ /\\[ \t]*$/); sub(/\\[ \t]*$/, "", line); all = all " " line
    }
    close(d)
    return split(all, DW, " ")
}
# Each current .d of a source of ROOT or a DIR: every header of ROOT and the DIRs that gcc
# read for it must be reached from it by the includes this check read (else one was misread),
# no private header of another folder among them, and the edges gcc recorded (the module of
# the source -> the module of each header) give no circle and no back-arrow this check lacks.
function gcc_view(    d, n, k, x, h, u, v, a, b, c, site, way, names, nf, i, j, e, n2, w) {
    while ((getline d < deps) > 0) {
        n = dep_words(d)
        if (n == 0) {
            nbadd++; status = 1
            errors[++nerr] = "structure-check: error: " d ":1: no rule \"OBJECT: SOURCE HEADER...\" (not a dependency file of gcc -MMD)"
            continue
        }
        x = norm(DW[1])
        if (!((x in exists) && is_source(x))) { ndother++; continue }
        ndours++; reach_from(x); u = mid[modname(x)]
        for (k = 2; k <= n; k++) {
            h = norm(DW[k])
            if (!((h in exists) && is_source(h))) continue
            nheard++
            if (!(h in R)) {
                nmisread++; status = 1
                errors[++nerr] = "structure-check: error: " d ": gcc read " h " for " x \
                    ", which this check\047s reading of the includes does not reach from " x \
                    " (it misread an include of " h " in " x " or in a header gcc read for it; or the" \
                    " build added it: -include)"
            }
            # reached from outside its folder: a breach however far the way; one whose last
            # include is from outside the folder is said above already, at that include (rooms)
            if (is_private(h) && index(x, dirname(h) "/") != 1 &&
                !((h in RP) && index(RP[h], dirname(h) "/") != 1)) {
                ngprivate++; status = 1
                way = (h in R) ? chain(h) : "a way this check does not see"
                errors[++nerr] = "structure-check: error: " d ": " h " is private to " dirname(h) \
                    "/, but gcc read it for " x " (" way ")"
            }
            v = mid[modname(h)]
            if (v == u) continue
            site = d ": " x " read " h
            if (!((u, v) in gmedge)) { gmedge[u, v] = site; gmadj[u] = gmadj[u] " " v }
            a = nid[node_of(mname[u])]; b = nid[node_of(mname[v])]
            if (a != b && !((a, b) in gfedge)) { gfedge[a, b] = site; gfadj[a] = gfadj[a] " " b; ngfedge++ }
        }
    }
    close(deps)
    # circles of modules on the edges gcc recorded that the circles this check found do not hold
    nc = scc(nmod, gmadj, gmcomp)
    split("", gsize); split("", gmembers)
    for (v = 1; v <= nmod; v++) if (v in gmcomp) { c = gmcomp[v]; gsize[c]++; gmembers[c] = gmembers[c] " " v }
    for (c = 1; c <= nc; c++) {
        if (gsize[c] < 2) continue
        nf = split(gmembers[c], e, " "); names = ""; j = 0
        for (i = 1; i <= nf; i++) { names = names " " mname[e[i]]; if (mcomp[e[i]] != mcomp[e[1]]) j = 1 }
        if (!j) continue
        ngcirc++; status = 1
        msg = "structure-check: error: gcc\047s edges make a circle (not one of this check\047s): " sort_words(names)
        for (i = 1; i <= nf; i++) {
            u = e[i] + 0; n2 = split(gmadj[u], w, " ")
            for (k = 1; k <= n2; k++) if (gmcomp[w[k] + 0] == c) msg = msg "\n    " gmedge[u, w[k] + 0]
        }
        errors[++nerr] = msg
    }
    scc(nnode, gfadj, gfcomp)
    for (a = 1; a <= nnode; a++) {
        n2 = split(gfadj[a], e, " ")
        for (j = 1; j <= n2; j++) {
            b = e[j] + 0
            if (gfcomp[a] != gfcomp[b] || ((a, b) in fedge && fcomp[a] == fcomp[b])) continue
            ngback++; status = 1
            errors[++nerr] = "structure-check: error: gcc\047s edges make a back-arrow " nname[a] " -> " \
                nname[b] " (not one of this check\047s):\n    " gfedge[a, b]
        }
    }
}
function wrap(head, words,    a, n, i, line, out) {
    n = split(words, a, " "); line = head; out = ""
    for (i = 1; i <= n; i++) {
        if (length(line) + 1 + length(a[i]) > 100 && line != head) { out = out line "\n"; line = sprintf("%" length(head) "s", "") }
        line = line " " a[i]
    }
    return out line
}
{ exists[$0] = 1; files[++nfiles] = $0 }
END {
    nsearch = split(search, S, " ")
    for (k = 1; k <= nsearch; k++) S[k] = norm(S[k])
    root = S[1]
    for (k = 1; k <= nfiles; k++) if (is_source(files[k])) { scan(files[k]); srcmod[modname(files[k])] = 1 }
    status = 0

    # 1. circles of modules
    nc = scc(nmod, madj, mcomp)
    for (v = 1; v <= nmod; v++) { c = mcomp[v]; msize[c]++; mmembers[c] = mmembers[c] " " mname[v] }
    ncirc = 0; nacross = 0; circ_words = ""
    for (c = 1; c <= nc; c++) {
        if (msize[c] < 2) continue
        ncirc++
        names = sort_words(mmembers[c]); nf = split(names, mm, " ")
        folders = ""; split("", seenf)
        for (i = 1; i <= nf; i++) { d = dirname(mm[i]); if (!(d in seenf)) { seenf[d] = 1; folders = folders " " d } }
        folders = sort_words(folders)
        if (folders ~ / /) {
            nacross++; status = 1
            msg = "structure-check: error: a circle across folders (" folders "): " names "\n" \
                  "  its includes that cross a folder (cut one to break it):"
            msg = msg circle_edges(c, 1)
            errors[++nerr] = msg
            circ_words = circ_words "\n  across folders: " names
        } else {
            ninside++; status = 1
            msg = "structure-check: error: a circle inside " folders ": " names "\n" \
                  "  its includes (cut one: a private header names the public one\x27s types, or a shared part gets its own file):"
            msg = msg circle_edges(c, 0)
            errors[++nerr] = msg
            circ_words = circ_words "\n  inside " folders ": " names
        }
    }

    # 2. the folder view
    for (u = 1; u <= nmod; u++) {
        if (!(mname[u] in srcmod)) continue
        add_node(node_of(mname[u]))
    }
    for (u = 1; u <= nmod; u++) {
        n2 = split(madj[u], e, " ")
        for (j = 1; j <= n2; j++) {
            w = e[j] + 0
            a = add_node(node_of(mname[u])); b = add_node(node_of(mname[w]))
            if (a == b) continue
            site = mname[u] " -> " mname[w] ": " indent(medge[u, w])
            if (!((a, b) in fedge)) { fedge[a, b] = site; fadj[a] = fadj[a] " " b; nfedge++ }
            else fedge[a, b] = fedge[a, b] "\n    " site
        }
    }
    nfc = scc(nnode, fadj, fcomp)
    nback = 0
    for (a = 1; a <= nnode; a++) {
        n2 = split(fadj[a], e, " ")
        for (j = 1; j <= n2; j++) {
            b = e[j] + 0
            if (fcomp[a] == fcomp[b]) {
                nback++; status = 1
                errors[++nerr] = "structure-check: error: back-arrow " nname[a] " -> " nname[b] \
                    " (the cycle " nname[a] " -> " way_back(b, a) "):\n    " fedge[a, b]
            }
        }
    }
    # floors over the condensation: components complete sinks first, so one pass upwards
    nfloors = 0
    for (c = 1; c <= nfc; c++) fl[c] = 1
    for (c = 1; c <= nfc; c++) {
        for (a = 1; a <= nnode; a++) {
            if (fcomp[a] != c) continue
            n2 = split(fadj[a], e, " ")
            for (j = 1; j <= n2; j++) { d = fcomp[e[j] + 0]; if (d != c && fl[d] + 1 > fl[c]) fl[c] = fl[d] + 1 }
        }
        if (fl[c] > nfloors) nfloors = fl[c]
    }
    nfold = 0
    for (a = 1; a <= nnode; a++) { onfloor[fl[fcomp[a]]] = onfloor[fl[fcomp[a]]] " " nname[a]; if (nname[a] ~ /\/$/) nfold++ }
    nfolders = 0; split("", seenf)
    for (k = 1; k <= nfiles; k++) if (is_source(files[k])) { d = dirname(files[k]); if (!(d in seenf)) { seenf[d] = 1; nfolders++ } }

    # 3. includes this check cannot follow: a macro it cannot expand
    for (k = 1; k <= nunver; k++) {
        status = 1
        errors[++nerr] = "structure-check: error: " unverifiable[k] ": a computed include this " \
            "check cannot follow (name the header, or #define the macro as \"x.h\" in that file)"
    }

    # 4. rooms: the private header of a sub-folder stays inside its folder
    for (k = 1; k <= nroombad; k++) {
        split(room_bad[k], rb, "\t"); status = 1
        errors[++nerr] = "structure-check: error: " rb[1] " is private to " dirname(rb[1]) "/, but " rb[2]
    }

    # 5. names of source files in comments and docs
    read_ours()
    while ((getline nf < named) > 0) names_in(nf)
    close(named)

    # 6. what gcc saw: the dependency files of the build (-M)
    if (build != "" && dnote == "") gcc_view()

    nsrcmod = 0; for (m in srcmod) nsrcmod++
    label = root; for (k = 2; k <= nsearch; k++) label = label (k == 2 ? " (+ " : ", ") S[k] (k == nsearch ? ")" : "")
    print "structure-check: " label ": " nsrcmod " modules in " nfolders " folders; folder view: " \
        nnode " nodes (" nfold " folders), " nfedge " edges, " nfloors " floors, " nback " back-arrows"
    print "circles: " ncirc " (" nacross " across folders, " (ninside + 0) " inside one)" circ_words
    if (dnote != "") print dnote
    else if (build != "") {
        print "gcc\047s view (" build "): " (ndours + 0) " .d files of " label ", " (nheard + 0) \
            " headers read, " (nmisread + 0) " not reached by the includes read here, " (ngprivate + 0) \
            " private ones from outside their folder; " (ngfedge + 0) " folder-level edges (transitive), " \
            (ngback + 0) " back-arrows and " (ngcirc + 0) " circles of their own"
        print "gcc\047s view: " (ndother + 0) " .d files of other sources (tests, generated) not read, " nstale \
            " stale ones (a file they name is newer or gone: make rewrites them) skipped"
    }
    for (t in room_count) {
        inside = room_count[t] - 0
        for (k = 1; k <= nroombad; k++) { split(room_bad[k], rb, "\t"); if (rb[1] == t) inside-- }
        print "room: " t " included by " room_count[t] " files, " (room_count[t] - inside) " outside " dirname(t) "/"
    }
    if (nunres) {
        print "not found in " label " (left out of the graph):"
        for (k = 1; k <= nunres; k++) print "  " unresolved[k]
    }
    for (f = nfloors; f >= 1; f--) print wrap(sprintf("floor %2d:", f), sort_words(onfloor[f]))
    if (verbose) {
        print "folder-level edges:"
        for (a = 1; a <= nnode; a++) {
            n2 = split(fadj[a], e, " ")
            for (j = 1; j <= n2; j++) print "  " nname[a] " -> " nname[e[j] + 0] ":\n    " fedge[a, e[j] + 0]
        }
    }
    for (k = 1; k <= nerr; k++) print errors[k] > "/dev/stderr"
    if (status) print "structure-check: FAILED: " nacross " circles across folders, " (ninside + 0) \
        " inside one, " nback " back-arrows, " (nroombad + 0) " private headers included from outside, " \
        (nunver + 0) " includes not followed, " (nmissing + 0) " names of files that do not exist" \
        (build != "" && dnote == "" ? "; gcc\047s view: " (nmisread + 0) " headers not reached here, " (ngprivate + 0) \
        " private ones from outside, " (ngcirc + 0) " circles and " (ngback + 0) " back-arrows of its own, " \
        (nbadd + 0) " .d files not read" : "") > "/dev/stderr"
    else print "structure-check: ok"
    exit status
}' "$list"
