"""Summarize a matrix benchmark run (make bench, bench/guest/bench-run) into
RUN/summary.json (schema bench-summary/2, bench/SCHEMAS.md) and
RUN/summary.txt, and print the latter.

Per point and allocator (pool, sbitmap): fio IOPS over the repetitions
(median, min, max, spread), the median over repetitions of fio's clat
percentiles p50/p99/p99.9, and contention figures from the telemetry
(after - before, summed over repetitions); per point the pool/sbitmap IOPS
ratio of each repetition (pool and sbitmap run back to back in one boot),
their geometric mean with a 95 % interval and the verdict of
labbench.stats.paired_ratio.  IOPS and percentiles are
those of fio's first reporting group, the device under test; a job with
load groups on other devices (randread-4k-fastslow) has theirs under
"load", for reference only, and the requests each disk had in flight
halfway through a run (telemetry "during") are under "inflight_mid_run".
Also what compare and report share: reading a summary back and matching
points across runs.

usage: python3 -m labbench summary RUN
"""
import json
import pathlib
import sys

from . import fio, stats

SCHEMA = "bench-summary/2"
ALLOCS = ("pool", "sbitmap")
# The note bench/guest/bench-run gives a point that BENCH_ONLY (or sweep=) left out.
LEFT_OUT = "not in BENCH_ONLY"


def point_key(point, vcpus):
    """What must match for two runs' points to be compared."""
    return (point["name"], point["device"], point["job"], point["jobs"], point["depth"], vcpus)


def load_summary(run, schema=SCHEMA, name="summary.json"):
    """A run's summary.json (or NAME) if it has SCHEMA (the bench schema),
    else None."""
    path = pathlib.Path(run) / name
    if not path.exists():
        return None
    data = json.loads(path.read_text())
    return data if data.get("schema") == schema else None


def read_points(run):
    """The points of a run as bench/guest/bench-run ran them, from points.tsv."""
    lines = (run / "points.tsv").read_text().splitlines()
    head = lines[0].split("\t")
    points = []
    for line in lines[1:]:
        p = dict(zip(head, line.split("\t")))
        p["jobs"], p["depth"] = int(p["jobs"]), int(p["depth"])
        points.append(p)
    return points


def read_settings(run):
    path = run / "guest-info.txt"
    if not path.exists():
        return {}
    return dict(line.split(" ", 1) for line in path.read_text().splitlines() if " " in line)


def point_runs(run, point, reps):
    """{alloc: [(rep, fio JSON, telemetry before, after)]} of one point;
    a telemetry file that is missing is None."""
    sides = {}
    for alloc in ALLOCS:
        for rep in range(1, reps + 1):
            base = f"{point['name']}.{alloc}.{rep}"
            fio_json = run / "fio" / f"{base}.json"
            before = run / "telemetry" / f"{base}.before"
            after = run / "telemetry" / f"{base}.after"
            if fio_json.exists():
                sides.setdefault(alloc, []).append(
                    (rep, fio_json, before if before.exists() else None,
                     after if after.exists() else None))
    return sides


def shared(params, device=""):
    """The point's devices share one tag set: null_blk's shared_tags=1 or
    shared_tag_bitmap=1, or several emulated disks of one controller
    (NVMe namespaces, SCSI LUNs: emulated:A+B...)."""
    return ("shared_tags=1" in params.split() or "shared_tag_bitmap=1" in params.split()
            or (device.startswith("emulated:") and "+" in device))


def pool_sections(params, sources, device=""):
    """The sections of one telemetry file that hold pools to count, request
    tags first, then scheduler tags (DISK/hctxN/sched_tags): a tag space
    shared by devices (shared_tags=1, or the emulated disks of one
    controller) shows in every device and one shared
    by hardware queues (shared_tag_bitmap=1) in every hardware queue, so
    each counts once.  Scheduler tags are the queue's own: with
    shared_tag_bitmap=1 one per disk, else one per hardware queue."""
    words = params.split()
    request = [s for s in sources if not s.endswith("/sched_tags")]
    sched = [s for s in sources if s.endswith("/sched_tags")]
    if shared(params, device):
        first_disk = request[0].split("/")[0] if request else ""
        request = [s for s in request if s.split("/")[0] == first_disk]
        if "shared_tag_bitmap=1" in words:
            request = request[:1]
    if "shared_tag_bitmap=1" in words:
        sched = [s for i, s in enumerate(sched)
                 if s.split("/")[0] not in {t.split("/")[0] for t in sched[:i]}]
    return request, sched


