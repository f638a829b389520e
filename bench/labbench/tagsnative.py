"""make bench-tags-native: the tag allocators of the patched tree compiled
in userspace (bench/tags/native.c), on this machine's real cores.

For every scenario (1 thread; then 2, 4, 8, ... up to --threads (default:
the cores) threads, thread i pinned to core i, each freeing its own tags,
or freeing what the thread before it allocated) and depth, and every
allocator (sbitmap, the pool, and earlier pools given with --bin
NAME=DIR), REPS timed runs, interleaved ABBA: repetition r runs the
allocators in order, repetition r + 1 in reverse; the null allocator (no
allocator, the harness alone) runs beside them, as the floor of each
scenario: at depth 8 across cores the hand-over between this machine's
virtual cores costs more than either allocator.  Where the host has a PMU
(perf stat -e instructions counts), each timed run is wrapped in perf stat
(cycles, instructions, cache misses) and one extra run per multi-thread
scenario in perf c2c (its contended lines and HITM loads); where it has
none, the summary says "no PMU".  Then the instructions per alloc+free
pair, counted by callgrind around the measured loop (1 and 2 threads;
deterministic; the null allocator's count, the harness's own cost, is
subtracted).  Beside each native scenario, the model's scenario that
matches it (bench/tags/scale.c: as many CPUs as threads, the same depth
and in-flight tags, completion self or other, quantum 4) is run with the
same build and its weighted misses per I/O printed, so that a run on a
16- or 64-core machine checks the model's ranking directly.

Writes OUT/runs.tsv (every timed run), OUT/icount.tsv, OUT/summary.json
(schema tags-native/1, results/README.md) and OUT/summary.md.

usage: python3 -m labbench.tagsnative OUT --bin pool=BUILD [--bin NAME=BUILD]
       [--reps N] [--depths 8,32,128,1024] [--threads N] [--quick]
"""
import argparse
import json
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile

from . import stats

SCHEMA = "tags-native/1"
# Pairs per timed run and thread: about a quarter of a second each on this machine.
PAIRS = {"same": 2_000_000, "cross": 400_000}
ICOUNT_PAIRS = 100_000
ICOUNT_THREADS = (1, 2)
# What native.c keeps in flight: 4 per thread (same), half the depth up to
# 32 handed to the next thread (cross); the model's twin keeps the same.
INFLIGHT = 4
CROSS_INFLIGHT = 32
MODEL_IOS = 4000
PERF_EVENTS = ("cycles", "instructions", "cache-misses")


def thread_counts(most):
    """1, 2, 4, 8, ... below MOST, and MOST."""
    out, t = [], 1
    while t < most:
        out.append(t)
        t *= 2
    return out + [most]


def scenarios_for(most):
    return [(t, m) for t in thread_counts(most) for m in ("same", "cross")
            if not (t == 1 and m == "cross")]


def scenario_name(threads, mode, depth):
    if threads == 1:
        return f"1 thread, depth {depth}"
    who = "own" if mode == "same" else ("the other's" if threads == 2 else "the previous one's")
    return f"{threads} threads freeing {who} tags, depth {depth}"


