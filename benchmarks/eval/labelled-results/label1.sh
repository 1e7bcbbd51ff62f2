#!/bin/bash
# label1.sh: the native format's results labelled with their calls after a reply of several calls (evalwt1)
/work/evals/run_suite.sh /work/evalwt1 /work/evalwt1 lb-sub-walk --suite walkthrough --only python-subagent --repeat 3
/work/evals/run_suite.sh /work/evalwt1 /work/main/benchmarks/eval/subagents-held-out lb-subheld --suite subagents.json --repeat 3
/work/evals/run_suite.sh /work/evalwt1 /work/evalwt1 lb-walk --suite walkthrough