def per_io(total, ios, key, scale=1):
    """Counter KEY of TOTAL per I/O times SCALE; None without it or I/Os."""
    return total[key] * scale / ios if key in total and ios else None


def pool_figures(total, ios):
    """A pool's figures from its summed counters (labbench.fio.POOL_COUNTERS,
    or OLD_POOL_COUNTERS in the runs committed before 2026-12-06: there
    steals_per_mio counts "steals", now "alloc_stolen"; handed_per_mio and
    wait_ns_per_io have no counter any more and are null)."""
    allocs = sum(total.get(k, 0) for k in fio.ALLOC_COUNTERS)
    has_pool = "alloc_local" in total
    return {
        "local_share": total["alloc_local"] / allocs if has_pool and allocs else None,
        "allocs_per_io": allocs / ios if has_pool and ios else None,
        "refills_per_mio": per_io(total, ios, "refills", 1e6),
        "steals_per_mio": per_io(total, ios, fio.steal_counter(total), 1e6),
        "handed_per_mio": per_io(total, ios, "alloc_handed", 1e6),
        "waits_per_mio": per_io(total, ios, "waits", 1e6),
        "wait_ns_per_io": per_io(total, ios, "wait_ns"),
        "fails_per_mio": per_io(total, ios, "fails", 1e6),
    }


def contention(point, runs):
    """Contention figures of one side of a point: counters after - before,
    summed over its repetitions, of the request tags (driver tags) and,
    when the disks had an I/O scheduler, of its scheduler tags apart
    (sched_tags).  The tags are shared with any load group, so I/Os are
    counted over every group."""
    params = point["params"]
    total, sched, fio_ios, have = {}, {}, 0, False
    for _rep, fio_json, before, after in runs:
        fio_ios += fio.figures(fio_json)["ios_all"]
        if after is None:
            continue
        have = True
        d = fio.delta(fio.read_telemetry(before) if before else None, fio.read_telemetry(after))
        # A null_blk disk's own section holds only its requests in flight.
        sources = [s for s in d if set(d[s]) != {"inflight"}]
        request, sched_sources = pool_sections(params, sources, point["device"])
        prefix = "req." if any("req.alloc_local" in d[s] for s in sources) else ""
        for s in sources:
            for k in fio.DEVICE_COUNTERS:
                if k in d[s]:
                    total[k] = total.get(k, 0) + d[s][k]
        for sums, pools, pre in ((total, request, prefix), (sched, sched_sources, "")):
            for s in pools:
                for k in fio.pool_counters(d[s], pre):
                    if pre + k in d[s]:
                        sums[k] = sums.get(k, 0) + d[s][pre + k]
        total["_prefix"] = prefix
    if not have:
        return None
    prefix = total.pop("_prefix")
    ios = total.get("requests_completed", fio_ios)
    if point["device"].startswith(("null_blk", "emulated:")):
        source = "blk-mq debugfs hctx*/tags (request tags)"
    else:
        source = "tagpool_blk stats, " + ("req.* (request tags)" if prefix
                                          else "unprefixed (device tags)")
    if sched:
        source += "; scheduler tags apart (sched_tags, from blk-mq debugfs hctx*/sched_tags)"
    out = {
        "source": source,
        "ios": ios,
        "ios_from": "requests_completed" if "requests_completed" in total else "fio total_ios",
        **pool_figures(total, ios),
        "refusals_per_mio": per_io(total, ios, "dev_resource", 1e6),
        "device_tag_wait_ns_per_io": per_io(total, ios, "device_tag_wait_ns"),
        "counters": total,
    }
    if sched:
        out["sched_tags"] = {**pool_figures(sched, ios), "counters": sched}
    return out


def clat_summary(groups):
    """Per percentile, stats.describe of the groups' values, or None."""
    clat = {}
    for k in fio.PERCENTILES:
        vals = [g["clat_ns"][k] for g in groups if g["clat_ns"][k] is not None]
        clat[k] = stats.describe(vals) if vals else None
    return clat


