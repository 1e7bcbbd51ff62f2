#!/bin/bash
cd /work/evals/relevance
P2='Question: {question}

Tool: {name}: {description}

Can the question be answered with what this tool returns? Answer yes or no.'
P3='Question: {question}

Tool: {name}: {description}

Is this the wrong tool for the question, one that computes or finds something other than what is asked? Answer yes or no.'
P4='Decide whether a tool can answer a question.

Example: Question: What is the capital of France? Tool: calculate_area: Calculates the area of a rectangle. Answer: no
Example: Question: What is the area of a 3 by 4 rectangle? Tool: calculate_area: Calculates the area of a rectangle. Answer: yes

Question: {question}
Tool: {name}: {description}
Answer:'
for v in 2 3 4; do
  eval "P=\$P$v"
  flock /tmp/reactgraph-model.lock nice -n 5 /work/main/.venv/bin/python screen.py "$P" v$v.jsonl > v$v.log 2>&1
done
echo done > variants.done