def model_scenario(threads, mode, depth):
    """The model's scenario line (scale.c) that matches a native run, but
    for the allocator and the seed."""
    inflight = INFLIGHT if mode == "same" else max(1, min(depth // 2, CROSS_INFLIGHT))
    completion = "self" if mode == "same" else "other"
    return f"{threads} {threads} {depth} {inflight} {completion} {MODEL_IOS} 1 4 0 1 1"


def model_twin(build, alloc, threads, mode, depth):
    """Weighted misses (one socket, two), misses and wake-ups per I/O of the
    matching model scenario, or None without a model binary."""
    scale = pathlib.Path(build) / "scale"
    if not scale.exists():
        return None
    line = f"{alloc} {model_scenario(threads, mode, depth)}\n"
    out = subprocess.run([str(scale)], input=line, capture_output=True, text=True,
                         timeout=3600)
    if out.returncode:
        return {"scenario": line.strip(), "error": out.stderr.strip()[-300:]}
    header, row = out.stdout.splitlines()[:2]
    r = dict(zip(header.split("\t"), row.split("\t")))
    return {"scenario": line.strip(), **{k: float(r[k]) for k in
                                         ("wmiss_1n", "wmiss_2n", "misses", "wakeups")}}


def pmu_status():
    """"" when perf counts instructions here, else why not ("no PMU")."""
    try:
        out = subprocess.run(["perf", "stat", "-x,", "-e", "instructions", "true"],
                             capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return "no perf"
    if out.returncode or "<not supported>" in out.stderr or "<not counted>" in out.stderr:
        return "no PMU"
    return ""


def perf_values(path):
    """perf stat -x, output: {event: count}."""
    values = {}
    for line in pathlib.Path(path).read_text().splitlines():
        f = line.split(",")
        if len(f) > 2 and f[2] in PERF_EVENTS and f[0].strip().isdigit():
            values[f[2]] = int(f[0])
    return values


def c2c_stats(binary, alloc, threads, mode, depth, pairs, workdir):
    """perf c2c of one run: its HITM loads and contended lines, as perf c2c
    report --stats prints them."""
    data = workdir / "c2c.data"
    try:
        subprocess.run(["perf", "c2c", "record", "-o", str(data), "--", binary, "time", alloc,
                        str(threads), mode, str(depth), str(pairs)],
                       capture_output=True, text=True, check=True, timeout=600)
        rep = subprocess.run(["perf", "c2c", "report", "-i", str(data), "--stats"],
                             capture_output=True, text=True, check=True, timeout=600).stdout
    except (OSError, subprocess.SubprocessError) as e:
        return {"error": str(e)[-300:]}
    finally:
        data.unlink(missing_ok=True)
    out = {}
    for key in ("Load Local HITM", "Load Remote HITM", "Total Shared Cache Lines",
                "Load HITs on shared lines", "Store HITs on shared lines"):
        m = re.search(rf"{re.escape(key)}\s*:\s*(\d+)", rep)
        if m:
            out[key.lower().replace(" ", "_")] = int(m.group(1))
    return out


def time_run(binary, alloc, threads, mode, depth, pairs, perf):
    """ns and retries per pair; with PERF, the perf stat counts of the run
    per pair (every thread's pairs, warm-up included: pairs x threads x 1.1)."""
    cmd = [binary, "time", alloc, str(threads), mode, str(depth), str(pairs)]
    counts = {}
    with tempfile.NamedTemporaryFile(suffix=".perf") as f:
        if perf:
            cmd = ["perf", "stat", "-x,", "-o", f.name, "-e", ",".join(PERF_EVENTS), "--"] + cmd
        out = subprocess.run(cmd, capture_output=True, text=True, check=True,
                             timeout=1800).stdout
        if perf:
            counts = {k: v / (pairs * threads * 1.1) for k, v in perf_values(f.name).items()}
    ns, retries = out.split()
    return float(ns), float(retries), counts


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
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                    help="most threads (default: the cores); 1, 2, 4, ... up to it")
    ap.add_argument("--quick", action="store_true", help="a tenth of the pairs, 2 repetitions")
    args = ap.parse_args(argv)
    bins = parse_bins(args.bin)
    depths = [int(d) for d in args.depths.split(",")]
    reps = 2 if args.quick else args.reps
    scale = 10 if args.quick else 1
    args.out.mkdir(parents=True, exist_ok=True)
    pmu = pmu_status()

    # (label, binary, allocator argument): sbitmap once, each pool build.
    allocs = [("sbitmap", bins[0][1], "sbitmap")] + [(n, b, "pool") for n, b in bins]
    timed = allocs + [("null", bins[0][1], "null")]
    points = [(t, m, d) for t, m in scenarios_for(max(1, args.threads)) for d in depths]
    total = len(points) * len(timed) * reps
    print(f"bench-tags-native: {len(points)} scenarios (1 to {args.threads} threads) x "
          f"{len(allocs)} allocators x {reps} repetitions (ABBA), then callgrind; "
          f"perf: {pmu or 'yes'}; results in {args.out}", flush=True)

    # The model's twin of every point, first: printed beside its timings.
    model = {}
    for threads, mode, depth in points:
        for label, binary, alloc in allocs:
            model[(label, threads, mode, depth)] = model_twin(
                pathlib.Path(binary).parent, alloc, threads, mode, depth)

    runs, n = [], 0
    for rep in range(reps):
        order = timed if rep % 2 == 0 else timed[::-1]
        for threads, mode, depth in points:
            for label, binary, alloc in order:
                n += 1
                ns, retries, counts = time_run(binary, alloc, threads, mode, depth,
                                               PAIRS[mode] // scale, not pmu)
                runs.append({"alloc": label, "threads": threads, "mode": mode, "depth": depth,
                             "rep": rep + 1, "ns_per_pair": ns, "retries_per_pair": retries,
                             **{f"perf_{k.replace('-', '_')}_per_pair": v
                                for k, v in counts.items()}})
                twin = model.get((label, threads, mode, depth))
                beside = (f" | model {twin['scenario']}: {twin['wmiss_1n']:.2f} weighted "
                          f"misses/I/O" if twin and "wmiss_1n" in twin else "")
                print(f"[{n}/{total}] {scenario_name(threads, mode, depth)}: {label} "
                      f"rep {rep + 1}/{reps} {ns:.1f} ns/pair{beside}", flush=True)

    c2c = {}
    if not pmu:
        for threads, mode, depth in points:
            if threads > 1:
                for label, binary, alloc in allocs:
                    c2c[(label, threads, mode, depth)] = c2c_stats(
                        binary, alloc, threads, mode, depth, PAIRS[mode] // (10 * scale),
                        args.out)

    counts = []
    for threads, mode, depth in points:
        if threads not in ICOUNT_THREADS:
            continue
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
    summary["threads_max"] = args.threads
    summary["pmu"] = pmu or "yes"
    for s in summary["scenarios"]:
        k = (s["threads"], s["mode"], s["depth"])
        s["harness_ns_per_pair"] = stats.describe(
            [r["ns_per_pair"] for r in runs if r["alloc"] == "null" and
             (r["threads"], r["mode"], r["depth"]) == k])
        for label in s["allocs"]:
            a = s["allocs"][label]
            a["model"] = model.get((label,) + k)
            if (label,) + k in c2c:
                a["perf_c2c"] = c2c[(label,) + k]
            perf = [r for r in runs if r["alloc"] == label and
                    (r["threads"], r["mode"], r["depth"]) == k]
            keys = [x for x in perf[0] if x.startswith("perf_")] if perf else []
            if keys:
                a["perf_per_pair"] = {x[5:-9]: statistics.median(r[x] for r in perf)
                                      for x in keys}
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
    pmu = summary.get("pmu", "n/a")
    head = ["scenario"] + [f"{a} ns/pair (spread)" for a in allocs]
    head += [f"{a}/sbitmap ns" for a in allocs[1:]] + ["harness alone ns/pair"]
    head += [f"{a} instr/pair" for a in allocs]
    head += [f"{a} model wmiss/I/O" for a in allocs]
    if pmu == "yes":
        head += [f"{a} perf cycles / cache-misses per pair" for a in allocs]
    lines = [f"# bench-tags-native: {summary['run']}", "",
             f"Median ns per alloc+free pair over {summary['reps']} repetitions (ABBA), spread "
             "(max - min) / median; instructions per pair from callgrind, net of the harness "
             "(1 and 2 threads). Model wmiss/I/O: weighted misses per I/O (one socket) of the "
             "model's scenario that matches the native one (as many CPUs as threads, the same "
             "depth and tags in flight, completion self or other, quantum 4), from the same "
             f"build. PMU: {pmu}" + ("" if pmu == "yes" else
                                      " (perf stat and perf c2c not recorded)") + ".", "",
             "| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for s in summary["scenarios"]:
        a = s["allocs"]
        cells = [s["name"]]
        cells += [f"{a[x]['ns_per_pair']['median']:.1f} ({a[x]['ns_per_pair']['spread']:.0%})"
                  for x in allocs]
        cells += [f"{a[x]['ns_ratio_to_sbitmap']:.2f} {a[x]['ns_verdict']}" for x in allocs[1:]]
        cells.append(f"{s['harness_ns_per_pair']['median']:.1f}")
        cells += ["" if a[x]["instructions_per_pair"] is None else
                  f"{a[x]['instructions_per_pair']:.1f}" for x in allocs]
        cells += [f"{a[x]['model']['wmiss_1n']:.2f}" if (a[x].get("model") or {}).get(
            "wmiss_1n") is not None else "" for x in allocs]
        if pmu == "yes":
            cells += [" / ".join(f"{a[x].get('perf_per_pair', {}).get(k, 0):.1f}"
                                 for k in ("cycles", "cache_misses")) for x in allocs]
        lines.append("| " + " | ".join(cells) + " |")
    c2c = [(s["name"], x, s["allocs"][x]["perf_c2c"]) for s in summary["scenarios"]
           for x in allocs if "perf_c2c" in s["allocs"][x]]
    if c2c:
        lines += ["", "perf c2c (one run per scenario, a tenth of the pairs):", ""]
        lines += [f"- {n}, {x}: " + ", ".join(f"{k} {v}" for k, v in c.items())
                  for n, x, c in c2c]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
