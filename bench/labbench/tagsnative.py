"""make bench-tags-native: the tag allocators of the patched tree compiled
in userspace (bench/tags/native.c), on this machine's real cores.

For every scenario (1 thread; 2 threads pinned to cores 0 and 1, each
freeing its own tags or the other's) and depth, and every allocator
(sbitmap, the pool, and earlier pools given with --bin NAME=DIR), REPS
timed runs, interleaved ABBA: repetition r runs the allocators in order,
repetition r + 1 in reverse; the null allocator (no allocator, the harness
alone) runs beside them, as the floor of each scenario: at depth 8 across
cores the hand-over between this machine's virtual cores costs more than
either allocator.  Then the instructions per alloc+free pair, counted by
callgrind around the measured loop (deterministic; the null allocator's
count, the harness's own cost, is subtracted).

Writes OUT/runs.tsv (every timed run), OUT/icount.tsv, OUT/summary.json
(schema tags-native/1, results/README.md) and OUT/summary.md.

usage: python3 -m labbench.tagsnative OUT --bin pool=BUILD [--bin NAME=BUILD]
       [--reps N] [--depths 8,32,128,1024] [--quick]
"""
import argparse
import json
import pathlib
import statistics
import subprocess
import sys

from . import stats

SCHEMA = "tags-native/1"
SCENARIOS = ((1, "same"), (2, "same"), (2, "cross"))
# Pairs per timed run: about a quarter of a second each on this machine.
PAIRS = {"same": 2_000_000, "cross": 400_000}
ICOUNT_PAIRS = 100_000


def scenario_name(threads, mode, depth):
    if threads == 1:
        return f"1 thread, depth {depth}"
    who = "own" if mode == "same" else "the other's"
    return f"2 threads freeing {who} tags, depth {depth}"


def time_run(binary, alloc, threads, mode, depth, pairs):
    out = subprocess.run([binary, "time", alloc, str(threads), mode, str(depth), str(pairs)],
                         capture_output=True, text=True, check=True, timeout=300).stdout
    ns, retries = out.split()
    return float(ns), float(retries)


def icount(binary, alloc, threads, mode, depth, workdir):
    cg = workdir / "callgrind.out"
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={cg}",
                    "--toggle-collect=measure_pairs", binary, "icount", alloc,
                    str(threads), mode, str(depth), str(ICOUNT_PAIRS)],
                   capture_output=True, text=True, check=True, timeout=600)
    for line in cg.read_text().splitlines():
        if line.startswith("totals:"):
            cg.unlink()
            return int(line.split()[1])
    sys.exit(f"bench-tags-native: no totals in {cg}")


