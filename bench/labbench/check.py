"""Check a matrix run's summary.json against the raw files it came from,
recomputed here without labbench.summary's code (fio's JSON is read with
labbench.fio.load, every figure is taken from it anew):
 - every fio JSON of the run is counted, each side's IOPS median, min, max
   and spread and its clat percentiles (median over runs) are fio's, those
   of its first reporting group; a run counts when no group reported an
   error; the IOPS and clat p99 medians of every load group (the later
   groups, by name) are fio's too, and each disk's requests in flight
   halfway through (median over runs) are the telemetry's ("during");
 - for tagpool_blk points that share no tag space: the pool side's local
   share is alloc_local / all allocations of the telemetry (after - before),
   every I/O took exactly one tag (allocations = requests_completed), and
   the driver completed as many requests as fio counted I/Os (within 0.1%);
 - per point, the pool/sbitmap ratio of each repetition both sides ran
   without error (fio/POINT.ALLOC.REP.json), their geometric mean, and the
   interval and verdict labbench.stats gives them.
Before that, every summary the run keeps (the run's own, its vcpus-N/
ones, sweep.json; a -tags or -ida run's summary) is made again from the
raw files and must come out the same to the byte.  A packed run
(labbench.pack) is unpacked to a temporary folder for this; the run
itself is never written.  Prints each disagreement; the last line says
how many values were checked and exits 1 when any disagreed.

usage: python3 -m labbench check RUN
"""
import argparse
import contextlib
import io
import json
import pathlib
import statistics
import tempfile

from . import Status, fio, idabench, pack, stats, sweep, tagbench
from . import summary as summary_mod

def counters(path):
    """Sum of every "key value" line over the file's sections but the
    scheduler tags' (DISK/hctxN/sched_tags)."""
    out = {}
    if not path.exists():
        return out
    sched = False
    for line in path.read_text().splitlines():
        k, _, v = line.partition(" ")
        if k == "==":
            sched = v.strip().endswith("/sched_tags")
        elif not sched and v.strip().isdigit():
            out[k] = out.get(k, 0) + int(v)
    return out


class Checker:
    def __init__(self):
        self.checked = 0
        self.bad = 0

    def same(self, what, want, got, rel=1e-9):
        self.checked += 1
        if want is None and got is None:
            return
        if want is None or got is None or abs(want - got) > rel * max(abs(want), abs(got), 1e-12):
            self.bad += 1
            print(f"DISAGREE {what}: recomputed {want}, summary.json {got}")


def check_side(c, run, point, alloc, side):
    name = f"{point['name']} {alloc}"
    paths = [run / r for r in side["runs"]]
    on_disk = sorted(run.glob(f"fio/{point['name']}.{alloc}.*.json"))
    c.same(f"{name}: fio files on disk vs runs listed", len(on_disk), len(paths))
    outputs = [fio.load(p)["jobs"] for p in paths]
    jobs = [groups[0] for groups in outputs]
    good_outputs = [groups for groups in outputs if not any(g.get("error", 0) for g in groups)]
    good = [groups[0] for groups in good_outputs]
    iops = [j["read"]["iops"] + j["write"]["iops"] for j in good]
    c.same(f"{name}: repetitions", len(good), side["reps"])
    med = statistics.median(iops)
    c.same(f"{name}: IOPS median", med, side["iops"]["median"])
    c.same(f"{name}: IOPS min", min(iops), side["iops"]["min"])
    c.same(f"{name}: IOPS max", max(iops), side["iops"]["max"])
    c.same(f"{name}: IOPS spread", (max(iops) - min(iops)) / med, side["iops"]["spread"])
    for key, fio_key in fio.PERCENTILES.items():
        vals = [j["read"]["clat_ns"]["percentile"][fio_key] for j in good]
        got = side["clat_ns"][key]["median"] if side["clat_ns"].get(key) else None
        c.same(f"{name}: clat {key} median", statistics.median(vals), got)
    load = {}
    for groups in good_outputs:
        for g in groups[1:]:
            load.setdefault(g["jobname"], []).append(g)
    c.same(f"{name}: load groups", len(load), len(side.get("load", {})))
    for group, gs in load.items():
        got = side.get("load", {}).get(group)
        c.same(f"{name}: load {group} IOPS median",
               statistics.median(g["read"]["iops"] + g["write"]["iops"] for g in gs),
               got["iops"]["median"] if got else None)
        c.same(f"{name}: load {group} clat p99 median",
               statistics.median(g["read"]["clat_ns"]["percentile"][fio.PERCENTILES["p99"]] for g in gs),
               got["clat_ns"]["p99"]["median"] if got and got["clat_ns"].get("p99") else None)
    inflight = {}
    for p in paths:
        during = run / "telemetry" / (p.name[:-len(".json")] + ".during")
        disk = None
        for line in during.read_text().splitlines() if during.exists() else ():
            if line.startswith("== "):
                disk = line[3:].strip()
            elif line.split()[:1] == ["inflight"]:
                inflight.setdefault(disk, []).append(int(line.split()[1]))
    got = side.get("inflight_mid_run") or {}
    c.same(f"{name}: disks with requests in flight mid-run", len(inflight), len(got))
    for disk, vals in inflight.items():
        c.same(f"{name}: {disk} in flight mid-run median", statistics.median(vals),
               got[disk]["median"] if disk in got else None)
    params = point["params"].split()
    if not point["device"].startswith("tagpool_blk") or "shared_tags=1" in params or not side["contention"]:
        return
    total = {}
    for p in paths:
        base = p.name[:-len(".json")]
        after = counters(run / "telemetry" / f"{base}.after")
        before = counters(run / "telemetry" / f"{base}.before")
        for k, v in after.items():
            total[k] = total.get(k, 0) + v - before.get(k, 0)
    fio_ios = sum(j["read"]["total_ios"] + j["write"]["total_ios"] for j in jobs)
    done = total["requests_completed"]
    c.checked += 1
    if abs(done - fio_ios) > max(0.001 * fio_ios, len(jobs)):
        c.bad += 1
        print(f"DISAGREE {name}: driver completed {done} requests, fio counted {fio_ios} I/Os")
    prefix = "req." if "req.alloc_local" in total else ""
    if prefix + "alloc_local" not in total:
        return
    allocs = sum(total.get(prefix + k, 0) for k in fio.ALLOC_COUNTERS)
    c.same(f"{name}: local share", total[prefix + "alloc_local"] / allocs,
           side["contention"]["local_share"])
    c.same(f"{name}: allocations = requests completed", float(done), float(allocs), rel=0)


