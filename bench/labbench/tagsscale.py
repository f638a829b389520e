"""make bench-scale: the tag allocators of the patched tree on 1 to 256
simulated CPUs (bench/tags/scale.c on bench/kshim/rt-model.c), counting per
I/O the cache-line misses they cost (by class, and weighted by where the
line comes from for one socket and for two), the tasks they wake, their
accesses and locked instructions, and their memory.

The model counts, it does not time: the same seed gives the same figures
on any machine, whatever else runs.  Before the matrix, the model's
known-answer cases (bench/tags/model-check.c) must pass.

Settings (contention levels): every miss scenario runs at each QUANTUM
(the mean accesses a simulated CPU makes before another may run: 4, 64,
256) and each duty cycle (100 %: the CPUs do nothing but allocate and
free; 10 %: after each I/O a CPU makes THINK private accesses, THINK =
9 x sbitmap's accesses per I/O in the same scenario at the same quantum
and 100 %, the same THINK for every allocator: so sbitmap spends 10 % of
its accesses in the allocator).

Scenarios, as blk-mq has them (one possible-CPU count per users count for
the misses, every count for memory):
- queue: one tag space per hardware queue, USERS CPUs mapped to it (1, 2,
  4, 8, 32) of 256 possible CPUs; the other CPUs have queues of their own;
- shared: one tag space for all USERS = POSSIBLE CPUs (2 to 256), shared by
  4 request queues (2 at 2 CPUs), each held to its fair share
  (hctx_may_queue()); at 64 CPUs and more also by one queue (no fair share);
- batch: queue at 8 and 32 CPUs, taking and freeing 8 tags per call
  (blk_mq_get_tags(), blk_mq_put_tags());
each at depth 32, 64, 256, 1023 and 4096 (batch: 64, 256, 1023), 1, 4 or
32 I/Os in flight per CPU (batch: 4, 32), completed on the submitting CPU
(self) or on one interrupt CPU (irq).  Plus the native benchmark's twins
(2 CPUs, depth 8 to 1024, 4 in flight, self or other) at quantum 4 and 100
%, memory rows for every other possible-CPU count of the queue topology,
and seeds 2 and 3 of a subset (the spread between seeds).

Device time: the model completes an I/O as soon as the completing CPU
runs, so with irq completion that CPU's speed alone sets the I/O rate, and
an allocator that takes tags faster than that CPU frees them runs out of
tags and sleeps where a slower one does not.  Every irq scenario is run
again at duty 100 % with DEVICE_ACCESSES private accesses on the
completing CPU before each completion (a device with a rate of its own),
kind "device"; the summary counts, per setting, where each pool counts no
more than sbitmap with and without it.  Not an aim: a view of what the
aims' irq scenarios measure.

A shallow depth: kyber and bfq hold async I/O to part of the tags
(blk_mq_alloc_data.shallow_depth; sbitmap_queue_get_shallow() against
percpu_tag_alloc_limited()).  Kind "shallow": shared tags with one queue,
SHALLOW_USERS CPUs, depths SHALLOW_DEPTHS, 4 or 32 in flight, self or irq,
at duty 100 % and every quantum, the odd CPUs held to half the depth; the
summary counts, per setting, where each pool counts no more than sbitmap,
with the sums and the mean fairness.  Not an aim: a view of the limited
path.

The aims (AIMS below) are judged per setting and per socket count, on the
weighted misses; a scenario where both allocators count nothing passes and
is counted apart.

Writes OUT/scale.tsv (one row per scenario, setting, seed and allocator),
OUT/model-check.tap, OUT/summary.json (schema tags-scale/2,
results/README.md) and OUT/summary.md.

usage: python3 -m labbench.tagsscale OUT --bin pool=BUILD [--bin NAME=BUILD]
       [--quick] [--seed N] [--ios N] [--native RUN] [--jobs N]
"""
import argparse
import json
import os
import pathlib
import queue as queues_mod
import subprocess
import sys
import threading
import time

from . import stats

SCHEMA = "tags-scale/2"
POSSIBLE = (1, 2, 4, 8, 16, 32, 64, 128, 256)
QUEUE_USERS = (1, 2, 4, 8, 32)
SHARED_USERS = (2, 4, 8, 16, 32, 64, 128, 256)
SHARED_QUEUES = 4
DEPTHS = (32, 64, 256, 1023, 4096)
INFLIGHT = (1, 4, 32)
COMPLETIONS = ("self", "irq")
BATCH = 8
BATCH_USERS = (8, 32)
BATCH_DEPTHS = (64, 256, 1023)
BATCH_INFLIGHT = (4, 32)
TWIN_DEPTHS = (8, 32, 128, 1024)
QUANTA = (4, 64, 256)
DUTIES = (100, 10)
BIG = 64
SEEDS_MORE = (2, 3)
MEMORY_IOS = 200
DEVICE_ACCESSES = 256
SHALLOW_USERS = (8, 64, 256)
SHALLOW_DEPTHS = (64, 256)
SHALLOW_INFLIGHT = (4, 32)
LINE = 64           # bytes: the floor is one line per allocating CPU
METRICS = ("misses", "miss_c2c", "miss_reread", "miss_cold", "miss_upgrade",
           "invalidations", "wmiss_1n", "wmiss_2n", "wakeups", "transfers", "transfers_read",
           "locked_rmw", "fences", "contended_locks", "irq_toggles", "remote_touches",
           "accesses", "nowait_fails", "wmiss_blk_1n", "wmiss_blk_2n")
# Weights of a miss (bench/kshim/runtime.h's KSHIM_W_*, in hits of the last level).
WEIGHTS = {"llc": 1.0, "local_c2c": 2.0, "remote": 4.5, "remote_c2c": 5.5, "memory": 4.0}
NODE_METRIC = {1: "wmiss_1n", 2: "wmiss_2n"}
BLK_METRIC = {1: "wmiss_blk_1n", 2: "wmiss_blk_2n"}
KEY = ("topology", "users", "possible", "depth", "inflight", "completion", "queues", "batch")


