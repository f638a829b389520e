"""Summarize a bench-tags run: RUN/vcpus-N/tagbench.txt -> RUN/summary.json
and RUN/summary.md, one row per (vCPUs, depth): median ns per alloc+free
pair for pool and sbitmap, their spread ((max-min)/median over the
repetitions), the ratio pool/sbitmap, and the pool's contention counters.

usage: python3 -m labbench tagbench RUN
"""
import json
import statistics

from . import fio
from .stats import spread


SCHEMA = "tagbench-summary/1"


def parse(line):
    """One "NAME: alloc=... key=value..." line of drivers/tagbench or
    drivers/idabench: {key: float}, alloc kept as a string."""
    fields = dict(kv.split("=", 1) for kv in line.split()[1:])
    return {k: (v if k == "alloc" else float(v)) for k, v in fields.items()}


def main(args):
    run = args.run
    points, calib = {}, {}
    for path in sorted(run.glob("vcpus-*/tagbench.txt")):
        for line in path.read_text().splitlines():
            r = parse(line)
            if r["alloc"].startswith("calib-"):
                calib.setdefault(int(r["cpus"]), {}).setdefault(
                    r["alloc"][len("calib-"):], []).append(r["ns_per_pair"])
                continue
            key = (int(r["cpus"]), int(r["depth"]))
            points.setdefault(key, {"pool": [], "sbitmap": []})[r["alloc"]].append(r)
    rows = []
    for (cpus, depth), by in sorted(points.items()):
        row = {"vcpus": cpus, "depth": depth}
        for alloc, runs in by.items():
            ns = [r["ns_per_pair"] for r in runs]
            row[alloc] = {"ns_per_pair_median": statistics.median(ns),
                          "spread": round(spread(ns), 3), "reps": len(ns),
                          "ns_per_pair": ns}
        # The pool's counters by the kernel's names (alloc_shared; steals
        # are alloc_stolen), or the old pool's in runs before 2026-12-06
        # (alloc_refill, steals); none without CONFIG_PERCPU_TAGS_STATS.
        pool_runs = by["pool"]
        allocs = sum(r.get(k, 0) for r in pool_runs for k in fio.ALLOC_COUNTERS)
        if allocs:
            row["pool"]["local_share"] = round(
                sum(r["alloc_local"] for r in pool_runs) / allocs, 4)
            row["pool"]["steals_per_mop"] = round(
                sum(r.get(fio.steal_counter(r), 0) for r in pool_runs) * 1e6 / allocs, 1)
        row["ratio_pool_to_sbitmap"] = round(
            row["pool"]["ns_per_pair_median"] / row["sbitmap"]["ns_per_pair_median"], 3)
        rows.append(row)
    calib_rows = [{"vcpus": cpus, **{name: {"ns_per_pair_median": statistics.median(v),
                                            "spread": round(spread(v), 3)}
                                     for name, v in sorted(by.items())}}
                  for cpus, by in sorted(calib.items())]
    (run / "summary.json").write_text(json.dumps(
        {"schema": SCHEMA, "points": rows, "calibration": calib_rows},
        indent=1) + "\n")
    lines = ["| vCPUs | depth | pool ns/pair (spread) | sbitmap ns/pair (spread) "
             "| pool/sbitmap | pool local share | steals per M allocs |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        p, s = r["pool"], r["sbitmap"]
        lines.append(f"| {r['vcpus']} | {r['depth']} | {p['ns_per_pair_median']:.0f} "
                     f"({p['spread']:.0%}) | {s['ns_per_pair_median']:.0f} ({s['spread']:.0%}) "
                     f"| {r['ratio_pool_to_sbitmap']:.2f} | {p.get('local_share', 0):.1%} "
                     f"| {p.get('steals_per_mop', 0):.0f} |")
    if calib_rows:
        names = [n for n in calib_rows[0] if n != "vcpus"]
        lines += ["", "Calibration, ns per pair of primitives (median, spread):", "",
                  "| vCPUs | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
        for c in calib_rows:
            lines.append(f"| {c['vcpus']} | " + " | ".join(
                f"{c[n]['ns_per_pair_median']:.0f} ({c[n]['spread']:.0%})" for n in names) + " |")
    (run / "summary.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))

