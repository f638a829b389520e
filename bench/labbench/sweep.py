"""A vCPU sweep of make bench: the run at the full count (RUN/summary.json)
and the runs at the other counts (RUN/vcpus-N/summary.json) side by side,
for every point measured at two counts or more.  Writes RUN/sweep.json
(schema bench-sweep/2, bench/SCHEMAS.md) and RUN/sweep.txt: per point and
vCPU count, both allocators' median IOPS with min and max, the ratio and its
verdict, and the pool's counters per million I/Os (local share, refills,
steals, waits, hand-offs, failed allocations, the driver's tag refusals).
labbench.report draws it.

usage: python3 -m labbench sweep RUN
"""
import json
import sys

from . import summary as sm
from .summary import ALLOCS

SCHEMA = "bench-sweep/2"
# The pool's figures drawn against vCPUs, as labbench.summary names them.
POOL_FIGURES = ("local_share", "refills_per_mio", "steals_per_mio", "waits_per_mio",
                "handed_per_mio", "fails_per_mio")


def side(p, alloc):
    s = p.get(alloc)
    if not s:
        return None
    c = s.get("contention") or {}
    out = {"iops": {k: s["iops"][k] for k in ("median", "min", "max", "spread")},
           "refusals_per_mio": c.get("refusals_per_mio")}
    if alloc == "pool":
        out.update({k: c.get(k) for k in POOL_FIGURES})
    return out


def sweep(run):
    """The sweep of RUN: the full count's summary there, the other counts'
    in vcpus-N/."""
    full = sm.load_summary(run)
    summaries = [full] + [sm.load_summary(f) for f in sorted(run.glob("vcpus-*"))]
    runs = {s["vcpus"]: s for s in summaries if s}
    if not full or len(runs) < 2:
        sys.exit(f"labbench sweep: {run} holds a run at {len(runs)} vCPU count(s); "
                 "a sweep needs two or more, one of them in the run's own folder "
                 "(make bench VCPUS=\"1 2 4 8\")")
    counts = sorted(runs)
    points = []
    for full_point in full["points"]:
        name = full_point["name"]
        rows = []
        for v in counts:
            p = next((q for q in runs[v]["points"] if q["name"] == name), None)
            if not p or not (p.get("pool") or p.get("sbitmap")):
                continue
            rows.append({"vcpus": v, "jobs": p["jobs"], "runtime_s": runs[v]["runtime_s"],
                         "reps": runs[v]["reps"],
                         **{a: side(p, a) for a in ALLOCS},
                         **{k: p.get(k) for k in ("ratio_pool_to_sbitmap", "ratio_interval",
                                                  "ratio_range", "rep_ratios")},
                         "verdict": p["verdict"]})
        if len(rows) >= 2:
            points.append({"name": name, "device": full_point["device"], "job": full_point["job"],
                           "depth": full_point["depth"], "params": full_point["params"],
                           "by_vcpus": rows})
    return {"schema": SCHEMA, "run": run.name, "vcpus": counts,
            "full_vcpus": full["vcpus"], "points": points}


def fmt(x, spec):
    return "-" if x is None else format(x, spec)


def text(data):
    lines = [f"{data['run']}: vCPU sweep {' '.join(map(str, data['vcpus']))} (every point at "
             f"{data['full_vcpus']}); IOPS median (range: (max-min)/median); pool/sb: geometric "
             "mean of the per-repetition ratios with its 95 % interval; pool counters per million I/Os",
             f"{'point':20} {'vcpus':>5} {'jobs':>4} {'pool IOPS':>14} {'sbitmap IOPS':>14} "
             f"{'pool/sb':>7} {'95% interval':>13}  {'verdict':18} {'local':>6} {'refills':>8} {'steals':>8} "
             f"{'waits':>8} {'handed':>8} {'fails':>8}"]
    for p in data["points"]:
        for r in p["by_vcpus"]:
            iops = {a: sm.iops_text(r[a]) for a in ALLOCS}
            pool = r["pool"] or {}
            share = pool.get("local_share")
            lines.append(
                f"{p['name']:20} {r['vcpus']:>5} {r['jobs']:>4} {iops['pool']:>14} "
                f"{iops['sbitmap']:>14} {fmt(r['ratio_pool_to_sbitmap'], '.3f'):>7} "
                f"{sm.interval_text(r['ratio_interval']):>13}  "
                f"{r['verdict']:18} {fmt(share * 100 if share is not None else None, '.1f'):>6} "
                + " ".join(f"{fmt(pool.get(k), '.0f'):>8}" for k in POOL_FIGURES[1:]))
    return "\n".join(lines) + "\n"


def load_sweep(run):
    """A run's sweep.json if it has this module's schema, else None."""
    return sm.load_summary(run, SCHEMA, "sweep.json")


def main(args):
    run = args.run
    data = sweep(run)
    (run / "sweep.json").write_text(json.dumps(data, indent=1) + "\n")
    (run / "sweep.txt").write_text(text(data))
    sys.stdout.write(text(data))

