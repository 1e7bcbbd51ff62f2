#!/bin/bash
# run3.sh: the first reply alone on the 54 prose entries, the budget line on the first request (evalwt2)
/work/evals/run_suite.sh /work/evalwt2 /work/evals/screen prose2-n1 --suite bfcl:simple_python,multiple,parallel,live_simple,live_multiple \
    --agents reactgraph --only "$(cat /work/evals/screen/prose-ids.txt)" --set 'reply_checks=[]'