def matrix(quick):
    """The miss scenarios: dicts of KEY."""
    queue_users = (1, 8) if quick else QUEUE_USERS
    shared_users = (8, 64, 256) if quick else SHARED_USERS
    depths = (32, 1023) if quick else DEPTHS
    inflight = (4, 32) if quick else INFLIGHT
    out = []

    def add(topology, users, possible, depth, q, completion, nq=1, batch=1):
        out.append(dict(zip(KEY, (topology, users, possible, depth, q, completion, nq, batch))))

    for u in queue_users:
        for d in depths:
            for q in inflight:
                for c in COMPLETIONS:
                    if not (u == 1 and c == "irq"):     # one CPU completes its own
                        add("queue", u, max(POSSIBLE), d, q, c)
    for u in shared_users:
        for d in depths:
            for q in inflight:
                for c in COMPLETIONS:
                    add("shared", u, u, d, q, c, min(SHARED_QUEUES, u))
                    if u >= BIG:
                        add("shared", u, u, d, q, c)
    if not quick:
        for u in BATCH_USERS:
            for d in BATCH_DEPTHS:
                for q in BATCH_INFLIGHT:
                    for c in COMPLETIONS:
                        add("batch", u, max(POSSIBLE), d, q, c, 1, BATCH)
    return out


def twins():
    return [dict(zip(KEY, ("twin", 2, 2, d, 4, c, 1, 1)))
            for d in TWIN_DEPTHS for c in ("self", "other")]


def memory_scenarios(quick):
    """The queue topology at every other possible-CPU count, for memory."""
    depths = (32, 1023) if quick else DEPTHS
    return [dict(zip(KEY, ("queue", u, p, d, 1, "self", 1, 1)))
            for u in ((1, 8) if quick else QUEUE_USERS)
            for p in POSSIBLE if u <= p < max(POSSIBLE) for d in depths]


def seed_scenarios(quick):
    """The subset run with more seeds."""
    return [dict(zip(KEY, ("shared", u, u, d, 4, c, SHARED_QUEUES, 1)))
            for u in ((64,) if quick else (64, 256)) for d in (32, 1023) for c in COMPLETIONS]


def shallow_scenarios(quick):
    """Shared tags, one queue, the odd CPUs held to half the depth."""
    return [dict(zip(KEY, ("shared", u, u, d, q, c, 1, 1)))
            for u in ((8, 64) if quick else SHALLOW_USERS) for d in SHALLOW_DEPTHS
            for q in SHALLOW_INFLIGHT for c in COMPLETIONS]


def settings(quick):
    return [(q, d) for d in DUTIES for q in ((4, 64) if quick else QUANTA)]


def settings_name(quantum, duty):
    return f"q={quantum} duty={duty}%"


