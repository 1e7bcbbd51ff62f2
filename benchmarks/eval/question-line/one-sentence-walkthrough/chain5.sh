#!/bin/bash
# chain5.sh: after the screen (fl-v5), the walkthrough with the one-sentence rule in the default system prompt
# (evalwt1); at 18/19 or better, BFCL 140-147 (held out), a never-run slice 170-177 beside the bare model, the suite
until grep -q '^rc=' /work/evals/fl-v5/run.log 2>/dev/null; do sleep 20; done
/work/evals/run_suite.sh /work/evalwt1 /work/evalwt1 fl-walk5 --suite walkthrough
right=$(grep -oE 'correct [0-9]+/19' /work/evals/fl-walk5/run.log | grep -oE '[0-9]+' | head -1)
echo "walkthrough right: $right"
[ "${right:-0}" -ge 18 ] || exit 0
/work/evals/run_suite.sh /work/evalwt1 /work/evalwt1 fl5-140 --suite bfcl:simple_python,multiple,live_simple,irrelevance --offset 140 --limit 8 --agents reactgraph
/work/evals/run_suite.sh /work/evalwt1 /work/evalwt1 fl5-170 --suite bfcl:simple_python,multiple,parallel,live_simple,live_multiple,irrelevance --offset 170 --limit 8 --agents reactgraph,bare
/work/evals/run_suite.sh /work/evalwt1 /work/evalwt1 fl5-suite
