#!/bin/bash
# neutral2.sh: a second control, the walkthrough with "with tools" reworded "using tools" in the system prompt's
# first line (evalwt1)
/work/evals/run_suite.sh /work/evalwt1 /work/evalwt1 fl-walk-using --suite walkthrough
