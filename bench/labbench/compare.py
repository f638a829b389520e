"""Compare two benchmark runs point by point, by the verdict rule of
labbench.stats: each run's pool/sbitmap ratio (geometric mean of its
per-repetition ratios, measured within one boot) with its 95 % interval
and verdict, and how the ratio moved from A to B (B's over A's, with the
two-sample interval of the same rule): "better for the pool", "worse for
the pool", "same within noise", or "n/a".  Absolute IOPS are shown for
reference only: across boots the host's speed moves them (up to 29 %
between identical runs here), so they are not judged.  Points are matched
by name, device, fio job, jobs, depth and vCPUs.  A and B are run folders
(or names of folders under results/) holding a summary.json
(labbench.summary).

usage: python3 -m labbench compare A B
"""
import pathlib
import sys

from . import stats
from . import summary as sm


def find_run(arg):
    for path in (pathlib.Path(arg), pathlib.Path("results") / arg):
        if path.is_dir():
            summary = sm.load_summary(path)
            if summary is None:
                sys.exit(f"labbench compare: {path} has no summary.json of schema {sm.SCHEMA} "
                         f"(run python3 -m labbench summary {path})")
            return summary
    sys.exit(f"labbench compare: no run folder {arg}")


def rep_ratios(point):
    return [r["ratio"] for r in point.get("rep_ratios") or []]


def change(pa, pb):
    """stats.ratio_change of two runs' points (each a summary point)."""
    return stats.ratio_change(rep_ratios(pa), rep_ratios(pb))


def ratio_cell(p):
    r = p.get("ratio_pool_to_sbitmap")
    return "-" if r is None else f"{r:.3f} {sm.interval_text(p.get('ratio_interval'))}"


def main(args):
    a, b = find_run(args.a), find_run(args.b)
    a_points = {sm.point_key(p, a["vcpus"]): p for p in a["points"]}
    b_keys = set()
    for tag, s in (("A", a), ("B", b)):
        print(f"{tag} = {s['run']} (commit {s['run_info'].get('commit', '?')}, series "
              f"{s['run_info'].get('series_sha256', '?')}, {s['vcpus']} vCPUs, {s['reps']} reps)")
    print(f"pool/sb: {stats.METHOD}; B/A: how the ratio moved, the same rule on both runs' "
          "ratios; IOPS medians for reference (across boots, not judged)")
    print(f"{'point':20} {'A pool/sb [95%]':>20} {'B pool/sb [95%]':>20} {'B/A [95%]':>20}  "
          f"{'verdict':20} {'A IOPS pool/sbitmap':>20} {'B IOPS pool/sbitmap':>20}")
    counts = {}
    for pb in b["points"]:
        key = sm.point_key(pb, b["vcpus"])
        b_keys.add(key)
        pa = a_points.get(key)
        if pa is None:
            print(f"{pb['name']:20} only in B")
            continue
        if stats.Verdict.SKIPPED.value in (pa["verdict"], pb["verdict"]):
            print(f"{pb['name']:20} skipped in {'A' if pa['verdict'] == 'skipped' else 'B'}")
            continue
        c = change(pa, pb)
        v = c["verdict"].value
        counts[v] = counts.get(v, 0) + 1
        moved = "-" if c["change"] is None else f"{c['change']:.3f} {sm.interval_text(c['interval'])}"
        iops = ["/".join("-" if not p.get(al) else f"{p[al]['iops']['median']:.0f}"
                         for al in sm.ALLOCS) for p in (pa, pb)]
        print(f"{pb['name']:20} {ratio_cell(pa):>20} {ratio_cell(pb):>20} {moved:>20}  {v:20}"
              f" {iops[0]:>20} {iops[1]:>20}")
    for key, pa in a_points.items():
        if key not in b_keys:
            print(f"{pa['name']:20} only in A")
    print(", ".join(f"{n} {v}" for v, n in sorted(counts.items())) or "nothing to compare")



