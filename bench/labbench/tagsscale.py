"""make bench-scale: the tag allocators of the patched tree on 1 to 256
simulated CPUs (bench/tags/scale.c on bench/kshim/rt-model.c), counting per
I/O the cache-line transfers, locked instructions, contended locks,
interrupt toggles and remote per-CPU memory they cost, and their memory.

The model counts, it does not time: the same seed gives the same figures
on any machine, whatever else runs.  Before the matrix, the model's
known-answer cases (bench/tags/model-check.c) must pass.

Topologies, as blk-mq has them:
- queue: one tag space per hardware queue, USERS CPUs mapped to it
  (1, 2, 4, 8, 32), POSSIBLE CPUs in the machine (up to 256): the other
  CPUs have their own queues and never touch this tag space;
- shared: one tag space for all POSSIBLE CPUs (host-wide shared tags);
each at depth 32, 64, 256, 1023 and 4096, 1, 4 or 32 I/Os in flight per
CPU, completed on the submitting CPU (self) or on one interrupt CPU per
queue (irq).  Plus the native benchmark's twins (2 CPUs, depth 8 to 1024,
4 in flight, self or other), for the rank agreement with its timings.

Writes OUT/scale.tsv (one row per scenario and allocator, as scale.c
prints them), OUT/model-check.tap, OUT/summary.json (schema tags-scale/1,
results/README.md) and OUT/summary.md.

usage: python3 -m labbench.tagsscale OUT --bin pool=BUILD [--bin NAME=BUILD]
       [--quick] [--seed N] [--native RUN]
"""
import argparse
import json
import pathlib
import subprocess
import sys
import threading
import time

from . import stats

SCHEMA = "tags-scale/1"
POSSIBLE = (1, 2, 4, 8, 16, 32, 64, 128, 256)
QUEUE_USERS = (1, 2, 4, 8, 32)
DEPTHS = (32, 64, 256, 1023, 4096)
INFLIGHT = (1, 4, 32)
COMPLETIONS = ("self", "irq")
TWIN_DEPTHS = (8, 32, 128, 1024)
BIG = (64, 128, 256)
METRICS = ("transfers", "transfers_read", "locked_rmw", "fences", "contended_locks",
           "irq_toggles", "remote_touches", "accesses", "nowait_fails")


def topologies(quick):
    possible = (2, 8, 64, 256) if quick else POSSIBLE
    out = [("queue", c, p) for c in QUEUE_USERS for p in possible if p >= c]
    out += [("shared", p, p) for p in possible if p >= 2]
    return out


def matrix(quick):
    """Scenario tuples: (topology, users, possible, depth, inflight, completion)."""
    depths = (32, 1023) if quick else DEPTHS
    out = [(t, u, p, d, q, c) for t, u, p in topologies(quick) for d in depths
           for q in INFLIGHT for c in COMPLETIONS]
    out += [("twin", 2, 2, d, 4, c) for d in TWIN_DEPTHS for c in ("self", "other")]
    return out


def run_model(binary, lines, progress):
    """Feed scenario lines to two processes (this machine's two cores), lines
    dealt alternately; returns the rows in the order of lines."""
    chunks = [lines[i::2] for i in range(2)]
    results = [None, None]

    def worker(i):
        proc = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        proc.stdin.write("".join(chunks[i]))
        proc.stdin.close()
        header = proc.stdout.readline().rstrip("\n").split("\t")
        rows = []
        for line in proc.stdout:
            rows.append(dict(zip(header, line.rstrip("\n").split("\t"))))
            progress()
        err = proc.stderr.read()
        if proc.wait():
            sys.exit(f"bench-scale: {binary} failed:\n{err}")
        results[i] = rows

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if None in results:
        sys.exit("bench-scale: a model process died")
    merged = []
    for i in range(max(len(c) for c in chunks)):
        for j in range(2):
            if i < len(results[j]):
                merged.append(results[j][i])
    return merged


