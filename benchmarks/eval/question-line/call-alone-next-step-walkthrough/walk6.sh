#!/bin/bash
# walk6.sh: the walkthrough with the call-alone rule and "After each result, call the tool for the next step the
# question asks, or reply with the answer." in the default system prompt (evalwt1)
/work/evals/run_suite.sh /work/evalwt1 /work/evalwt1 fl-walk6 --suite walkthrough
