#!/bin/bash
# submain.sh: the held-out sub-agent tasks x3 on main (/work/main), beside fl-subheld
/work/evals/run_suite.sh /work/main /work/main/benchmarks/eval/subagents-held-out fl-subheld-main --suite subagents.json --repeat 3
