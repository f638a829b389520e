"""results/index.jsonl: one line per run, the single source of the
dashboard and of README's status block (labbench report).  Every make
bench* adds its run's line (python3 -m labbench index results RUN), which
replaces a line of the same id; without RUN the whole index is made again
from every run folder.  Lines are sorted by id (the run folders' names
start with the date and time) and carry nothing that changes when nothing
was measured, so the file changes only with the runs.

A line (schema bench-index/1, bench/SCHEMAS.md): id, kind (bench,
bench-tags, bench-ida, bench-tags-native, bench-scale), matrix and only
(bench: the matrix's name, and whether BENCH_ONLY ran some points only;
full_vcpus, the count that ran every point),
commit, clean (every part of the run measured a clean tree; null when not
recorded), date, host, accelerator, vcpus (a list), reps, runtime_s, and
per kind:
 - bench: verdict_rule and points[], one per point and vCPU count that
   ran or was skipped (not those BENCH_ONLY or sweep= left out): name,
   vcpus, device, job, jobs, depth, status (run or skipped), note,
   verdict, ratio (geometric mean of the per-repetition pool/sbitmap IOPS
   ratios), interval (95 %, [lo, hi], hi null when unbounded), range (the
   lowest and highest per-repetition ratio), rep_ratios, iops (per
   allocator median, min, max), p99_us, local_share, steals_per_mio,
   waits_per_mio, refusals_per_mio (per allocator);
 - bench-scale and bench-tags-native: criteria[] (alloc, aim, scenarios,
   missed), for scale runs model_check and quick (a --quick run, a subset
   of the scenarios, which README's status passes over for a full one),
   and for native runs scenarios[] (name, per pool allocator its ns ratio
   to sbitmap, verdict and instructions per pair); a native run's criteria
   are NATIVE_AIM and NATIVE_INSTR_AIMS, one each per pool allocator;
 - bench-tags: points[] (vcpus, depth, ns ratio pool/sbitmap);
 - bench-ida: points[] (ids, IDA/tag_ida ns per alloc and per free).

usage: python3 -m labbench index RESULTS [RUN...]
"""
import json
import pathlib
import sys

from . import summary as sm
from .summary import ALLOCS

SCHEMA = "bench-index/1"
NAME = "index.jsonl"
# The summary schemas of the allocator runs, as labbench.tagsscale and
# labbench.tagsnative write them.
SCALE_SCHEMAS, NATIVE_SCHEMA = ("tags-scale/1", "tags-scale/2"), "tags-native/1"
NATIVE_AIM = "no scenario slower than sbitmap (ns per pair, tagsnative's verdict)"
# Issue 33's aims: instructions per alloc+free pair (callgrind) at most
# sbitmap's, for the local pair and for a tag freed on another CPU.
NATIVE_INSTR_AIMS = (("same", "instructions per pair at most sbitmap's, each CPU freeing its own tags"),
                     ("cross", "instructions per pair at most sbitmap's, a tag freed on another CPU"))


def rounded(x, digits=6):
    """X to DIGITS significant digits (None stays None), so that the index
    is short and its figures are as the page prints them."""
    return None if x is None else float(f"{x:.{digits}g}")


def read_json(path):
    return json.loads(path.read_text()) if path.exists() else None


def run_info(run):
    """The run's run-info.json, and whether every part of it (vcpus-N/
    of a sweep) measured a clean tree: True, False or None (unknown)."""
    info = read_json(run / "run-info.json") or {}
    parts = [info] + [read_json(p) or {} for p in sorted(run.glob("vcpus-*/run-info.json"))]
    cleans = [p.get("clean") for p in parts]
    clean = False if False in cleans else None if None in cleans else True
    return info, clean


def side_figures(p, alloc):
    s = p.get(alloc)
    if not s:
        return None
    return {k: rounded(s["iops"][k]) for k in ("median", "min", "max")}


def bench_point(p, vcpus):
    """A summary point as the index keeps it."""
    pc = (p.get("pool") or {}).get("contention") or {}
    p99 = {a: rounded(((p.get(a) or {}).get("clat_ns") or {}).get("p99", {}).get("median", 0) / 1000
                      or None) for a in ALLOCS}
    status = ("left out" if p.get("note") == sm.LEFT_OUT else p.get("status", "run"))
    return {
        "name": p["name"], "vcpus": vcpus, "device": p["device"], "job": p["job"],
        "jobs": p["jobs"], "depth": p["depth"], "status": status, "note": p.get("note") or "",
        "verdict": p["verdict"],
        "ratio": rounded(p.get("ratio_pool_to_sbitmap")),
        "interval": [rounded(x) for x in p["ratio_interval"]] if p.get("ratio_interval") else None,
        "range": [rounded(x) for x in p["ratio_range"]] if p.get("ratio_range") else None,
        "rep_ratios": [rounded(r["ratio"]) for r in p.get("rep_ratios") or []],
        "iops": {a: side_figures(p, a) for a in ALLOCS},
        "p99_us": p99,
        "local_share": rounded(pc.get("local_share")),
        "steals_per_mio": rounded(pc.get("steals_per_mio")),
        "waits_per_mio": rounded(pc.get("waits_per_mio")),
        "refusals_per_mio": {a: rounded(((p.get(a) or {}).get("contention") or {})
                                        .get("refusals_per_mio")) for a in ALLOCS},
    }


