#!/bin/sh
# readers-check: a folder of real logs (three runs, one cut short by SIGTERM, and two logs of a
# failed night: a Nano whose GPU cannot be used, one of them named to sort first) read by other
# tools as doc/log-format.md says: DuckDB over the folder with no options at all, pandas one log
# at a time with comment='#', the empty ones left out, then concat, and the shell line that
# concatenates logs safely (one header, no metadata) read by pandas with no options. Each must
# give every data row, the right row count per log, and numbers as numbers; compare and history
# show the failed night as a failed night. PyPI's pandas and duckdb are installed into
# build-tools/readers when python3 lacks them.
#   BIN=./transpose-bench
set -u
BIN=${BIN:-./transpose-bench}
case $BIN in */*) ;; *) BIN=./$BIN ;; esac
top=$(pwd)
py_path=$top/build-tools/readers
if ! PYTHONPATH=$py_path python3 -c 'import pandas, duckdb' 2>/dev/null; then
    echo "readers-check: installing pandas and duckdb (PyPI) into build-tools/readers"
    python3 -m pip install -q --disable-pip-version-check --target "$py_path" pandas duckdb ||
        { echo "readers-check: could not install pandas and duckdb: python3 -m pip install pandas duckdb"; exit 1; }
fi
T=$(mktemp -d /tmp/tb-readers-XXXXXX)
trap 'rm -rf "$T"' EXIT
tiny="--device cpu -b boards/generic.cfg --set power.source=none --set sweep.stop.min_time_ms=2 --quiet"
"$BIN" run $tiny --sizes 128x128,96x160 --kernels copy_row,blocked -o "$T/logs" || exit 1
sleep 1
"$BIN" run $tiny --sizes 128x128 --kernels copy_row,naive_row --set sweep.element=u8 -o "$T/logs" || exit 1
# a third run, cut short: its log ends '# end: interrupted by Terminated'
"$BIN" run $tiny --sizes 2048x2048 --kernels naive_row,blocked --set sweep.stop.min_time_ms=3000 -o "$T/logs" &
pid=$!
for _ in $(seq 100); do ls -a "$T/logs" | grep -q '\.part$' && break; sleep 0.1; done
sleep 2
kill -TERM "$pid"; wait "$pid"
# a failed night: the board has a GPU and no driver is here; its log has the header, 0 rows
TB_CUDA_LIB=/nonexistent/libcuda.so.1 "$BIN" run --quiet -b boards/jetson-nano.cfg --sizes 16x16 \
    --kernels copy_row --set power.source=none -o "$T/logs" 2>/dev/null
[ $? = 1 ] || { echo "readers-check: the failed night did not exit 1"; exit 1; }
failed=$(ls "$T"/logs/*_jetson-nano_*.csv.gz)
cp "$failed" "$T/logs/aaa_jetson-nano_20261101T000000Z.csv.gz"   # first in any glob
ls "$T"/logs/*.csv.gz | wc -l | grep -qx 5 || { echo "readers-check: expected 5 logs: $(ls -a "$T/logs")"; exit 1; }
# the safe concatenation of doc/log-format.md: one header, no metadata lines
zcat "$T"/logs/*.csv.gz | awk '!/^#/ && !(/^run_id,/ && seen++)' > "$T/all.csv"
# what each log holds, counted here without either tool
for f in "$T"/logs/*.csv.gz; do
    printf '%s %s\n' "$(basename "$f" .csv.gz)" "$(zcat "$f" | grep -v '^#' | tail -n +2 | wc -l)"
done > "$T/counts"
PYTHONPATH=$py_path python3 - "$T" <<'EOF'
import glob, sys
import duckdb, pandas as pd
t = sys.argv[1]
want = {l.split()[0]: int(l.split()[1]) for l in open(t + "/counts")}
want = {k: v for k, v in want.items() if v}   # a log of 0 rows is in no group
total = sum(want.values())
fails = 0
def check(label, ok, detail):
    global fails
    print(("ok   " if ok else "FAIL ") + label + ": " + detail)
    fails += not ok
numeric = ["rows", "cols", "gbps", "time_ms_median", "frac_copy", "elem_bytes"]

# DuckDB: the folder, no options
d = duckdb.sql(f"SELECT * FROM '{t}/logs/*.csv.gz'").df()
per = d.groupby("run_id").size().to_dict()
check("duckdb: SELECT * FROM 'logs/*.csv.gz'", per == want,
      f"{len(d)} rows, per log {per} (the logs hold {want})")
check("duckdb: numbers as numbers", all(pd.api.types.is_numeric_dtype(d[c]) for c in numeric),
      ", ".join(f"{c} {d[c].dtype}" for c in numeric))
check("duckdb: no metadata read as rows", not d["run_id"].astype(str).str.startswith("#").any(),
      "no run_id starts with '#'")
q = duckdb.sql(f"SELECT elem, kernel, max(gbps) FROM '{t}/logs/*.csv.gz' WHERE status = 'ok' "
               "GROUP BY ALL ORDER BY ALL").fetchall()
check("duckdb: a query across logs", len(q) >= 4, f"{len(q)} (element, kernel) groups: {q[:3]}...")

# pandas: one log at a time with comment='#' (a failed night's log too: its header, no rows),
# the empty ones left out (an empty frame has no dtypes and would make every column text),
# then concat
frames = [pd.read_csv(f, comment="#") for f in sorted(glob.glob(t + "/logs/*.csv.gz"))]
check("pandas: every log, a failed night's too, reads", all("gbps" in d.columns for d in frames),
      f"{len(frames)} logs, {sum(len(d) == 0 for d in frames)} of them empty")
p = pd.concat([d for d in frames if len(d)])
check("pandas: concat of the non-empty read_csv(f, comment='#')",
      p.groupby("run_id").size().to_dict() == want, f"{len(p)} rows")
check("pandas: numbers as numbers", all(pd.api.types.is_numeric_dtype(p[c]) for c in numeric),
      ", ".join(f"{c} {p[c].dtype}" for c in numeric))

# the shell concatenation, read by pandas with no options
a = pd.read_csv(t + "/all.csv")
check("pandas: read_csv of the awk concatenation, no options",
      a.groupby("run_id").size().to_dict() == want and
      all(pd.api.types.is_numeric_dtype(a[c]) for c in numeric), f"{len(a)} rows of {total}")
# and the way that is not safe, as the docs warn: zcat alone repeats the header
sys.exit(1 if fails else 0)
EOF
rc=$?
zcat "$T"/logs/*.csv.gz | grep -c '^run_id,' | grep -qx 5 &&
    echo "ok   plain 'zcat a b c' repeats the header 5 times (why the docs give the awk line)" ||
    { echo "FAIL the header count of plain zcat"; rc=1; }
# compare and history: the failed night is a failed night, with its reason, not an error
out=$("$BIN" compare "$T"/logs/*.csv.gz 2>&1); c=$?
if [ $c = 0 ] && printf '%s' "$out" | grep -q 'failed: the GPU cannot be used' &&
   ! printf '%s' "$out" | grep -q 'not a transpose-bench log'; then
    echo "ok   compare: the failed night listed with its reason, exit 0"
else echo "FAIL compare over the folder (exit $c): $out"; rc=1; fi
out=$("$BIN" history "$T"/logs/*.csv.gz 2>&1); c=$?
if [ $c = 1 ] && printf '%s' "$out" | grep -q 'the latest night of jetson-nano on'; then
    echo "ok   history: the Nano's latest night failed, said, exit 1"
else echo "FAIL history over the folder (exit $c): $out"; rc=1; fi
[ "$rc" = 0 ] && echo "readers-check: all passed" || echo "readers-check: FAILED"
exit "$rc"