class Runner:
    """Scenario lines run on JOBS persistent model processes per binary,
    handed out one at a time, the costliest first."""

    def __init__(self, jobs, total_hint):
        self.jobs = jobs
        self.done = 0
        self.total = total_hint
        self.start = time.monotonic()
        self.lock = threading.Lock()

    def run(self, work):
        """WORK: (binary, line) pairs; returns the raw rows in that order."""
        order = sorted(range(len(work)), key=lambda i: -cost(work[i][1]))
        todo = queues_mod.Queue()
        for i in order:
            todo.put(i)
        results = [None] * len(work)
        failures = []

        def worker():
            procs = {}
            try:
                while not failures:
                    try:
                        i = todo.get_nowait()
                    except queues_mod.Empty:
                        return
                    binary, line = work[i]
                    if binary not in procs:
                        procs[binary] = start_model(binary)
                    proc, header = procs[binary]
                    began = time.monotonic()
                    proc.stdin.write(line)
                    proc.stdin.flush()
                    out = proc.stdout.readline()
                    if not out:
                        failures.append(f"{binary} died on: {line}{proc.stderr.read()}")
                        return
                    results[i] = dict(zip(header, out.rstrip("\n").split("\t")))
                    results[i]["seconds"] = time.monotonic() - began
                    self.progress()
            finally:
                for proc, _ in procs.values():
                    proc.stdin.close()
                    proc.wait()

        threads = [threading.Thread(target=worker) for _ in range(self.jobs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if failures or None in results:
            sys.exit("bench-scale: " + (failures[0] if failures else "a model process died"))
        return results

    def progress(self):
        with self.lock:
            self.done += 1
            if self.done % 200 == 0:
                el = time.monotonic() - self.start
                left = max(self.total - self.done, 0)
                print(f"[{self.done}/~{self.total}] {el:.0f} s, about "
                      f"{el / self.done * left:.0f} s left", flush=True)


def start_model(binary):
    proc = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, bufsize=1)
    return proc, proc.stdout.readline().rstrip("\n").split("\t")


def cost(line):
    """A rough relative cost of a scenario line, for the order of work."""
    f = line.split()
    users, inflight, quantum, think = int(f[2]), int(f[4]), int(f[8]), int(f[9])
    return users * (inflight + 8) * (1 + think / (4 * quantum + 50)) * (1 + 16 / quantum)


def scenario_line(alloc, s, ios, seed, quantum, think, device, shallow):
    return (f"{alloc} {s['possible']} {s['users']} {s['depth']} {s['inflight']} "
            f"{s['completion']} {ios} {seed} {quantum} {think} {s['queues']} {s['batch']} "
            f"{device} {shallow}\n")


def parse_row(raw, s, extra):
    row = {"alloc": raw["alloc"] if raw["alloc"] == "sbitmap" else raw["source"]}
    row.update(s)
    row.update(extra)
    row["ios"] = int(raw["ios"])
    row.update({m: float(raw[m]) for m in METRICS})
    row["warmed"] = int(raw["warmed"])
    row["starved"] = int(raw["starved"])
    row["fairness"] = float(raw["fairness"])
    row["memory"] = int(raw["mem_kmalloc"]) + int(raw["mem_percpu"])
    row["memory_percpu"] = int(raw["mem_percpu"])
    row["seconds"] = round(raw["seconds"], 3)
    if int(raw["errors"]):
        sys.exit(f"bench-scale: errors in {row}")
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=pathlib.Path)
    ap.add_argument("--bin", action="append", required=True, metavar="NAME=BUILD")
    ap.add_argument("--quick", action="store_true",
                    help="fewer scenarios, quanta 4 and 64")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ios", type=int, default=4000, help="I/Os measured per scenario")
    ap.add_argument("--native", type=pathlib.Path, help="a bench-tags-native run folder")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="model processes at once (default: the cores)")
    args = ap.parse_args(argv)
    builds = [(n, pathlib.Path(b)) for n, _, b in (s.partition("=") for s in args.bin)]
    args.out.mkdir(parents=True, exist_ok=True)

    check = subprocess.run([str(builds[0][1] / "model-check")], capture_output=True, text=True)
    (args.out / "model-check.tap").write_text(check.stdout)
    print(check.stdout, end="")
    if check.returncode:
        sys.exit("bench-scale: the model's known-answer cases failed; not running it")

    runs = [("sbitmap", str(builds[0][1] / "scale"))] + [
        ("pool", str(b / "scale")) for _, b in builds]
    # Pools older than the series split for review take no shallow depth.
    shallow_ok = {b for a, b in runs if subprocess.run(
        [b], input=f"{a} 2 2 8 1 self 10 1 4 0 1 1 0 4\n", capture_output=True,
        text=True).returncode == 0}
    scen = matrix(args.quick)
    sets = settings(args.quick)
    full = [x for x in sets if x[1] == 100]
    part = [x for x in sets if x[1] != 100]
    first = [(s, q, 100, 0, args.seed, "main") for s in scen for q, _ in full]
    first += [(s, 4, 100, 0, args.seed, "twin") for s in twins()]
    first += [(s, 64, 100, 0, args.seed, "memory") for s in memory_scenarios(args.quick)]
    first += [(s, q, 100, 0, seed, "seeds") for s in seed_scenarios(args.quick)
              for q in (4, 64) for seed in SEEDS_MORE]
    first += [(s, q, 100, 0, args.seed, "device") for s in scen if s["completion"] == "irq"
              for q, _ in full]
    first += [(s, q, 100, 0, args.seed, "shallow") for s in shallow_scenarios(args.quick)
              for q, _ in full]
    total = (len(first) + len(scen) * len(part)) * len(runs)
    print(f"bench-scale: {len(scen)} scenarios x {len(sets)} settings "
          f"({', '.join(settings_name(*x) for x in sets)}) x {len(runs)} allocators, "
          f"{args.ios} I/Os each, seed {args.seed}, with twins, memory rows and seeds "
          f"{', '.join(map(str, SEEDS_MORE))} of a subset, irq scenarios with device time, "
          f"shallow-depth scenarios: "
          f"about {total} runs on "
          f"{args.jobs} processes; results in {args.out}", flush=True)
    runner = Runner(args.jobs, total)

    def run_phase(jobs):
        work, meta = [], []
        for s, q, duty, think, seed, kind in jobs:
            ios = MEMORY_IOS if kind == "memory" else args.ios
            device = DEVICE_ACCESSES if kind == "device" else 0
            shallow = s["depth"] // 2 if kind == "shallow" else 0
            for alloc, binary in runs:
                if kind == "shallow" and binary not in shallow_ok:
                    continue
                work.append((binary, scenario_line(alloc, s, ios, seed, q, think, device,
                                                   shallow)))
                meta.append((s, {"quantum": q, "duty": duty, "think": think, "device": device,
                                 "shallow": shallow, "seed": seed, "kind": kind,
                                 "ios_asked": ios}))
        return [parse_row(raw, s, extra) for raw, (s, extra) in zip(runner.run(work), meta)]

    rows = run_phase(first)
    # Duty below 100 %: THINK from sbitmap's accesses at the same quantum and 100 %.
    sb = {(skey(r), r["quantum"]): r["accesses"] for r in rows
          if r["alloc"] == "sbitmap" and r["kind"] == "main"}
    rows += run_phase([(s, q, duty, round(sb[(skey(s), q)] * (100 - duty) / duty),
                        args.seed, "main") for s in scen for q, duty in part])

    header = list(rows[0])
    (args.out / "scale.tsv").write_text("\n".join(
        ["\t".join(header)] + ["\t".join(str(r[k]) for k in header) for r in rows]) + "\n")
    allocs = list(dict.fromkeys(r["alloc"] for r in rows))
    summary = summarize(args, rows, allocs, check, sets)
    summary["elapsed_s"] = round(time.monotonic() - runner.start)
    if args.native:
        summary["native"] = native_counts(args.native)
        summary["rank_agreement"] = rank_agreement(rows, args.native)
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    md = markdown(summary)
    (args.out / "summary.md").write_text(md)
    print(md.split("\n## Every scenario")[0])


def skey(r):
    return tuple(r[k] for k in KEY)


def setting_of(r):
    return (r["quantum"], r["duty"])


def name(r):
    extra = ""
    if r["topology"] == "shared":
        extra = f" queues={r['queues']}"
    elif r["topology"] == "batch":
        extra = f" batch={r['batch']}"
    return (f"{r['topology']} users={r['users']} possible={r['possible']} depth={r['depth']} "
            f"inflight={r['inflight']} {r['completion']}{extra}")


def is_local(r):
    """The local path: each CPU completes its own I/Os, holds at least 4
    tags and its in-flight I/Os fit its share; and no CPU shares a request
    queue's count of active requests (the fair share's, which blk-mq
    writes on every I/O whichever allocator it uses)."""
    return (r["completion"] == "self" and r["depth"] >= 4 * r["users"]
            and r["inflight"] * r["users"] <= r["depth"]
            and (r["queues"] == 1 or r["users"] <= r["queues"]))


