#!/bin/bash
# run.sh V...: the first reply alone (no checks, one iteration) on 40 never-run BFCL entries, per prompt variant
for v in "$@"; do
  /work/evals/run_suite.sh /work/evalwt1 /work/evals/screen screen-$v --suite bfcl:simple_python,multiple,live_simple,irrelevance \
    --agents reactgraph --offset 160 --limit 10 --set "system_prompt=$(cat /work/evals/screen/$v.json)" \
    --set limits.max_iterations=1 --set 'reply_checks=[]'
done
