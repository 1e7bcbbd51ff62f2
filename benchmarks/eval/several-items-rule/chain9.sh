#!/bin/bash
# chain9.sh: after chain8, the parallel entries 130-199 whose question asks the same thing of several items (not
# 150-157, which the rule's words were made from): main (evalwt5) and the one-call-per-item rule for them (evalwt4)
until grep -q '^rc=' /work/evals/cl-walk/run.log 2>/dev/null; do sleep 20; done
IDS=$(cat /work/evals/several-held.txt)
/work/evals/run_suite.sh /work/evalwt5 /work/evalwt5 sev-base --suite bfcl:parallel --agents reactgraph --only "$IDS"
/work/evals/run_suite.sh /work/evalwt4 /work/evalwt4 sev-rule --suite bfcl:parallel --agents reactgraph --only "$IDS"