def is_big_plenty(r):
    return (r["completion"] == "self" and r["topology"] == "shared" and r["users"] >= BIG
            and r["depth"] >= 2 * r["users"])


def is_scarce(r):
    return r["depth"] < 2 * r["users"]


# The aims the pool is judged by, per setting: which scenarios, what is
# compared ("wmiss" is the weighted misses of the socket count judged), and
# the test of the pool's figure p against sbitmap's s.
AIMS = [
    {"id": "a", "metric": "misses", "per_nodes": False,
     "aim": "no miss per I/O on the local path (self completion, at least 4 tags per "
            "allocating CPU, the in-flight I/Os fitting the share, no request queue's count "
            "shared by CPUs)",
     "select": is_local, "test": lambda p, s: p == 0, "rule": "= 0"},
    {"id": "b", "metric": "wmiss", "per_nodes": True,
     "aim": "self completion, shared tags with at least 64 CPUs using them, at least 2 tags "
            "per CPU: at most half of sbitmap's weighted misses per I/O",
     "select": lambda r: is_big_plenty(r) and not is_local(r),
     "test": lambda p, s: p <= 0.5 * s, "rule": "<= 0.5 x sbitmap"},
    {"id": "c", "metric": "wmiss", "per_nodes": True,
     "aim": "every other scenario (irq completion, scarce tags, 256 CPUs on 32 tags, "
            "batches): no more weighted misses per I/O than sbitmap",
     "select": lambda r: not is_local(r) and not is_big_plenty(r),
     "test": lambda p, s: p <= s, "rule": "<= sbitmap"},
    {"id": "d", "metric": "wakeups", "per_nodes": False,
     "aim": "no more wake-ups per I/O than sbitmap, in every scenario",
     "select": lambda r: True, "test": lambda p, s: p <= s, "rule": "<= sbitmap"},
]
MEMORY_AIM = ("e", "memory in every topology at most sbitmap's plus one 64-byte line per "
              "allocating CPU")


def judge(pool, rows, by, sets):
    """The aims per setting (and socket count): pass/fail with every miss."""
    out = []
    mine = [r for r in rows if r["alloc"] == pool and r["kind"] == "main"]
    for quantum, duty in sets:
        here = [r for r in mine if setting_of(r) == (quantum, duty)]
        for aim in AIMS:
            for nodes in ((1, 2) if aim["per_nodes"] else (None,)):
                metric = NODE_METRIC[nodes] if aim["metric"] == "wmiss" else aim["metric"]
                sel = [r for r in here if aim["select"](r)]
                bad, zero, unfair = [], 0, 0
                for r in sel:
                    sb = by[("sbitmap",) + rkey(r)]
                    p, s = r[metric], sb[metric]
                    zero += p == 0 and s == 0
                    if not aim["test"](p, s):
                        bad.append({"scenario": name(r), "pool": p, "sbitmap": s,
                                    "starved": r["starved"], "sbitmap_starved": sb["starved"]})
                        unfair += sb["starved"] > r["starved"]
                bad.sort(key=lambda b: -(b["pool"] - b["sbitmap"]))
                out.append({"alloc": pool, "id": aim["id"], "quantum": quantum, "duty": duty,
                            "nodes": nodes, "metric": metric, "rule": aim["rule"],
                            "aim": f"({aim['id']}) {aim['aim']} [{settings_name(quantum, duty)}"
                                   + (f", {nodes} socket{'s' if nodes == 2 else ''}]"
                                      if nodes else "]"),
                            "scenarios": len(sel), "missed": len(bad), "both_zero": zero,
                            "missed_sbitmap_starving": unfair,
                            "passed": not bad, "examples": bad[:8]})
    return out


def b_without_blk(pool, rows, by, sets):
    """Aim (b)'s scenarios, per setting and socket count, judged on the
    weighted misses less those on the request queues' counts of active
    requests (blk-mq's fair share, the same cost whichever allocator
    runs): in how many the pool's are at most half sbitmap's.
    Not an aim: what of (b) is the allocators'."""
    out = []
    aim = next(a for a in AIMS if a["id"] == "b")
    for quantum, duty in sets:
        sel = [r for r in rows if r["alloc"] == pool and r["kind"] == "main"
               and setting_of(r) == (quantum, duty) and aim["select"](r)]
        for nodes in (1, 2):
            met, blk = NODE_METRIC[nodes], BLK_METRIC[nodes]
            own = [(r[met] - r[blk], sb[met] - sb[blk], r[blk], sb[blk]) for r, sb in
                   ((r, by[("sbitmap",) + rkey(r)]) for r in sel)]
            out.append({"alloc": pool, "quantum": quantum, "duty": duty, "nodes": nodes,
                        "scenarios": len(own),
                        "passed": sum(p <= 0.5 * q for p, q, _, _ in own),
                        "blk_pool": round(sum(b for _, _, b, _ in own), 1),
                        "blk_sbitmap": round(sum(b for _, _, _, b in own), 1)})
    return out


def rkey(r):
    return skey(r) + (r["quantum"], r["duty"], r["seed"], r["kind"])


def memory_table(rows, allocs):
    """Per topology and depth: every allocator's bytes (the most any row
    of it held), the floor, and the pool's limit (aim e)."""
    best = {}
    for r in rows:
        if r["kind"] not in ("main", "memory") or r["topology"] == "twin":
            continue
        topo = "shared" if r["topology"] == "shared" else "queue"
        k = (topo, r["users"], r["possible"], r["depth"])
        best.setdefault(k, {})
        best[k][r["alloc"]] = max(best[k].get(r["alloc"], 0), r["memory"])
    out = []
    for (topo, users, possible, depth), by_alloc in sorted(best.items()):
        sb = by_alloc.get("sbitmap")
        for a in allocs:
            if a not in by_alloc:
                continue
            out.append({"alloc": a, "topology": topo, "users": users, "possible": possible,
                        "depth": depth, "bytes": by_alloc[a],
                        "bytes_per_tag_space": by_alloc[a], "sbitmap": sb,
                        "floor": LINE * users, "limit": sb + LINE * users,
                        "within": a == "sbitmap" or by_alloc[a] <= sb + LINE * users})
    return out


