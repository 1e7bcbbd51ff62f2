#!/bin/bash
# run5.sh: first-reply screen of a rule asking for one short sentence, then the call (v5.json), main's code (evalwt1, no line)
CATS=bfcl:simple_python,multiple,parallel,live_simple,live_multiple,irrelevance
RG_FIRST_LINE= /work/evals/run_suite.sh /work/evalwt1 /work/evals/fl fl-v5 --suite $CATS --agents reactgraph --only "$(cat prose-ids.txt),$(cat irr-ids.txt)" --set 'reply_checks=[]' --set "system_prompt=$(cat v5.json)"
