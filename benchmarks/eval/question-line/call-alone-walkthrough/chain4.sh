#!/bin/bash
# chain4.sh: after the walkthrough gate (18/19 or better), the call-alone rule on BFCL 140-147 (held out), on a
# never-run slice 170-177 beside the bare model, then the suite
until grep -q '^rc=' /work/evals/fl-walk4/run.log 2>/dev/null; do sleep 20; done
right=$(grep -oE 'correct [0-9]+/19' /work/evals/fl-walk4/run.log | grep -oE '[0-9]+' | head -1)
echo "walkthrough right: $right"
[ "${right:-0}" -ge 18 ] || exit 0
/work/evals/run_suite.sh /work/evalwt1 /work/evalwt1 fl-140 --suite bfcl:simple_python,multiple,live_simple,irrelevance --offset 140 --limit 8 --agents reactgraph
/work/evals/run_suite.sh /work/evalwt1 /work/evalwt1 fl-170 --suite bfcl:simple_python,multiple,parallel,live_simple,live_multiple,irrelevance --offset 170 --limit 8 --agents reactgraph,bare
/work/evals/run_suite.sh /work/evalwt1 /work/evalwt1 fl-suite
