"""A relevance question asked of the local model, screened on recorded pairs: (question, the tool it called) from
irrelevance entries (every call wrong) and (question, the right function) from simple_python, multiple, live_simple
and live_multiple entries (the check must say yes). One request each, temperature 0, through the llama.cpp server."""
import collections
import glob
import json
import os
import random
import sys
import time
import urllib.request

import bfcl_eval

D = os.path.dirname(bfcl_eval.__file__) + "/data/"
PROMPT = sys.argv[1] if len(sys.argv) > 1 else (
    "Question: {question}\n\nTool: {name}: {description}\n\n"
    "Does this tool do what the question asks (not only something on the same subject)? Answer yes or no.")
OUT = sys.argv[2] if len(sys.argv) > 2 else "/work/evals/relevance/v1.jsonl"

def rows(cat):
    return {json.loads(l)["id"]: json.loads(l) for l in open(D + f"BFCL_v4_{cat}.json")}

def question(r):
    return " ".join(m["content"] for m in r["question"][0] if m["role"] == "user")

def fn(r, name):
    return next(f for f in r["function"] if f["name"] == name)

pairs = []
irr = rows("irrelevance")
called = collections.defaultdict(set)
for f in glob.glob("/work/main/benchmarks/eval/**/bfcl.jsonl", recursive=True) + glob.glob("/work/evals/**/bfcl.jsonl", recursive=True):
    for l in open(f):
        r = json.loads(l)
        if r["id"].startswith("irrelevance_") and r.get("calls"):
            called[r["id"]] |= {c["name"] for c in r["calls"] if isinstance(c, dict) and c.get("name")}
for i in sorted(called, key=lambda x: int(x.split("_")[1])):
    for name in called[i]:
        try:
            f = fn(irr[i], name)
        except StopIteration:
            continue
        pairs.append(("irrelevance", i, question(irr[i]), f, False))
random.seed(7)
for cat in ["simple_python", "multiple", "live_simple", "live_multiple"]:
    rs = rows(cat)
    answers = {json.loads(l)["id"]: json.loads(l) for l in open(D + f"possible_answer/BFCL_v4_{cat}.json")}
    for i in random.sample(sorted(answers), 20):
        name = next(iter(answers[i]["ground_truth"][0]))
        try:
            pairs.append((cat, i, question(rs[i]), fn(rs[i], name), True))
        except StopIteration:
            pass
print(len(pairs), "pairs", flush=True)
out = open(OUT, "w")
start = time.time()
for n, (cat, i, q, f, relevant) in enumerate(pairs, 1):
    text = PROMPT.format(question=q, name=f["name"], description=f.get("description", ""))
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": text}], "temperature": 0, "max_tokens": 3}).encode()
    t = time.time()
    req = urllib.request.Request("http://127.0.0.1:8765/v1/chat/completions", body, {"Content-Type": "application/json"})
    reply = json.load(urllib.request.urlopen(req, timeout=120))["choices"][0]["message"]["content"]
    yes = reply.strip().lower().startswith("yes")
    out.write(json.dumps({"cat": cat, "id": i, "relevant": relevant, "reply": reply, "yes": yes, "s": time.time() - t}) + "\n"); out.flush()
    left = (time.time() - start) / n * (len(pairs) - n)
    print(f"{n}/{len(pairs)} {cat} {i} relevant={relevant} yes={yes} ({left:.0f} s left)", flush=True)
