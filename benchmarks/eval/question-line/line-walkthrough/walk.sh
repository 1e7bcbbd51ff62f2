#!/bin/bash
# walk.sh: the walkthrough with the line after the question (evalwt1)
export RG_FIRST_LINE="Call the tool that does this now, or answer without a tool if none fits."
/work/evals/run_suite.sh /work/evalwt1 /work/evalwt1 fl-walk --suite walkthrough
