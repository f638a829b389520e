"""Summarize a bench-ida run: RUN/guest/idabench.txt (in-guest, tag_ida and
the xarray IDA interleaved) and RUN/native.txt (natively, alternating runs of
tools/testing/tag_ida/bench and drivers/idabench/native_ida) ->
RUN/summary.json and RUN/summary.md.  Per size: median ns per alloc and per
free with spread ((max-min)/median), bits of memory per id, the IDA/tag_ida
ratio, and ganged allocation (32 ids per call) against single calls.
Natively the medians are over runs of each program's best-of-5 figures, and
tag_ida's "grown" rows (from empty, as the IDA always is) are compared with
the IDA; a native.txt without IDA rows (runs before native_ida) gives null
ratios.

usage: python3 -m labbench idabench RUN
"""
import json
import re
import statistics

from .stats import spread
from .tagbench import parse

# tools/testing/tag_ida/bench.c and drivers/idabench/native_ida.c lines.
DENSE = re.compile(r"\s*(\d+) ids (\S+)\s+alloc\s+([\d.]+) ns\s+free\s+([\d.]+) ns\s+"
                   r"tree ([\d.]+) bits/id \((\d+) bytes\)$")
GANGED = re.compile(r"(\d+) ids above\s+(\d+) allocated: alloc_many\(\d+\)\s+([\d.]+) ns, "
                    r"\d+ x alloc\s+([\d.]+) ns")


SCHEMA = "idabench-summary/2"


def stat(values):
    return {"median": statistics.median(values), "spread": round(spread(values), 3),
            "values": values}


