#!/bin/bash
# run2.sh V...: the first reply alone on the 54 recorded entries whose default first reply was no call
for v in "$@"; do
  /work/evals/run_suite.sh /work/evalwt1 /work/evals/screen prose2-$v --suite bfcl:simple_python,multiple,parallel,live_simple,live_multiple \
    --agents reactgraph --only "$(cat /work/evals/screen/prose-ids.txt)" --set "system_prompt=$(cat /work/evals/screen/$v.json)" \
    --set 'reply_checks=[]'
done