def judge_memory(pool, memory):
    sel = [m for m in memory if m["alloc"] == pool]
    bad = [m for m in sel if not m["within"]]
    bad.sort(key=lambda m: -(m["bytes"] - m["limit"]))
    return {"alloc": pool, "id": MEMORY_AIM[0], "quantum": None, "duty": None, "nodes": None,
            "metric": "memory", "rule": "<= sbitmap + 64 B x users",
            "aim": f"({MEMORY_AIM[0]}) {MEMORY_AIM[1]}", "scenarios": len(sel),
            "missed": len(bad), "both_zero": 0, "passed": not bad,
            "examples": [{"scenario": f"{m['topology']} users={m['users']} "
                                      f"possible={m['possible']} depth={m['depth']}",
                          "pool": m["bytes"], "sbitmap": m["sbitmap"]} for m in bad[:8]]}


def compare_group(rows, by, allocs, sets, select):
    """Scenario by scenario, per setting: each allocator's weighted misses
    (one socket, two) and wake-ups, and the pools' ratios to sbitmap."""
    out = []
    for quantum, duty in sets:
        sel = [r for r in rows if r["alloc"] == "sbitmap" and r["kind"] == "main"
               and setting_of(r) == (quantum, duty) and select(r)]
        entries = []
        for r in sel:
            e = {"scenario": name(r), "key": list(skey(r)), "allocs": {}}
            for a in allocs:
                x = by.get((a,) + rkey(r))
                if x:
                    e["allocs"][a] = {m: x[m] for m in ("wmiss_1n", "wmiss_2n", "wakeups",
                                                          "misses", "accesses", "starved",
                                                          "fairness")}
            entries.append(e)
        worse = {}
        for a in allocs[1:]:
            worse[a] = {m: sum(1 for e in entries if a in e["allocs"] and
                               e["allocs"][a][m] > e["allocs"]["sbitmap"][m])
                        for m in ("wmiss_1n", "wmiss_2n", "wakeups")}
        out.append({"quantum": quantum, "duty": duty, "scenarios": entries,
                    "pool_worse": worse})
    return out


def seed_spread(rows, allocs):
    """For the seed subset: per scenario, setting and allocator the weighted
    misses of every seed, and whether each pool stays on one side of
    sbitmap whatever the seed."""
    sub = [r for r in rows if r["kind"] in ("main", "seeds") and r["duty"] == 100]
    keys = {(skey(r), r["quantum"]) for r in sub if r["kind"] == "seeds"}
    out = []
    for k, quantum in sorted(keys):
        e = {"scenario": name(dict(zip(KEY, k))), "quantum": quantum, "allocs": {}}
        for a in allocs:
            vals = sorted((r["seed"], r["wmiss_1n"]) for r in sub
                          if r["alloc"] == a and skey(r) == k and r["quantum"] == quantum)
            e["allocs"][a] = {"seeds": [s for s, _ in vals], "wmiss_1n": [v for _, v in vals],
                              "spread": stats.describe([v for _, v in vals])["spread"]
                              if vals and any(v for _, v in vals) else 0.0}
        for a in allocs[1:]:
            sides = {p <= s for p, s in zip(e["allocs"][a]["wmiss_1n"],
                                            e["allocs"]["sbitmap"]["wmiss_1n"])}
            e["allocs"][a]["verdict_stable"] = len(sides) == 1
        out.append(e)
    return out


def tally(pairs):
    """Over (pool row, sbitmap row) PAIRS: in how many the pool counts no
    more than sbitmap (wmiss_1n, wmiss_2n, wakeups), and the sums of
    wmiss_1n and wakeups, pool (sum) and sbitmap (sum_sbitmap)."""
    out = {m: sum(p[m] <= s[m] for p, s in pairs) for m in ("wmiss_1n", "wmiss_2n", "wakeups")}
    for side, i in (("sum", 0), ("sum_sbitmap", 1)):
        out[side] = {m: round(sum(p[i][m] for p in pairs), 1) for m in ("wmiss_1n", "wakeups")}
    return out


def device_time(rows, by, allocs, sets):
    """Per setting (duty 100 %) and pool: in how many irq scenarios the pool
    counts no more than sbitmap, without device time ("without": the aims'
    runs) and with it ("with")."""
    out = []
    for quantum, duty in sets:
        sel = [r for r in rows if r["alloc"] == "sbitmap" and r["kind"] == "device"
               and setting_of(r) == (quantum, duty)]
        for a in allocs[1:]:
            e = {"alloc": a, "quantum": quantum, "duty": duty, "device": DEVICE_ACCESSES,
                 "scenarios": len(sel)}
            for side, kind in (("without", "main"), ("with", "device")):
                pairs = [(by[(a,) + k], by[("sbitmap",) + k]) for k in
                         (rkey(r)[:-1] + (kind,) for r in sel) if (a,) + k in by]
                e[side] = tally(pairs)
            out.append(e)
    return out


def shallow_depth(rows, by, allocs, sets):
    """Per setting (duty 100 %) and pool: in how many shallow scenarios the
    pool counts no more than sbitmap, the sums of weighted misses (one
    socket) and wake-ups per I/O, and the mean fairness, pool and sbitmap."""
    out = []
    for quantum, duty in sets:
        sel = [r for r in rows if r["alloc"] == "sbitmap" and r["kind"] == "shallow"
               and setting_of(r) == (quantum, duty)]
        for a in allocs[1:]:
            pairs = [(by[(a,) + rkey(r)], r) for r in sel if (a,) + rkey(r) in by]
            e = {"alloc": a, "quantum": quantum, "duty": duty, "scenarios": len(pairs)}
            e.update(tally(pairs))
            e["fairness"] = [round(sum(p[i]["fairness"] for p in pairs) / max(len(pairs), 1), 3)
                             for i in (0, 1)]
            e["worst"] = [{"scenario": name(p), "pool": round(p["wmiss_1n"], 1),
                           "sbitmap": round(x["wmiss_1n"], 1)}
                          for p, x in sorted(pairs, key=lambda px: px[1]["wmiss_1n"] -
                                             px[0]["wmiss_1n"])[:3]]
            out.append(e)
    return out


