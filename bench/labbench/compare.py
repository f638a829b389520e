"""Compare two benchmark runs: per point and allocator, B's median IOPS over
A's, with a noise-aware verdict: "slower" only when B's median is below A's
minimum and the change exceeds both runs' spreads, "faster" likewise, "same"
otherwise, "n/a" with fewer than 2 repetitions.  Also each run's pool/sbitmap
ratio.  Points are matched by name, device, fio job, jobs, depth and vCPUs.
A and B are run folders (or names of folders under results/) holding a
summary.json of schema bench-summary/1 (labbench.summary).

usage: python3 -m labbench.compare A B
"""
import pathlib
import sys

from . import summary as sm


def find_run(arg):
    for path in (pathlib.Path(arg), pathlib.Path("results") / arg):
        if path.is_dir():
            summary = sm.load_summary(path)
            if summary is None:
                sys.exit(f"labbench.compare: {path} has no summary.json of schema {sm.SCHEMA} "
                         f"(run python3 -m labbench.summary {path})")
            return summary
    sys.exit(f"labbench.compare: no run folder {arg}")


def cell(side):
    if not side:
        return "-"
    return f"{side['iops']['median']:.0f} ({side['iops']['spread']:.0%})"


def main(a_arg, b_arg):
    a, b = find_run(a_arg), find_run(b_arg)
    a_points = {sm.point_key(p, a["vcpus"]): p for p in a["points"]}
    b_keys = set()
    print(f"A = {a['run']} (commit {a['run_info'].get('commit', '?')}, series "
          f"{a['run_info'].get('series_sha256', '?')})")
    print(f"B = {b['run']} (commit {b['run_info'].get('commit', '?')}, series "
          f"{b['run_info'].get('series_sha256', '?')})")
    print(f"{'point':20} {'tags':8} {'A IOPS (spread)':>17} {'B IOPS (spread)':>17} {'B/A':>6}  verdict")
    counts = {}
    for pb in b["points"]:
        key = sm.point_key(pb, b["vcpus"])
        b_keys.add(key)
        pa = a_points.get(key)
        if pa is None:
            print(f"{pb['name']:20} only in B")
            continue
        for alloc in sm.ALLOCS:
            sa, sb = pa.get(alloc), pb.get(alloc)
            if not sa or not sb:
                why = "skipped" if "skipped" in (pa["verdict"], pb["verdict"]) else "missing"
                print(f"{pb['name']:20} {alloc:8} {cell(sa):>17} {cell(sb):>17} {'-':>6}  {why}")
                continue
            v = sm.iops_verdict(sa["iops"]["values"], sb["iops"]["values"])
            counts[v] = counts.get(v, 0) + 1
            ratio = sb["iops"]["median"] / sa["iops"]["median"]
            print(f"{pb['name']:20} {alloc:8} {cell(sa):>17} {cell(sb):>17} {ratio:6.3f}  {v}")
        ra, rb = pa.get("ratio_pool_to_sbitmap"), pb.get("ratio_pool_to_sbitmap")
        if ra and rb:
            print(f"{pb['name']:20} {'pool/sb':8} {ra:17.3f} {rb:17.3f} {rb / ra:6.3f}"
                  f"  A: {pa['verdict']}; B: {pb['verdict']}")
    for key, pa in a_points.items():
        if key not in b_keys:
            print(f"{pa['name']:20} only in A")
    print(", ".join(f"{n} {v}" for v, n in sorted(counts.items())) or "nothing to compare")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    main(sys.argv[1], sys.argv[2])