def parse_row(raw, scenario):
    topo, users, possible, depth, inflight, completion = scenario
    row = {"alloc": raw["alloc"] if raw["alloc"] == "sbitmap" else raw["source"],
           "topology": topo, "users": users, "possible": possible, "depth": depth,
           "inflight": inflight, "completion": completion, "ios": int(raw["ios"])}
    row.update({m: float(raw[m]) for m in METRICS})
    row["memory"] = int(raw["mem_kmalloc"]) + int(raw["mem_percpu"])
    row["memory_percpu"] = int(raw["mem_percpu"])
    if int(raw["errors"]):
        sys.exit(f"bench-scale: errors in {row}")
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=pathlib.Path)
    ap.add_argument("--bin", action="append", required=True, metavar="NAME=BUILD")
    ap.add_argument("--quick", action="store_true", help="fewer CPU counts and depths")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ios", type=int, default=4000, help="I/Os measured per scenario")
    ap.add_argument("--native", type=pathlib.Path, help="a bench-tags-native run folder")
    args = ap.parse_args(argv)
    builds = [(n, pathlib.Path(b)) for n, _, b in (s.partition("=") for s in args.bin)]
    args.out.mkdir(parents=True, exist_ok=True)

    check = subprocess.run([str(builds[0][1] / "model-check")], capture_output=True, text=True)
    (args.out / "model-check.tap").write_text(check.stdout)
    print(check.stdout, end="")
    if check.returncode:
        sys.exit("bench-scale: the model's known-answer cases failed; not running it")

    scenarios = matrix(args.quick)
    runs = [("sbitmap", builds[0][1])] + [("pool", b) for _, b in builds]
    total = len(scenarios) * len(runs)
    print(f"bench-scale: {len(scenarios)} scenarios x {len(runs)} allocators, "
          f"{args.ios} I/Os each, seed {args.seed}; results in {args.out}", flush=True)
    done = [0]
    start = time.monotonic()
    lock = threading.Lock()

    def progress():
        with lock:
            done[0] += 1
            if done[0] % 100 == 0 or done[0] == total:
                el = time.monotonic() - start
                print(f"[{done[0]}/{total}] {el:.0f} s, about {el / done[0] * (total - done[0]):.0f} s "
                      "left", flush=True)

    rows = []
    for alloc, build in runs:
        lines = [f"{alloc} {p} {u} {d} {q} {c} {args.ios} {args.seed}\n"
                 for _, u, p, d, q, c in scenarios]
        raw = run_model(str(build / "scale"), lines, progress)
        rows += [parse_row(r, s) for r, s in zip(raw, scenarios)]
    header = list(rows[0])
    (args.out / "scale.tsv").write_text("\n".join(
        ["\t".join(header)] + ["\t".join(str(r[k]) for k in header) for r in rows]) + "\n")

    summary = summarize(args, rows, [a for a in dict.fromkeys(r["alloc"] for r in rows)], check)
    if args.native:
        summary["rank_agreement"] = rank_agreement(rows, args.native)
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    (args.out / "summary.md").write_text(markdown(summary))
    print(markdown(summary).split("\n## Every scenario")[0])


def key(r):
    return (r["topology"], r["users"], r["possible"], r["depth"], r["inflight"], r["completion"])