def summarize(args, rows, allocs, check, sets):
    by = {(r["alloc"],) + rkey(r): r for r in rows}
    criteria, without_blk = [], []
    memory = memory_table(rows, allocs)
    for pool in allocs[1:]:
        criteria += judge(pool, rows, by, sets)
        criteria.append(judge_memory(pool, memory))
        without_blk += b_without_blk(pool, rows, by, sets)
    main = [r for r in rows if r["kind"] == "main"]
    return {
        "schema": SCHEMA, "run": args.out.name, "seed": args.seed, "ios": args.ios,
        "quick": args.quick, "allocs": allocs,
        "settings": [{"quantum": q, "duty": d} for q, d in sets],
        "weights": WEIGHTS,
        "model_check": {"tap": check.stdout.splitlines(), "passed": check.returncode == 0},
        "criteria": criteria, "b_without_blk": without_blk,
        "shared_big": compare_group(main, by, allocs, sets,
                                    lambda r: r["topology"] == "shared" and r["users"] >= BIG),
        "scarce": compare_group(main, by, allocs, sets, is_scarce),
        "local_misses": compare_group(main, by, allocs, sets,
                                      lambda r: is_local(r) and any(
                                          by[(a,) + rkey(r)]["misses"] for a in allocs
                                          if (a,) + rkey(r) in by)),
        "memory": memory, "seeds": seed_spread(rows, allocs),
        "device_time": device_time(rows, by, allocs, [x for x in sets if x[1] == 100]),
        "shallow_depth": shallow_depth(rows, by, allocs, [x for x in sets if x[1] == 100]),
        "truncated": [{"alloc": r["alloc"], "scenario": name(r), "quantum": r["quantum"],
                       "duty": r["duty"], "seed": r["seed"], "ios": r["ios"]}
                      for r in rows if r["ios"] < r["ios_asked"]],
        "rows": rows}


def native_counts(native_run):
    """Instructions per pair of the native run: one thread (the local pair)
    and two threads freeing each other's tags (the pair freed on another
    CPU), per allocator, over the depths."""
    native = json.loads((native_run / "summary.json").read_text())
    out = {"native_run": native_run.name, "local": {}, "cross": {}}
    for s in native["scenarios"]:
        kind = ("local" if s["threads"] == 1 else
                "cross" if s["mode"] == "cross" and s["threads"] == 2 else None)
        if not kind:
            continue
        for alloc, a in s["allocs"].items():
            if a.get("instructions_per_pair") is not None:
                out[kind].setdefault(alloc, []).append(a["instructions_per_pair"])
    for kind in ("local", "cross"):
        out[kind] = {a: [min(v), max(v)] for a, v in out[kind].items()}
    return out


def rank_agreement(rows, native_run):
    """Spearman's rank correlation between the native benchmark's 2-thread
    ns per pair and the model's weighted misses per I/O in the twin scenarios."""
    native = json.loads((native_run / "summary.json").read_text())
    pairs = []
    for s in native["scenarios"]:
        if s["threads"] != 2:
            continue
        completion = "self" if s["mode"] == "same" else "other"
        for alloc, a in s["allocs"].items():
            m = [r for r in rows if r["alloc"] == alloc and r["kind"] == "twin" and
                 r["depth"] == s["depth"] and r["completion"] == completion]
            if m:
                pairs.append({"alloc": alloc, "mode": s["mode"], "depth": s["depth"],
                              "ns_per_pair": a["ns_per_pair"]["median"],
                              "wmiss_1n": m[0]["wmiss_1n"]})
    rho = stats.spearman([p["ns_per_pair"] for p in pairs], [p["wmiss_1n"] for p in pairs])
    return {"native_run": native_run.name, "spearman": rho, "pairs": pairs}


def fmt(x):
    return f"{x:.2f}" if x < 100 else f"{x:.0f}"


def group_md(title, groups, allocs, note):
    lines = ["", f"## {title}", "", note]
    for g in groups:
        if not g["scenarios"]:
            continue
        worse = "; ".join(f"{a} worse in {w['wmiss_1n']} (one socket), {w['wmiss_2n']} (two), "
                          f"wakes more in {w['wakeups']}" for a, w in g["pool_worse"].items())
        lines += ["", f"### {settings_name(g['quantum'], g['duty'])}: {len(g['scenarios'])} "
                  f"scenarios; {worse}", "",
                  "| scenario | " + " | ".join(
                      f"{a} wmiss 1s / 2s (wake-ups; CPUs starved)" for a in allocs) +
                  " | " + " | ".join(f"{a}/sbitmap" for a in allocs[1:]) + " |",
                  "|" + " --- |" * (1 + 2 * len(allocs) - 1)]
        for e in g["scenarios"]:
            cells = []
            for a in allocs:
                x = e["allocs"].get(a)
                cells.append(f"{fmt(x['wmiss_1n'])} / {fmt(x['wmiss_2n'])} "
                             f"({x['wakeups']:.2f}"
                             + (f"; {x['starved']} starved" if x["starved"] else "") + ")"
                             if x else "")
            sb = e["allocs"]["sbitmap"]["wmiss_1n"]
            for a in allocs[1:]:
                x = e["allocs"].get(a)
                cells.append("" if not x else "=" if x["wmiss_1n"] == sb == 0 else
                             "inf" if not sb else f"{x['wmiss_1n'] / sb:.2f}")
            lines.append(f"| {e['scenario']} | " + " | ".join(cells) + " |")
    return lines


