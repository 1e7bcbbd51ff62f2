#!/bin/bash
# run.sh: first-reply screen of a line after the question (RG_FIRST_LINE), worktree evalwt1
CATS=bfcl:simple_python,multiple,parallel,live_simple,live_multiple,irrelevance
RG_FIRST_LINE= /work/evals/run_suite.sh /work/evalwt1 /work/evals/fl fl-v0-irr --suite $CATS --agents reactgraph --only "$(cat irr-ids.txt)" --set 'reply_checks=[]'
export RG_FIRST_LINE="Call the tool that does this now, or answer without a tool if none fits."
/work/evals/run_suite.sh /work/evalwt1 /work/evals/fl fl-L1 --suite $CATS --agents reactgraph --only "$(cat prose-ids.txt),$(cat irr-ids.txt)" --set 'reply_checks=[]'
