#!/bin/bash
# chain8.sh: after label1.sh, the call-alone system rule's walkthrough twice more (evalwt2), then the call-alone
# text as a line after the question on a turn's first request only (evalwt3, question-line.patch)
until grep -q '^rc=' /work/evals/lb-walk/run.log 2>/dev/null; do sleep 20; done
/work/evals/run_suite.sh /work/evalwt2 /work/evalwt2 ca-walk-2 --suite walkthrough
/work/evals/run_suite.sh /work/evalwt2 /work/evalwt2 ca-walk-3 --suite walkthrough
RG_FIRST_LINE="If you call a tool, reply with the call alone: no code, no explanation." /work/evals/run_suite.sh /work/evalwt3 /work/evalwt3 cl-walk --suite walkthrough
