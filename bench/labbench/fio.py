"""A benchmark run's raw files, read as what they are: fio's JSON output
(with Python's json) and the telemetry files bench/guest/bench-run writes before,
halfway through and after each fio run ("== SOURCE" lines, then "key value"
lines).

Run as a program, it prints the IOPS of each fio run named (read + write of
fio's first group, the device under test; a load group's in brackets after
its name), one a line: bench/guest/bench-run's progress line.

usage: python3 -m labbench fio FIO.json...
"""
import json
import pathlib

# Counters of a percpu tag pool, in the order and with the names
# percpu_tag_pool_show() (lib/percpu_tags.c) prints them; tagpool_blk's
# stats file (optionally prefixed "req.") and blk-mq's debugfs hctx*/tags
# use them too.  The host test bench-tools checks this list against the
# patched tree.
POOL_COUNTERS = ("alloc_local", "alloc_shared", "alloc_stolen", "refills", "returns",
                 "scarce_entries", "waits", "fails")
# The counters of the pool before it was rewritten (2026-12-06), in the
# telemetry of the runs committed until then; read, never written.
OLD_POOL_COUNTERS = ("alloc_local", "alloc_refill", "alloc_stolen", "alloc_handed", "refills",
                     "steals", "returns", "frees", "waits", "wait_ns", "fails")
# Every successful allocation counts in exactly one of these: alloc_local,
# alloc_shared, alloc_stolen now; alloc_local, alloc_refill, alloc_stolen,
# alloc_handed in the old runs.  A pool has only the counters of its own
# generation, so summing the union (missing counters as 0) fits both.
ALLOC_COUNTERS = POOL_COUNTERS[:3] + ("alloc_refill", "alloc_handed")


def pool_counters(keys, prefix=""):
    """The pool counters of the generation that wrote KEYS (a telemetry
    section): OLD_POOL_COUNTERS if it has one of their own names (after
    PREFIX), else POOL_COUNTERS; in that order, so that the summaries of
    old runs come out as they were made."""
    old = any(prefix + k in keys for k in OLD_POOL_COUNTERS if k not in POOL_COUNTERS)
    return OLD_POOL_COUNTERS if old else POOL_COUNTERS


def steal_counter(counters):
    """The counter of tags taken from another CPU's cache among COUNTERS
    (keys): the old pool's "steals", else the kernel's "alloc_stolen"."""
    return "steals" if "steals" in counters else "alloc_stolen"
# tagpool_blk's own per-device counters.
DEVICE_COUNTERS = ("requests_completed", "dev_resource", "device_tag_wait_ns")
# The fio completion latency percentiles kept, as fio's JSON names them.
PERCENTILES = {"p50": "50.000000", "p99": "99.000000", "p99.9": "99.900000"}


def load(path):
    """fio's JSON output; fio may print warnings before it."""
    text = pathlib.Path(path).read_text()
    return json.loads(text[text.index("{"):])


def group_figures(job):
    """IOPS, I/Os, clat percentiles (ns) and error code of one reporting
    group of fio's JSON (one entry of "jobs" with group_reporting)."""
    rd, wr = job["read"], job["write"]
    pct = rd.get("clat_ns", {}).get("percentile", {})
    return {
        "iops": rd["iops"] + wr["iops"],
        "ios": rd["total_ios"] + wr["total_ios"],
        "clat_ns": {k: pct.get(v) for k, v in PERCENTILES.items()},
        "error": job.get("error", 0),
    }


def figures(path):
    """IOPS, I/Os and clat percentiles (ns) of one fio run: those of its
    first reporting group (group_reporting: jobs[0] is the whole group),
    the device under test.  A job with more groups (new_group, as
    randread-4k-fastslow.fio) runs them beside it as load on other devices:
    "load" has their figures by group name (fio's jobname, the section's
    name), "ios_all" counts the I/Os of every group, and "error" is the
    first group's error code, else the first error of a load group."""
    jobs = load(path)["jobs"]
    out = group_figures(jobs[0])
    load_groups = [group_figures(j) for j in jobs[1:]]
    out["load"] = {j["jobname"]: g for j, g in zip(jobs[1:], load_groups)}
    out["ios_all"] = out["ios"] + sum(g["ios"] for g in load_groups)
    if not out["error"]:
        out["error"] = next((g["error"] for g in load_groups if g["error"]), 0)
    return out


def read_telemetry(path):
    """A telemetry file: {source: {key: int}}, sources from "== SOURCE"
    lines (a file without them is one source named "")."""
    cur = {}
    sources = {"": cur}
    for line in pathlib.Path(path).read_text().splitlines():
        if line.startswith("== "):
            cur = sources.setdefault(line[3:].strip(), {})
            continue
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip("-").isdigit():
            cur[parts[0]] = int(parts[1])
    if not sources[""]:
        del sources[""]
    return sources


def delta(before, after):
    """after - before, per source and key (before may lack keys or be None)."""
    before = before or {}
    return {src: {k: v - before.get(src, {}).get(k, 0) for k, v in keys.items()}
            for src, keys in after.items()}


def main(args):
    for path in args.files:
        f = figures(path)
        load_iops = " ".join(f"{name} {g['iops']:.0f}" for name, g in f["load"].items())
        print(f"{f['iops']:.0f}" + (f" ({load_iops})" if load_iops else ""))