def main(args):
    run = args.run
    by = {}
    for line in (run / "guest" / "idabench.txt").read_text().splitlines():
        r = parse(line)
        by.setdefault((int(r["n"]), r["alloc"]), []).append(r)
    rows = []
    for n in sorted({n for n, _ in by}):
        row = {"ids": n}
        for alloc in ("tag_ida", "ida", "tag_ida_many32"):
            runs = by[(n, alloc)]
            row[alloc] = {"ns_per_alloc": stat([r["ns_per_alloc"] for r in runs]),
                          "ns_per_free": stat([r["ns_per_free"] for r in runs]),
                          "bits_per_id": runs[0]["milli_bits_per_id"] / 1000}
        t, i, g = row["tag_ida"], row["ida"], row["tag_ida_many32"]
        row["ida_to_tag_ida_alloc"] = round(i["ns_per_alloc"]["median"] / t["ns_per_alloc"]["median"], 2)
        row["ida_to_tag_ida_free"] = round(i["ns_per_free"]["median"] / t["ns_per_free"]["median"], 2)
        row["single_to_ganged_alloc"] = round(t["ns_per_alloc"]["median"] / g["ns_per_alloc"]["median"], 2)
        rows.append(row)
    native_text = (run / "native.txt").read_text()
    native = summarize_native(native_text.splitlines())
    (run / "summary.json").write_text(json.dumps(
        {"schema": SCHEMA, "points": rows, "native": native}, indent=1) + "\n")
    out = ["In the guest (TCG, 1 vCPU), medians with spread:", "",
           "| ids | tag_ida ns/alloc | IDA ns/alloc | IDA/tag_ida | tag_ida ns/free | IDA ns/free "
           "| IDA/tag_ida | ganged 32 ns/id | single/ganged | tag_ida bits/id | IDA bits/id |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        t, i, g = r["tag_ida"], r["ida"], r["tag_ida_many32"]
        f = lambda s: f"{s['median']:.0f} ({s['spread']:.0%})"
        out.append(f"| {r['ids']} | {f(t['ns_per_alloc'])} | {f(i['ns_per_alloc'])} | "
                   f"{r['ida_to_tag_ida_alloc']:.2f} | {f(t['ns_per_free'])} | {f(i['ns_per_free'])} | "
                   f"{r['ida_to_tag_ida_free']:.2f} | {f(g['ns_per_alloc'])} | "
                   f"{r['single_to_ganged_alloc']:.2f} | {t['bits_per_id']:.3f} | {i['bits_per_id']:.3f} |")
    runs = native["runs"]
    out += ["", f"Natively (userspace shims on the host CPU, tag_ida grown from empty like the "
            f"IDA; medians over runs of each program's best of 5, with spread; "
            f"{runs['tag_ida']} tag_ida runs, {runs['ida']} IDA runs):", "",
            "| ids | tag_ida ns/alloc | IDA ns/alloc | IDA/tag_ida | tag_ida ns/free | IDA ns/free "
            "| IDA/tag_ida | tag_ida bits/id | IDA bits/id |",
            "|---|---|---|---|---|---|---|---|---|"]
    for r in native["points"]:
        t, i = r["tag_ida"], r["ida"]
        f = lambda s: f"{s['median']:.1f} ({s['spread']:.0%})" if s else "-"
        x = lambda v, fmt: format(v, fmt) if v is not None else "-"
        out.append(f"| {r['ids']} | {f(t and t['ns_per_alloc'])} | {f(i and i['ns_per_alloc'])} | "
                   f"{x(r['ida_to_tag_ida_alloc'], '.2f')} | {f(t and t['ns_per_free'])} | "
                   f"{f(i and i['ns_per_free'])} | {x(r['ida_to_tag_ida_free'], '.2f')} | "
                   f"{x(t and t['bits_per_id'], '.3f')} | {x(i and i['bits_per_id'], '.3f')} |")
    if native["ganged"]:
        out += ["", "Ganged natively (tag_ida, medians):", ""]
    for g in native["ganged"]:
        out.append(f"- {g['background']} ids allocated below: one alloc_many(32) "
                   f"{g['ns_alloc_many32']['median']:.1f} ns, 32 x tag_ida_alloc() "
                   f"{g['ns_32_single']['median']:.1f} ns ({g['single_to_ganged']:.2f}x)")
    (run / "summary.md").write_text("\n".join(out) + "\n")
    print("\n".join(out))


def summarize_native(lines):
    """native.txt -> per size tag_ida ("grown"), tag_ida_prealloc and ida."""
    dense, ganged = {}, {}
    for line in lines:
        m = DENSE.match(line)
        if m:
            n, label = int(m[1]), m[2]
            dense.setdefault((n, label), []).append(
                {"ns_per_alloc": float(m[3]), "ns_per_free": float(m[4]), "bits_per_id": float(m[5])})
            continue
        m = GANGED.match(line)
        if m:
            ganged.setdefault(int(m[2]), []).append((float(m[3]), float(m[4])))

    def alloc(n, label):
        runs = dense.get((n, label))
        if not runs:
            return None
        return {"ns_per_alloc": stat([r["ns_per_alloc"] for r in runs]),
                "ns_per_free": stat([r["ns_per_free"] for r in runs]),
                "bits_per_id": runs[0]["bits_per_id"], "runs": len(runs)}

    points = []
    for n in sorted({n for n, _ in dense}):
        t, p, i = alloc(n, "grown"), alloc(n, "prealloc"), alloc(n, "ida")
        ratio = lambda k: (round(i[k]["median"] / t[k]["median"], 2)
                           if t and i and t[k]["median"] else None)
        points.append({"ids": n, "tag_ida": t, "tag_ida_prealloc": p, "ida": i,
                       "ida_to_tag_ida_alloc": ratio("ns_per_alloc"),
                       "ida_to_tag_ida_free": ratio("ns_per_free")})
    gangs = []
    for bg, runs in sorted(ganged.items()):
        g, s = stat([r[0] for r in runs]), stat([r[1] for r in runs])
        gangs.append({"background": bg, "ns_alloc_many32": g, "ns_32_single": s,
                      "single_to_ganged": round(s["median"] / g["median"], 2)})
    count = lambda label: max((len(v) for (n, l), v in dense.items() if l == label), default=0)
    return {"points": points, "ganged": gangs,
            "runs": {"tag_ida": count("grown"), "ida": count("ida")}, "lines": lines}