def parse_bins(specs):
    """NAME=BUILD folders: the first is the current pool (and its sbitmap)."""
    bins = []
    for spec in specs:
        name, _, build = spec.partition("=")
        bins.append((name, str(pathlib.Path(build) / "native-bench")))
    return bins


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=pathlib.Path)
    ap.add_argument("--bin", action="append", required=True, metavar="NAME=BUILD")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--depths", default="8,32,128,1024")
    ap.add_argument("--quick", action="store_true", help="a tenth of the pairs, 2 repetitions")
    args = ap.parse_args(argv)
    bins = parse_bins(args.bin)
    depths = [int(d) for d in args.depths.split(",")]
    reps = 2 if args.quick else args.reps
    scale = 10 if args.quick else 1
    args.out.mkdir(parents=True, exist_ok=True)

    # (label, binary, allocator argument): sbitmap once, each pool build.
    allocs = [("sbitmap", bins[0][1], "sbitmap")] + [(n, b, "pool") for n, b in bins]
    timed = allocs + [("null", bins[0][1], "null")]
    points = [(t, m, d) for t, m in SCENARIOS for d in depths]
    total = len(points) * len(timed) * reps
    print(f"bench-tags-native: {len(points)} scenarios x {len(allocs)} allocators x {reps} "
          f"repetitions (ABBA), then callgrind; results in {args.out}", flush=True)
    runs, n = [], 0
    for rep in range(reps):
        order = timed if rep % 2 == 0 else timed[::-1]
        for threads, mode, depth in points:
            for label, binary, alloc in order:
                n += 1
                ns, retries = time_run(binary, alloc, threads, mode, depth, PAIRS[mode] // scale)
                runs.append({"alloc": label, "threads": threads, "mode": mode, "depth": depth,
                             "rep": rep + 1, "ns_per_pair": ns, "retries_per_pair": retries})
                print(f"[{n}/{total}] {scenario_name(threads, mode, depth)}: {label} "
                      f"rep {rep + 1}/{reps} {ns:.1f} ns/pair", flush=True)

    counts = []
    for threads, mode, depth in points:
        null = icount(bins[0][1], "null", threads, mode, depth, args.out)
        for label, binary, alloc in allocs:
            ir = icount(binary, alloc, threads, mode, depth, args.out)
            counts.append({"alloc": label, "threads": threads, "mode": mode, "depth": depth,
                           "ir": ir, "ir_null": null,
                           "instructions_per_pair": (ir - null) / ICOUNT_PAIRS})
        print(f"callgrind: {scenario_name(threads, mode, depth)}: " +
              ", ".join(f"{c['alloc']} {c['instructions_per_pair']:.1f}"
                        for c in counts[-len(allocs):]) + " instructions/pair", flush=True)

    write_tsv(args.out / "runs.tsv", runs)
    write_tsv(args.out / "icount.tsv", counts)
    summary = summarize(args.out.name, runs, counts, [a[0] for a in allocs], reps)
    for s in summary["scenarios"]:
        s["harness_ns_per_pair"] = stats.describe(
            [r["ns_per_pair"] for r in runs if r["alloc"] == "null" and
             (r["threads"], r["mode"], r["depth"]) == (s["threads"], s["mode"], s["depth"])])
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    (args.out / "summary.md").write_text(markdown(summary))
    print(markdown(summary))


def write_tsv(path, rows):
    keys = list(rows[0])
    lines = ["\t".join(keys)] + ["\t".join(str(r[k]) for k in keys) for r in rows]
    path.write_text("\n".join(lines) + "\n")


def summarize(name, runs, counts, allocs, reps):
    scenarios = []
    keys = sorted({(r["threads"], r["mode"], r["depth"]) for r in runs},
                  key=lambda k: (k[0], k[1] != "same", k[2]))
    for threads, mode, depth in keys:
        s = {"threads": threads, "mode": mode, "depth": depth,
             "name": scenario_name(threads, mode, depth), "allocs": {}}
        for alloc in allocs:
            ns = [r["ns_per_pair"] for r in runs if (r["alloc"], r["threads"], r["mode"],
                                                     r["depth"]) == (alloc, threads, mode, depth)]
            retries = [r["retries_per_pair"] for r in runs
                       if (r["alloc"], r["threads"], r["mode"], r["depth"]) ==
                       (alloc, threads, mode, depth)]
            ic = [c for c in counts if (c["alloc"], c["threads"], c["mode"], c["depth"]) ==
                  (alloc, threads, mode, depth)]
            s["allocs"][alloc] = {
                "ns_per_pair": stats.describe(ns),
                "retries_per_pair": statistics.median(retries),
                "instructions_per_pair": ic[0]["instructions_per_pair"] if ic else None,
            }
        sb = s["allocs"]["sbitmap"]
        for alloc in allocs[1:]:
            a = s["allocs"][alloc]
            a["ns_ratio_to_sbitmap"] = a["ns_per_pair"]["median"] / sb["ns_per_pair"]["median"]
            a["ns_verdict"] = {"lower": "faster", "higher": "slower", "same": "same within noise",
                               "n/a": "n/a"}[stats.verdict(sb["ns_per_pair"]["values"],
                                                        a["ns_per_pair"]["values"])]
            if a["instructions_per_pair"] is not None and sb["instructions_per_pair"]:
                a["instructions_ratio_to_sbitmap"] = (a["instructions_per_pair"] /
                                                      sb["instructions_per_pair"])
        scenarios.append(s)
    return {"schema": SCHEMA, "run": name, "allocs": allocs, "reps": reps,
            "icount_pairs": ICOUNT_PAIRS, "scenarios": scenarios}


def markdown(summary):
    allocs = summary["allocs"]
    head = ["scenario"] + [f"{a} ns/pair (spread)" for a in allocs]
    head += [f"{a}/sbitmap ns" for a in allocs[1:]] + ["harness alone ns/pair"]
    head += [f"{a} instr/pair" for a in allocs]
    lines = [f"# bench-tags-native: {summary['run']}", "",
             f"Median ns per alloc+free pair over {summary['reps']} repetitions (ABBA), spread "
             "(max - min) / median; instructions per pair from callgrind, net of the harness.", "",
             "| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for s in summary["scenarios"]:
        a = s["allocs"]
        cells = [s["name"]]
        cells += [f"{a[x]['ns_per_pair']['median']:.1f} ({a[x]['ns_per_pair']['spread']:.0%})"
                  for x in allocs]
        cells += [f"{a[x]['ns_ratio_to_sbitmap']:.2f} {a[x]['ns_verdict']}" for x in allocs[1:]]
        cells.append(f"{s['harness_ns_per_pair']['median']:.1f}")
        cells += [f"{a[x]['instructions_per_pair']:.1f}" for x in allocs]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
