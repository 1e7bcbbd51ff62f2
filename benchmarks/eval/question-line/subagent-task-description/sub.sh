#!/bin/bash
# sub.sh: the sub-agent task's description changed (evalwt2): python-subagent x3, the held-out sub-agent tasks x3
/work/evals/run_suite.sh /work/evalwt2 /work/evalwt2 fl-sub-walk --suite walkthrough --only python-subagent --repeat 3
/work/evals/run_suite.sh /work/evalwt2 /work/main/benchmarks/eval/subagents-held-out fl-subheld --suite subagents.json --repeat 3
