#!/bin/sh
# The learner's mean-square spread (#49) on the lent GPU: five runs of
# conf/energy-check.cfg back to back into one folder; per row the ratio, the cycles' interval,
# the rerun interval, the runs it learned from, capped, note; the meta lines a row rests on.
set -u
B="env LD_LIBRARY_PATH=gpu-rms gpu-rms/transpose-bench"
S=$OUT/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,power.limit,temperature.gpu,clocks.max.sm --format=csv; $B --version; } > $S 2>&1
for i in 1 2 3 4 5; do
  t0=$(date +%s)
  $B run --device cuda -b boards/desktop-nvml.cfg -c conf/energy-check.cfg -o /tmp/ec > "$OUT/run-$i.txt" 2>&1
  rc=$?; (cd /tmp && tar czf $OUT/logs.tgz ec)
  echo "run $i: exit $rc after $(( $(date +%s) - t0 )) s, $(nvidia-smi --query-gpu=temperature.gpu,power.draw --format=csv,noheader)" >> $S
done
cat $OUT/run-*.txt > $OUT/runs.txt; rm -f $OUT/run-*.txt
(cd /tmp && tar czf $OUT/logs.tgz ec)
python3 - >> $S <<'PY'
import csv, glob, gzip, io
for f in sorted(glob.glob('/tmp/ec/*.csv.gz')):
    lines = gzip.open(f, 'rt').read().splitlines()
    meta = [l for l in lines if l.startswith('# ') and l.split(':')[0][2:] in ('power_cadence', 'power_rerun', 'device_id', 'power_plan')]
    print(f.split('/')[-1]); [print('  ' + m[:300]) for m in meta]
    rows = list(csv.DictReader(io.StringIO('\n'.join(l for l in lines if not l.startswith('#')))))
    for r in rows:
        if r.get('energy_ratio'):
            print('  %-8s %-6s ratio %s ci %s rerun %s runs %s capped %s W? note %s' % (r['kernel'], r['block_x'] + 'x' + r['block_y'], r['energy_ratio'], r.get('energy_ratio_ci95'), r.get('energy_ratio_rerun_ci95'), r.get('rerun_runs'), r.get('power_capped_blocks'), r.get('power_note', '')[:160]))
PY