def markdown(s):
    w = s["weights"]
    sets = [(x["quantum"], x["duty"]) for x in s["settings"]]
    lines = [f"# bench-scale: {s['run']}", "",
             f"Per I/O (one allocation and one free), {s['ios']} I/Os per scenario after "
             f"a warm-up, seed {s['seed']}. Counted on the model, not timed. Settings: "
             + ", ".join(settings_name(*x) for x in sets) + ". The quantum is the mean number "
             "of accesses a simulated CPU makes before another may run; at duty 10 % each "
             "CPU makes, after each I/O, 9 x sbitmap's accesses per I/O of that scenario "
             "(at the same quantum, duty 100 %) of private accesses, for every allocator.",
             "", f"Weighted misses (wmiss) count a miss served from the last level or a clean "
             f"copy on the socket as {w['llc']}, a line modified in another core of the socket "
             f"{w['local_c2c']}, a clean line only on the other socket {w['remote']}, one "
             f"modified there {w['remote_c2c']}, one in no cache {w['memory']} (typical ratios "
             "of published two-socket x86 latencies; not measured here). 1s: one socket; 2s: "
             "two, the CPUs split in halves.", "",
             "Model check: " + ("all known-answer cases pass" if s["model_check"]["passed"]
                                else "FAILED"), ""]
    lines += ["```"] + [t for t in s["model_check"]["tap"] if t.startswith(("ok", "not ok"))]
    lines += ["```", ""]
    if s["truncated"]:
        per = {}
        for t in s["truncated"]:
            per[t["alloc"]] = per.get(t["alloc"], 0) + 1
        lines += [f"Scenarios that used their access budget (10000 counted accesses per I/O "
                  f"asked) before {s['ios']} I/Os, measured over fewer: " + ", ".join(
                      f"{a} {n}" for a, n in per.items()) + " (summary.json: truncated).", ""]
    lines += ["## Aims", ""]
    for pool in s["allocs"][1:]:
        crit = [c for c in s["criteria"] if c["alloc"] == pool]
        lines += [f"### {pool}", "", "| aim | " + " | ".join(
            settings_name(*x) for x in sets) + " |", "|" + " --- |" * (1 + len(sets))]
        for aim in AIMS:
            for nodes in ((1, 2) if aim["per_nodes"] else (None,)):
                cells = []
                for q, d in sets:
                    c = next(c for c in crit if (c["id"], c["quantum"], c["duty"], c["nodes"])
                             == (aim["id"], q, d, nodes))
                    notes = ([f"{c['both_zero']} both 0"] if c["both_zero"] else []) + (
                        [f"{c['missed_sbitmap_starving']} missed where sbitmap starves more CPUs"]
                        if c.get("missed_sbitmap_starving") else [])
                    cells.append(f"{'PASS' if c['passed'] else 'MISS'} "
                                 f"{c['scenarios'] - c['missed']}/{c['scenarios']}"
                                 + (f" ({'; '.join(notes)})" if notes else ""))
                label = f"({aim['id']}) {aim['rule']}" + (f", {nodes}s" if nodes else "")
                lines.append(f"| {label} | " + " | ".join(cells) + " |")
        for nodes in (1, 2):
            nob = {(b["quantum"], b["duty"]): b for b in s.get("b_without_blk", [])
                   if b["alloc"] == pool and b["nodes"] == nodes}
            if nob:
                lines.append(f"| (b) without blk-mq's counters, {nodes}s (not an aim) | " +
                             " | ".join(f"{nob[x]['passed']}/{nob[x]['scenarios']}"
                                        for x in sets) + " |")
        mem = next(c for c in crit if c["id"] == MEMORY_AIM[0])
        lines += ["", f"- ({AIMS[0]['id']}) {AIMS[0]['aim']}; ({AIMS[1]['id']}) {AIMS[1]['aim']}; "
                  f"({AIMS[2]['id']}) {AIMS[2]['aim']}; ({AIMS[3]['id']}) {AIMS[3]['aim']}.",
                  f"- {'PASS' if mem['passed'] else 'MISS'} {mem['aim']}: "
                  f"{mem['scenarios'] - mem['missed']} of {mem['scenarios']} topology x depth "
                  "rows."]
        if s.get("b_without_blk"):
            lines.append("- (b) without blk-mq's counters: (b)'s scenarios judged on the "
                         "weighted misses less those on the request queues' counts of active "
                         "requests (blk-mq's fair share, which either allocator pays alike): "
                         "what of (b) the allocators decide. Not an aim.")
        for c in crit:
            if c["examples"]:
                lines.append(f"- worst misses of {c['aim']}: " + "; ".join(
                    f"{e['scenario']}: {fmt(e['pool'])} vs sbitmap {fmt(e['sbitmap'])}"
                    for e in c["examples"][:3]))
        lines.append("")
    nat = s.get("native")
    if nat:
        lines += ["## Native instructions per alloc+free pair", "",
                  f"From {nat['native_run']} (callgrind, over depths 8-1024): "
                  + "; ".join(f"{a}: local pair {v[0]:.0f}-{v[1]:.0f}, freed on another CPU "
                              + (f"{nat['cross'][a][0]:.0f}-{nat['cross'][a][1]:.0f}"
                                 if a in nat["cross"] else "n/a")
                              for a, v in nat["local"].items()) + ".", ""]
    ra = s.get("rank_agreement")
    if ra:
        rho = "n/a" if ra["spearman"] is None else f"{ra['spearman']:.2f}"
        lines += [f"Rank agreement with {ra['native_run']} (2-thread ns/pair against the "
                  f"twin scenarios' weighted misses per I/O, {len(ra['pairs'])} pairs): "
                  f"Spearman {rho}.", ""]
    dev = s.get("device_time")
    if dev:
        lines += [f"## Irq completion with device time ({dev[0]['device']} accesses per "
                  "completion)", "",
                  "Irq scenarios where the pool counts no more than sbitmap (weighted misses "
                  "one socket, two; wake-ups), without device time (the aims' runs) and with "
                  "it; and the sums over the scenarios of weighted misses (one socket) and "
                  "wake-ups per I/O, pool against sbitmap. Not an aim.", "",
                  "| pool | setting | scenarios | without | with | sums without | sums with |",
                  "|" + " --- |" * 7]
        for e in dev:
            cells = []
            for side in ("without", "with"):
                cells.append(" / ".join(str(e[side][m]) for m in ("wmiss_1n", "wmiss_2n",
                                                                    "wakeups")))
            sums = [f"{e[k]['sum']['wmiss_1n']:.0f} vs {e[k]['sum_sbitmap']['wmiss_1n']:.0f}; "
                    f"{e[k]['sum']['wakeups']:.0f} vs {e[k]['sum_sbitmap']['wakeups']:.0f}"
                    for k in ("without", "with")]
            lines.append(f"| {e['alloc']} | {settings_name(e['quantum'], e['duty'])} | "
                         f"{e['scenarios']} | " + " | ".join(cells + sums) + " |")
        lines.append("")
    sh = s.get("shallow_depth")
    if sh:
        lines += ["## A shallow depth (half the tags for the odd CPUs)", "",
                  "Shared tags with one queue; the odd CPUs' allocations held to half the "
                  "depth, as kyber and bfq hold async I/O. Scenarios where the pool counts no "
                  "more than sbitmap (weighted misses one socket, two; wake-ups), the sums over "
                  "them of weighted misses (one socket) and wake-ups per I/O, the mean "
                  "fairness (Jain) and the three where the pool loses most. Not an aim.", "",
                  "| pool | setting | scenarios | <= sbitmap | sums | fairness | worst |",
                  "|" + " --- |" * 7]
        for e in sh:
            lines.append(
                f"| {e['alloc']} | {settings_name(e['quantum'], e['duty'])} | {e['scenarios']} | "
                f"{e['wmiss_1n']} / {e['wmiss_2n']} / {e['wakeups']} | "
                f"{e['sum']['wmiss_1n']:.0f} vs {e['sum_sbitmap']['wmiss_1n']:.0f}; "
                f"{e['sum']['wakeups']:.1f} vs {e['sum_sbitmap']['wakeups']:.1f} | "
                f"{e['fairness'][0]:.2f} vs {e['fairness'][1]:.2f} | " +
                "; ".join(f"{w['scenario']}: {w['pool']} vs {w['sbitmap']}" for w in e["worst"])
                + " |")
        lines.append("")
    lines += group_md("Shared tags, 64 CPUs and more", s["shared_big"], s["allocs"],
                      "Every shared scenario with at least 64 CPUs using the tags, with 4 "
                      "request queues held to their fair share and with one queue; weighted "
                      "misses per I/O for one socket and two, wake-ups per I/O in brackets, "
                      "and the CPUs that completed no I/O while counting (starved of tags: "
                      "an allocator that starves CPUs may count few misses).")
    lines += group_md("Scarce tags (depth below 2 per CPU)", s["scarce"], s["allocs"],
                      "Every scenario with fewer than 2 tags per CPU using them.")
    lines += group_md("Local path scenarios with misses", s["local_misses"], s["allocs"],
                      "The scenarios of aim (a) where any allocator misses.")
    lines += ["", "## Memory per tag space, every topology", "",
              "Bytes the allocator holds (blk-mq's own structures, the same for both, left "
              "out), the most of any run of the topology, beside the floor of one 64-byte "
              "line per allocating CPU; the pool's limit (aim e) is sbitmap's plus the floor.",
              "", "| topology | users | possible | depth | floor | " +
              " | ".join(s["allocs"]) + " |", "|" + " --- |" * (5 + len(s["allocs"]))]
    mem = {}
    for m in s["memory"]:
        mem.setdefault((m["topology"], m["users"], m["possible"], m["depth"]), {})[m["alloc"]] = m
    for k, v in mem.items():
        cells = [f"{v[a]['bytes']}{'' if v[a]['within'] else ' (over)'}" if a in v else ""
                 for a in s["allocs"]]
        lines.append("| " + " | ".join(map(str, k)) + f" | {LINE * k[1]} | "
                     + " | ".join(cells) + " |")
    if s["seeds"]:
        lines += ["", "## Spread over seeds", "",
                  "Weighted misses per I/O (one socket) per seed, duty 100 %; whether each "
                  "pool stays on one side of sbitmap for every seed.", "",
                  "| scenario | q | " + " | ".join(s["allocs"]) + " | stable |",
                  "|" + " --- |" * (3 + len(s["allocs"]))]
        for e in s["seeds"]:
            cells = [" / ".join(fmt(v) for v in e["allocs"][a]["wmiss_1n"])
                     for a in s["allocs"]]
            stable = ", ".join(f"{a}: {'yes' if e['allocs'][a]['verdict_stable'] else 'NO'}"
                               for a in s["allocs"][1:])
            lines.append(f"| {e['scenario']} | {e['quantum']} | " + " | ".join(cells)
                         + f" | {stable} |")
    lines += ["", "## Every scenario: weighted misses per I/O, one socket (misses; wake-ups)",
              ""]
    by = {(r["alloc"],) + rkey(r): r for r in s["rows"]}
    for q, d in sets:
        lines += [f"### {settings_name(q, d)}", "", "| scenario | " + " | ".join(s["allocs"])
                  + " |", "|" + " --- |" * (1 + len(s["allocs"]))]
        for r in s["rows"]:
            if r["alloc"] != "sbitmap" or r["kind"] != "main" or setting_of(r) != (q, d):
                continue
            cells = []
            for a in s["allocs"]:
                x = by.get((a,) + rkey(r))
                cells.append(f"{fmt(x['wmiss_1n'])} ({fmt(x['misses'])}; {x['wakeups']:.2f})"
                             if x else "")
            lines.append(f"| {name(r)} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
