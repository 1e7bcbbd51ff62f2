#!/bin/bash
# neutral.sh: the walkthrough with a wording change that asks nothing new ("that answers" -> "who answers", evalwt1),
# then main's walkthrough again
/work/evals/run_suite.sh /work/evalwt1 /work/evalwt1 fl-walk-who --suite walkthrough
/work/evals/run_suite.sh /work/main /work/main fl-walk-main --suite walkthrough