def rep_iops(run, point, alloc):
    """{rep: IOPS of the device under test} of a side's fio runs without
    an error in any group, from the file names."""
    out = {}
    for path in run.glob(f"fio/{point['name']}.{alloc}.*.json"):
        groups = fio.load(path)["jobs"]
        if not any(g.get("error", 0) for g in groups):
            out[int(path.name.split(".")[-2])] = groups[0]["read"]["iops"] + groups[0]["write"]["iops"]
    return out


def check_ratio(c, run, point):
    name = point["name"]
    pool, sb = rep_iops(run, point, "pool"), rep_iops(run, point, "sbitmap")
    reps = sorted(set(pool) & set(sb))
    got = {r["rep"]: r["ratio"] for r in point.get("rep_ratios", [])}
    c.same(f"{name}: paired repetitions", len(reps), len(got))
    for k in reps:
        c.same(f"{name}: ratio of repetition {k}", pool[k] / sb[k], got.get(k))
    want = stats.paired_ratio([pool[k] for k in reps], [sb[k] for k in reps])
    c.same(f"{name}: pool/sbitmap geometric mean", want["ratio"], point["ratio_pool_to_sbitmap"])
    for i, bound in enumerate(("low", "high")):
        c.same(f"{name}: interval {bound}", (want["interval"] or [None, None])[i],
               (point["ratio_interval"] or [None, None])[i])
    c.checked += 1
    if want["verdict"].value != point["verdict"]:
        c.bad += 1
        print(f"DISAGREE {name}: verdict recomputed {want['verdict'].value}, summary.json {point['verdict']}")


def check_matrix(c, run, summary):
    """The figures of a matrix run's SUMMARY against RUN's raw files."""
    for point in summary["points"]:
        for alloc in ("pool", "sbitmap"):
            if point.get(alloc):
                check_side(c, run, point, alloc, point[alloc])
        if point.get("pool") and point.get("sbitmap"):
            c.same(f"{point['name']}: ratio of the medians",
                   point["pool"]["iops"]["median"] / point["sbitmap"]["iops"]["median"],
                   point["ratio_of_medians"])
            check_ratio(c, run, point)
    return len(summary["points"])


# A summary's schema: the command that makes it from the raw files, and
# the files it writes.
# Older schemas are kept as they were made.
REBUILD = {summary_mod.SCHEMA: (summary_mod.main, ("summary.json", "summary.txt")),
           tagbench.SCHEMA: (tagbench.main, ("summary.json", "summary.md")),
           idabench.SCHEMA: (idabench.main, ("summary.json", "summary.md"))}


def rebuild(c, run, full, part):
    """Make PART's summary again in FULL (a whole copy of RUN) and compare
    it with the one RUN keeps; returns the kept summary, or None."""
    kept = run / part / "summary.json"
    if not kept.exists():
        return None
    summary = json.loads(kept.read_text())
    schema = summary.get("schema", "")
    maker = REBUILD.get(schema)
    if maker is None or summary.get("layout") == "bench-default":
        print(f"labbench check: {run / part}: {schema} {summary.get('layout', '')}: "
              "kept as made, no tool recomputes it")
        return summary
    make, outputs = maker
    for name in outputs:
        (full / part / name).unlink(missing_ok=True)
    with contextlib.redirect_stdout(io.StringIO()):
        make(argparse.Namespace(run=full / part))
    for name in outputs:
        c.checked += 1
        if (full / part / name).read_text() != (run / part / name).read_text():
            c.bad += 1
            print(f"DISAGREE {run / part / name}: not what labbench makes of the raw files again")
    return summary


def main(args):
    run = args.run
    c = Checker()
    npoints = 0
    with tempfile.TemporaryDirectory() as tmp:
        full = pathlib.Path(tmp) / run.resolve().name
        pack.unpack(run, full)
        parts = [pathlib.Path(".")] + sorted(p.relative_to(run) for p in run.glob("vcpus-*"))
        for part in parts:
            summary = rebuild(c, run, full, part)
            if summary and summary.get("layout") == "bench-run":
                npoints += check_matrix(c, full / part, summary)
        if (run / "sweep.json").exists():
            with contextlib.redirect_stdout(io.StringIO()):
                sweep.main(argparse.Namespace(run=full))
            for name in ("sweep.json", "sweep.txt"):
                c.checked += 1
                if (full / name).read_text() != (run / name).read_text():
                    c.bad += 1
                    print(f"DISAGREE {run / name}: not what labbench sweep makes again")
    what = f"{run}: {npoints} points, {c.checked} values and files"
    if c.bad:
        print(f"labbench check: {what}: {c.bad} disagree with the raw files")
        return Status.FAILURE
    print(f"labbench check: {what} agree with the raw files")
    return Status.SUCCESS
