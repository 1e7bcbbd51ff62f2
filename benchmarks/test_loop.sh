#!/usr/bin/env bash
# The README's test command again and again, stopped at the first failing run (issue 42: "passes 20 times in a row
# under a parallel load"). Run it in a fresh clone with its venv active, beside whatever load you mean to test under:
#   git clone . /tmp/loopclone && cd /tmp/loopclone && python -m venv .venv && . .venv/bin/activate \
#     && pip install -e ".[dev]" && bash benchmarks/test_loop.sh /tmp/loop-logs
# Each run's output goes to LOGS/runN.log and one line per run (its time, the load average at its end, pytest's
# summary) to LOGS/loop.log. START=N numbers the next run N+1 (a series that an outside stop interrupted goes on).
LOGS=${1:-/tmp/test-loop}
mkdir -p "$LOGS"
export REACTGRAPH_TEST_POSTGRES=${REACTGRAPH_TEST_POSTGRES:-required}
i=${START:-0}
while true; do
  i=$((i+1)); start=$(date +%s); commit=$(git rev-parse --short HEAD)
  nice -n 19 python -m pytest -q -p no:cacheprovider > "$LOGS/run$i.log" 2>&1; rc=$?
  end=$(date +%s)
  echo "run $i commit $commit rc=$rc $((end-start))s load: $(cut -d' ' -f1-3 /proc/loadavg) $(tail -1 "$LOGS/run$i.log")" >> "$LOGS/loop.log"
  [ $rc -ne 0 ] && break
done