def inflight_mid_run(runs):
    """{disk: stats.describe of its requests in flight halfway through each
    run}, from the telemetry files "during" (null_blk disks), or None."""
    values = {}
    for _rep, _fio_json, _before, after in runs:
        during = after and after.with_suffix(".during")
        if not during or not during.exists():
            continue
        for src, keys in fio.read_telemetry(during).items():
            if "inflight" in keys:
                values.setdefault(src, []).append(keys["inflight"])
    return {disk: stats.describe(v) for disk, v in values.items()} or None


def rep_iops(runs):
    """{rep: IOPS} of the runs fio reported no error for."""
    out = {}
    for rep, fio_json, _b, _a in runs:
        f = fio.figures(fio_json)
        if f["error"] == 0:
            out[rep] = f["iops"]
    return out


def ratio_fields(pool_by_rep, sbitmap_by_rep):
    """The point's ratio fields from each side's {rep: IOPS}: the
    repetitions both sides ran without error are paired."""
    reps = sorted(set(pool_by_rep) & set(sbitmap_by_rep))
    r = stats.paired_ratio([pool_by_rep[k] for k in reps], [sbitmap_by_rep[k] for k in reps])
    return {"rep_ratios": [{"rep": k, "ratio": pool_by_rep[k] / sbitmap_by_rep[k]} for k in reps],
            "ratio_pool_to_sbitmap": r["ratio"], "ratio_interval": r["interval"],
            "ratio_range": r["range"], "verdict": r["verdict"].value}


NO_RATIO = {"rep_ratios": [], "ratio_pool_to_sbitmap": None, "ratio_interval": None,
            "ratio_range": None, "ratio_of_medians": None}


def side_summary(point, runs, run):
    figures = [fio.figures(fio_json) for _rep, fio_json, _b, _a in runs]
    good = [f for f in figures if f["error"] == 0]
    if not good:
        return None
    side = {
        "reps": len(good),
        "failed_runs": len(figures) - len(good),
        "iops": stats.describe([f["iops"] for f in good]),
        "clat_ns": clat_summary(good),
        "contention": contention(point, runs),
        "runs": [str(fio_json.relative_to(run)) for _rep, fio_json, _b, _a in runs],
    }
    load = {}
    for name in good[0]["load"]:
        groups = [f["load"][name] for f in good if name in f["load"]]
        load[name] = {"iops": stats.describe([g["iops"] for g in groups]),
                      "clat_ns": clat_summary(groups)}
    if load:
        side["load"] = load
    inflight = inflight_mid_run(runs)
    if inflight:
        side["inflight_mid_run"] = inflight
    return side


def summarize(run):
    info = json.loads((run / "run-info.json").read_text()) if (run / "run-info.json").exists() else {}
    settings = read_settings(run)
    reps = int(settings["reps"])
    out = []
    for p in read_points(run):
        entry = dict(p)
        if p["status"] != "run":
            entry.update({"pool": None, "sbitmap": None, **NO_RATIO,
                          "verdict": stats.Verdict.SKIPPED.value})
            out.append(entry)
            continue
        sides = point_runs(run, p, reps)
        for alloc in ALLOCS:
            entry[alloc] = side_summary(p, sides[alloc], run) if alloc in sides else None
        pool, sb = entry["pool"], entry["sbitmap"]
        if pool and sb:
            entry.update(ratio_fields(rep_iops(sides["pool"]), rep_iops(sides["sbitmap"])))
            entry["ratio_of_medians"] = pool["iops"]["median"] / sb["iops"]["median"]
        else:
            entry.update({**NO_RATIO, "verdict": stats.Verdict.NA.value})
        out.append(entry)
    return {
        "schema": SCHEMA,
        "run": run.resolve().name,
        "layout": "bench-run",
        "run_info": info,
        "matrix": settings.get("matrix"),
        "kernel": settings.get("kernel"),
        "ab_param": settings.get("ab_param"),
        "blk_mq_tag_alloc": settings.get("blk_mq.tag_alloc"),
        "vcpus": int(settings.get("vcpus") or (info.get("vcpus") or [0])[0]),
        "reps": reps,
        "runtime_s": int(settings["runtime"]) if "runtime" in settings else None,
        "verdict_rule": stats.METHOD,
        "points": out,
    }


