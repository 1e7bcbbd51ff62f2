#!/bin/bash
# run4.sh: first-reply screen of a system prompt rule asking for the call alone (v4.json), main's code (evalwt1, no line)
CATS=bfcl:simple_python,multiple,parallel,live_simple,live_multiple,irrelevance
RG_FIRST_LINE= /work/evals/run_suite.sh /work/evalwt1 /work/evals/fl fl-v4 --suite $CATS --agents reactgraph --only "$(cat prose-ids.txt),$(cat irr-ids.txt)" --set 'reply_checks=[]' --set "system_prompt=$(cat v4.json)"