def summarize(args, rows, allocs, check):
    by = {(r["alloc"],) + key(r): r for r in rows}
    criteria = []
    for pool in allocs[1:]:
        criteria += judge(pool, rows, by)
    memory = []
    for possible in POSSIBLE:
        for pool in allocs:
            r = by.get((pool, "queue", 2, possible, 1023, 4, "self"))
            if r:
                memory.append({"alloc": pool, "possible": possible, "users": 2, "depth": 1023,
                               "bytes_per_tag_space": r["memory"],
                               "bytes_per_device": r["memory"] * 2 * max(1, possible // 2)})
    return {"schema": SCHEMA, "run": args.out.name, "seed": args.seed, "ios": args.ios,
            "quick": args.quick, "allocs": allocs,
            "model_check": {"tap": check.stdout.splitlines(), "passed": check.returncode == 0},
            "criteria": criteria, "memory": memory, "rows": rows}


def judge(pool, rows, by):
    """The redesign's aims, as pass/fail with the scenarios that miss them."""
    def sb(r):
        return by[("sbitmap",) + key(r)]

    mine = [r for r in rows if r["alloc"] == pool and r["topology"] != "twin"]
    local = [r for r in mine if r["completion"] == "self" and r["depth"] >= 4 * r["users"]
             and r["inflight"] * r["users"] <= r["depth"]]
    big = [r for r in mine if r["possible"] in BIG]
    plenty = [r for r in big if r["depth"] >= 2 * r["users"]]
    scarce = [r for r in big if r["depth"] < 2 * r["users"]]
    mem = [r for r in mine if (r["topology"], r["users"], r["possible"], r["depth"]) ==
           ("queue", 2, 256, 1023)]

    def miss(rs, ok, fmt):
        bad = [r for r in rs if not ok(r)]
        return {"scenarios": len(rs), "missed": len(bad),
                "examples": [fmt(r) for r in bad[:8]]}

    def name(r):
        return (f"{r['topology']} users={r['users']} possible={r['possible']} depth={r['depth']} "
                f"inflight={r['inflight']} {r['completion']}")

    def cmp(r):
        return f"{name(r)}: {r['transfers']:.3f} vs sbitmap {sb(r)['transfers']:.3f}"

    out = [
        dict(alloc=pool, aim="no transfer per I/O when each CPU completes its own I/Os and "
             "has at least 4 tags, its in-flight I/Os fitting its share",
             **miss(local, lambda r: r["transfers"] == 0,
                    lambda r: f"{name(r)}: {r['transfers']:.3f}")),
        dict(alloc=pool, aim="at 64, 128, 256 CPUs with at least 2 tags per allocating CPU: "
             "at most half of sbitmap's transfers",
             **miss(plenty, lambda r: r["transfers"] <= 0.5 * sb(r)["transfers"], cmp)),
        dict(alloc=pool, aim="at 64, 128, 256 CPUs with fewer tags: no more transfers than sbitmap",
             **miss(scarce, lambda r: r["transfers"] <= sb(r)["transfers"], cmp)),
        dict(alloc=pool, aim="memory at 256 possible CPUs, 2 per hardware queue, depth 1023: "
             "at most twice sbitmap's",
             **miss(mem, lambda r: r["memory"] <= 2 * sb(r)["memory"],
                    lambda r: f"{name(r)}: {r['memory']} vs sbitmap {sb(r)['memory']} bytes")),
    ]
    for c in out:
        c["passed"] = c["missed"] == 0
    return out


def rank_agreement(rows, native_run):
    """Spearman's rank correlation between the native benchmark's 2-thread
    ns per pair and the model's transfers per I/O in the twin scenarios."""
    native = json.loads((native_run / "summary.json").read_text())
    pairs = []
    for s in native["scenarios"]:
        if s["threads"] != 2:
            continue
        completion = "self" if s["mode"] == "same" else "other"
        for alloc, a in s["allocs"].items():
            m = [r for r in rows if r["alloc"] == alloc and r["topology"] == "twin" and
                 r["depth"] == s["depth"] and r["completion"] == completion]
            if m:
                pairs.append({"alloc": alloc, "mode": s["mode"], "depth": s["depth"],
                              "ns_per_pair": a["ns_per_pair"]["median"],
                              "transfers": m[0]["transfers"]})
    rho = stats.spearman([p["ns_per_pair"] for p in pairs], [p["transfers"] for p in pairs])
    return {"native_run": native_run.name, "spearman": rho, "pairs": pairs}


def markdown(s):
    lines = [f"# bench-scale: {s['run']}", "",
             f"Per I/O (one allocation and one free), {s['ios']} I/Os per scenario after "
             f"{s['ios'] // 4} to warm up, seed {s['seed']}. Counted on the model, not timed.", "",
             "Model check: " + ("all known-answer cases pass" if s["model_check"]["passed"]
                                else "FAILED"), "", "## Aims", ""]
    for c in s["criteria"]:
        lines.append(f"- {'PASS' if c['passed'] else 'MISS'} {c['alloc']}: {c['aim']} "
                     f"({c['scenarios'] - c['missed']} of {c['scenarios']} scenarios)")
        lines += [f"  - {e}" for e in c["examples"]]
    ra = s.get("rank_agreement")
    if ra:
        rho = "n/a" if ra["spearman"] is None else f"{ra['spearman']:.2f}"
        lines += ["", f"Rank agreement with {ra['native_run']} (2-thread ns/pair against the "
                  f"twin scenarios' transfers/I/O, {len(ra['pairs'])} pairs): Spearman {rho}."]
    lines += ["", "## Memory per tag space and per device (128 hardware queues at 256 CPUs, "
              "2 tag spaces each), depth 1023, 2 CPUs per queue", "",
              "| possible CPUs | " + " | ".join(s["allocs"]) + " |",
              "| --- |" + " --- |" * len(s["allocs"])]
    for p in POSSIBLE:
        cells = []
        for a in s["allocs"]:
            m = [x for x in s["memory"] if x["alloc"] == a and x["possible"] == p]
            cells.append(f"{m[0]['bytes_per_tag_space']} B ({m[0]['bytes_per_device'] / 1e6:.2f} MB)"
                         if m else "")
        if any(cells):
            lines.append(f"| {p} | " + " | ".join(cells) + " |")
    lines += ["", "## Every scenario: transfers per I/O (locked instructions per I/O)", "",
              "| topology | users | possible | depth | inflight | completion | " +
              " | ".join(s["allocs"]) + " |", "|" + " --- |" * (6 + len(s["allocs"]))]
    by = {(r["alloc"],) + key(r): r for r in s["rows"]}
    for k in dict.fromkeys(key(r) for r in s["rows"]):
        cells = []
        for a in s["allocs"]:
            r = by.get((a,) + k)
            cells.append(f"{r['transfers']:.3f} ({r['locked_rmw'] + r['fences']:.2f})" if r else "")
        lines.append("| " + " | ".join(str(x) for x in k) + " | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
