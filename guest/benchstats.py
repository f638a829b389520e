"""What the benchmark's host scripts share (summarize-bench, compare-bench,
report-bench): reading fio's JSON and the telemetry files of a run, the
statistics over repetitions and the noise-aware verdict.  Imported, not run.
"""
import json
import statistics

SCHEMA = "bench-summary/1"

# Counters of a percpu tag pool, as tagpool_blk's stats file (optionally
# prefixed "req.") and blk-mq's debugfs hctx*/tags name them.
POOL_COUNTERS = ("alloc_local", "alloc_refill", "alloc_stolen", "refills", "steals_taken",
                 "steals_given", "returns", "frees", "waits", "wait_ns", "fails")
# tagpool_blk's own per-device counters.
DEVICE_COUNTERS = ("requests_completed", "dev_resource", "device_tag_wait_ns")
# The fio completion latency percentiles kept, as fio's JSON names them.
PERCENTILES = {"p50": "50.000000", "p99": "99.000000", "p99.9": "99.900000"}


def load_fio(path):
    """fio's JSON output; fio may print warnings before it."""
    text = path.read_text()
    return json.loads(text[text.index("{"):])


def fio_figures(path):
    """IOPS, I/Os and clat percentiles (ns) of one fio run (group_reporting:
    jobs[0] is the whole group), and its error code."""
    job = load_fio(path)["jobs"][0]
    rd, wr = job["read"], job["write"]
    pct = rd.get("clat_ns", {}).get("percentile", {})
    return {
        "iops": rd["iops"] + wr["iops"],
        "ios": rd["total_ios"] + wr["total_ios"],
        "clat_ns": {k: pct.get(v) for k, v in PERCENTILES.items()},
        "error": job.get("error", 0),
    }


def read_telemetry(path):
    """A telemetry file: {source: {key: int}}, sources from "== SOURCE"
    lines (a file without them is one source named "")."""
    cur = {}
    sources = {"": cur}
    for line in path.read_text().splitlines():
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


def spread(values):
    med = statistics.median(values)
    return (max(values) - min(values)) / med if med else 0.0


def describe(values):
    """median, min, max, spread and the values themselves."""
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "spread": spread(values), "values": values}


def verdict(a, b):
    """Is B faster or slower than A, beyond the noise of either?  a, b:
    lists of IOPS over repetitions.  "slower" only when B's median is below
    A's minimum and the relative change exceeds both spreads; "faster"
    likewise; "same" otherwise; "n/a" with fewer than 2 repetitions on a side."""
    if len(a) < 2 or len(b) < 2:
        return "n/a"
    ma, mb = statistics.median(a), statistics.median(b)
    change = mb / ma - 1
    noise = max(spread(a), spread(b))
    if mb < min(a) and -change > noise:
        return "slower"
    if mb > max(a) and change > noise:
        return "faster"
    return "same"


def point_key(point, vcpus):
    """What must match for two runs' points to be compared."""
    return (point["name"], point["device"], point["job"], point["jobs"], point["depth"], vcpus)


def load_summary(run):
    """A run's summary.json if it has the bench schema, else None."""
    path = run / "summary.json"
    if not path.exists():
        return None
    data = json.loads(path.read_text())
    return data if data.get("schema") == SCHEMA else None