def fmt(x, spec):
    return "-" if x is None else format(x, spec)


def interval_text(interval):
    """"[lo-hi]" of a ratio interval, "-" without one, "inf" unbounded."""
    if not interval:
        return "-"
    lo, hi = interval
    if hi is None and not lo:
        return "unbounded"
    return f"[{lo:.2f}-{'inf' if hi is None else format(hi, '.2f')}]"


def iops_text(side):
    """"median (range %)" of one side's IOPS, "-" without it."""
    return "-" if not side else f"{side['iops']['median']:.0f} ({side['iops']['spread']:.0%})"


def text(summary):
    lines = [f"{summary['run']}: matrix {summary['matrix']}, vcpus={summary['vcpus']}, "
             f"A/B by {summary['ab_param']}; IOPS median (range: (max-min)/median), clat p99 in us",
             f"pool/sb: {summary['verdict_rule']}",
             f"{'point':20} {'pool IOPS':>16} {'sbitmap IOPS':>16} {'pool/sb':>7} {'95% interval':>13}"
             f"  {'verdict':17} {'local':>6} {'steals/M':>9} {'refus/M pool':>12} {'sbitmap':>9}"
             f" {'p99 pool':>8} {'sbitmap':>8}"]
    left_out = [p["name"] for p in summary["points"] if p.get("note") == LEFT_OUT]
    for p in summary["points"]:
        if p["name"] in left_out:
            continue
        if p["verdict"] == "skipped":
            lines.append(f"{p['name']:20} skipped: {p['note']}")
            continue
        cells = [iops_text(p[alloc]) for alloc in ALLOCS]
        pc = (p["pool"] or {}).get("contention") or {}
        sc = (p["sbitmap"] or {}).get("contention") or {}
        p99 = [fmt(((p[a] or {}).get("clat_ns") or {}).get("p99") and
                   p[a]["clat_ns"]["p99"]["median"] / 1000, ".0f") for a in ALLOCS]
        lines.append(
            f"{p['name']:20} {cells[0]:>16} {cells[1]:>16} {fmt(p['ratio_pool_to_sbitmap'], '.3f'):>7}"
            f" {interval_text(p['ratio_interval']):>13}  {p['verdict']:17} {fmt(pc.get('local_share'), '.1%'):>6}"
            f" {fmt(pc.get('steals_per_mio'), '.0f'):>9} {fmt(pc.get('refusals_per_mio'), '.0f'):>12}"
            f" {fmt(sc.get('refusals_per_mio'), '.0f'):>9} {p99[0]:>8} {p99[1]:>8}")
        for name in (p["pool"] or p["sbitmap"] or {}).get("load", {}):
            lines.append(load_line(p, name))
    if left_out:
        lines.append(f"not run here (BENCH_ONLY, or not a sweep= point): {' '.join(left_out)}")
    return "\n".join(lines) + "\n"


def load_line(p, name):
    """A load group of a point, not counted: its IOPS, p99 and what each
    disk had in flight halfway through, per allocator."""
    cells, p99, held = [], [], []
    for alloc in ALLOCS:
        g = ((p[alloc] or {}).get("load") or {}).get(name)
        cells.append(iops_text(g))
        p99.append(fmt(g and g["clat_ns"].get("p99") and g["clat_ns"]["p99"]["median"] / 1000, ".0f"))
        inflight = (p[alloc] or {}).get("inflight_mid_run") or {}
        held.append(f"{alloc} " + " ".join(f"{disk} {v['median']:.0f}" for disk, v in inflight.items()))
    return (f"{'  + ' + name:20} {cells[0]:>16} {cells[1]:>16}  load, not counted;"
            f" p99 {p99[0]}/{p99[1]} us; in flight mid-run: {', '.join(held)}")


def main(args):
    run = args.run
    if not (run / "points.tsv").exists():
        sys.exit(f"labbench summary: {run} has no points.tsv: not a run of bench/guest/bench-run")
    summary = summarize(run)
    (run / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    (run / "summary.txt").write_text(text(summary))
    sys.stdout.write(text(summary))

