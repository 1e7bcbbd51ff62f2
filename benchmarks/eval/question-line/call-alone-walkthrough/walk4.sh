#!/bin/bash
# walk4.sh: the walkthrough with the call-alone rule in the default system prompt (evalwt1)
/work/evals/run_suite.sh /work/evalwt1 /work/evalwt1 fl-walk4 --suite walkthrough
