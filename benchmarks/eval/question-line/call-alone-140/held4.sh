#!/bin/bash
# held4.sh: the call-alone rule in the default system prompt (evalwt1), the whole loop on BFCL 140-147 (held out;
# main's run of it: ../budget-line-first-request/base-140)
/work/evals/run_suite.sh /work/evalwt1 /work/evalwt1 fl4-140 --suite bfcl:simple_python,multiple,live_simple,irrelevance --offset 140 --limit 8 --agents reactgraph