def bench_entry(run, summary):
    """The fields of a matrix run: its own summary and its vcpus-N/ ones."""
    parts = [summary] + [s for s in (sm.load_summary(d) for d in sorted(run.glob("vcpus-*"))) if s]
    points = [bench_point(p, s["vcpus"]) for s in parts for p in s["points"]]
    left_out = [p for p in points if p["status"] == "left out"]
    return {"matrix": summary["matrix"],
            "only": run.name.endswith("-only") or (bool(left_out) and len(parts) == 1),
            "vcpus": sorted(s["vcpus"] for s in parts), "full_vcpus": summary["vcpus"],
            "reps": summary["reps"],
            "runtime_s": summary["runtime_s"], "verdict_rule": summary.get("verdict_rule"),
            "points": [p for p in points if p["status"] != "left out"]}


def scale_entry(summary):
    return {"criteria": [{k: c[k] for k in ("alloc", "aim", "scenarios", "missed")}
                         for c in summary["criteria"]],
            "model_check": summary.get("model_check", {}).get("passed"),
            "quick": bool(summary.get("quick"))}


def native_entry(summary):
    pools = [a for a in summary["allocs"] if a.startswith("pool")]
    scenarios = []
    for s in summary["scenarios"]:
        scenarios.append({"name": s["name"], **{a: {
            "ns_ratio": rounded(s["allocs"][a].get("ns_ratio_to_sbitmap")),
            "verdict": s["allocs"][a].get("ns_verdict"),
            "instructions": rounded(s["allocs"][a].get("instructions_per_pair"))} for a in pools}})
    criteria = summary.get("criteria") or [
        {"alloc": a, "aim": NATIVE_AIM, "scenarios": len(scenarios),
         "missed": sum(1 for s in scenarios if s[a]["verdict"] == "slower")} for a in pools]
    return {"criteria": criteria + instruction_criteria(summary, pools), "scenarios": scenarios}


def instruction_criteria(summary, pools):
    """NATIVE_INSTR_AIMS judged on the instruction ratios labbench.tagsnative
    wrote for SUMMARY's scenarios that callgrind counted."""
    out = []
    for mode, aim in NATIVE_INSTR_AIMS:
        for a in pools:
            ratios = [r for s in summary["scenarios"] if s.get("mode", "same") == mode
                      if (r := s["allocs"][a].get("instructions_ratio_to_sbitmap")) is not None]
            if ratios:
                out.append({"alloc": a, "aim": aim, "scenarios": len(ratios),
                            "missed": sum(1 for r in ratios if r > 1)})
    return out


def tags_entry(summary):
    return {"points": [{"vcpus": p["vcpus"], "depth": p["depth"],
                        "ns_ratio": p["ratio_pool_to_sbitmap"]} for p in summary["points"]]}


def ida_entry(summary):
    return {"points": [{"ids": p["ids"], "alloc_ratio": p["ida_to_tag_ida_alloc"],
                        "free_ratio": p["ida_to_tag_ida_free"]} for p in summary["points"]]}


def entry(run):
    """The index line of RUN, or None when it holds no summary."""
    run = pathlib.Path(run)
    summary = read_json(run / "summary.json")
    if not summary:
        return None
    info, clean = run_info(run)
    out = {"schema": SCHEMA, "id": run.name, "kind": info.get("kind"),
           "matrix": None, "only": False, "commit": info.get("commit"), "clean": clean,
           "date": info.get("date"),
           "host": f"{info.get('host_cpu') or '?'}, {info.get('host_cores') or '?'} cores",
           "accelerator": info.get("accelerator"), "vcpus": info.get("vcpus"),
           "reps": None, "runtime_s": None}
    schema = summary.get("schema")
    if schema == sm.SCHEMA:
        out["kind"] = "bench"
        out.update(bench_entry(run, summary))
    elif schema in SCALE_SCHEMAS:
        out["kind"] = "bench-scale"
        out.update(scale_entry(summary))
    elif schema == NATIVE_SCHEMA:
        out["kind"] = "bench-tags-native"
        out["reps"] = summary.get("reps")
        out.update(native_entry(summary))
    elif schema and schema.startswith("tagbench-summary/"):
        out["kind"] = "bench-tags"
        out.update(tags_entry(summary))
    elif schema and schema.startswith("idabench-summary/"):
        out["kind"] = "bench-ida"
        out.update(ida_entry(summary))
    else:
        sys.exit(f"labbench index: {run}/summary.json has schema {schema}, which it does not know")
    return out


def read(results):
    """The index's lines, oldest first; [] without an index."""
    path = pathlib.Path(results) / NAME
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def write(results, entries):
    lines = sorted(entries, key=lambda e: e["id"])
    (pathlib.Path(results) / NAME).write_text(
        "".join(json.dumps(e, sort_keys=True, separators=(",", ":")) + "\n" for e in lines))


def main(args):
    results = args.results
    if args.runs:
        entries = {e["id"]: e for e in read(results)}
        for run in args.runs:
            e = entry(run)
            if e is None:
                sys.exit(f"labbench index: {run} has no summary.json")
            entries[e["id"]] = e
        entries = list(entries.values())
    else:
        entries = [e for e in (entry(d) for d in sorted(results.iterdir()) if d.is_dir()) if e]
    write(results, entries)
    print(f"labbench index: {results / NAME}: {len(entries)} runs")
