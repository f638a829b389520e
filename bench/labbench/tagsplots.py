"""Plots of the allocator benchmarks on the host (make report): for a
bench-scale run (schema tags-scale/1; of tags-scale/2 the rows at quantum 4
and duty 100 %, weighted misses in place of transfers), transfers per I/O against CPUs,
allocators as lines, one SVG per topology family and completion with a
panel per depth and in-flight count, and memory against CPUs; for a
bench-tags-native run (tags-native/1), ns and instructions per pair.
Imported by labbench.report, which calls plot_scale() and plot_native()."""
import html
import pathlib

from .report import GNUPLOT_HEAD, gnuplot
from .summary import load_summary

SCALE_SCHEMA = "tags-scale/1"
SCALE_SCHEMA_2 = "tags-scale/2"
NATIVE_SCHEMA = "tags-native/1"
COLOURS = ["#ff7f0e", "#1f77b4", "#2ca02c", "#d62728", "#9467bd"]
FLOOR = 1e-3    # zero transfers, drawn on a log scale


def families(rows):
    """(topology, users) pairs in order: queues by users, then shared."""
    out = sorted({(r["topology"], r["users"]) for r in rows if r["topology"] == "queue"},
                 key=lambda k: k[1])
    return out + ([("shared", None)] if any(r["topology"] == "shared" for r in rows) else [])


def family_name(topo, users):
    return f"queue-{users}cpu" if topo == "queue" else "shared"


def transfer_panels(out, name, rows, x, allocs, depths, inflights, title):
    """Write NAME (and its .dat) in OUT: transfers per I/O of ROWS against
    their key X, one line per allocator, a panel per depth (columns) and
    in-flight count (rows).  Returns NAME."""
    data = out / (name[:-4] + ".dat")
    lines = []
    for d in depths:
        for q in inflights:
            lines.append(f"# depth {d} inflight {q}")
            sel = [r for r in rows if r["depth"] == d and r["inflight"] == q]
            for v in sorted({r[x] for r in sel}):
                cells = [str(v)]
                for a in allocs:
                    m = [r for r in sel if r[x] == v and r["alloc"] == a]
                    cells.append(f"{max(m[0]['transfers'], FLOOR):.6g}" if m else "?")
                lines.append(" ".join(cells))
            lines += ["", ""]
    data.write_text("\n".join(lines) + "\n")
    script = GNUPLOT_HEAD.format(out=name).replace("size 900,440", "size 1500,900")
    script += (f"set multiplot layout {len(inflights)},{len(depths)} title "
               f"'{title} (model; 0 drawn at {FLOOR})'\n"
               "set logscale x 2\nset logscale y\nset format y '%g'\n"
               "set key top left font ',8'\nset xtics font ',8'\nset ytics font ',8'\n")
    # Data blocks are depth-major; panels go row by row.
    for qi, q in enumerate(inflights):
        for di, d in enumerate(depths):
            block = di * len(inflights) + qi
            plots = ", ".join(
                f"'{data.name}' index {block} using 1:{i + 2} with linespoints pt 7 ps 0.5 "
                f"lc rgb '{COLOURS[i % len(COLOURS)]}' title '{a}'"
                for i, a in enumerate(allocs))
            script += f"set title 'depth {d}, {q} in flight per CPU' font ',9'\nplot {plots}\n"
    script += "unset multiplot\n"
    gnuplot(script, out)
    return name


def load_scale(run):
    """A bench-scale run's summary as the plots read it: a tags-scale/2 one
    cut to its rows at quantum 4 and duty 100 % (seed's own, shared tags
    with their fair share, no batches), its weighted misses (one socket) as
    the count drawn, and its memory at 2 CPUs per queue and depth 1023."""
    s = load_summary(run, SCALE_SCHEMA)
    if s:
        return s
    s = load_summary(run, SCALE_SCHEMA_2)
    if not s:
        return None
    rows = [dict(r, transfers=r["wmiss_1n"]) for r in s["rows"]
            if r["kind"] in ("main", "twin") and (r["quantum"], r["duty"]) == (4, 100)
            and r["topology"] != "batch"
            and (r["topology"] != "shared" or r["queues"] > 1)]
    memory = [m for m in s["memory"] if (m["topology"], m["users"], m["depth"]) ==
              ("queue", 2, 1023)]
    return dict(s, rows=rows, memory=memory, plot_label="Weighted misses")


def plot_scale(run, summary):
    """SVGs of a bench-scale run in RUN/report/; returns their names."""
    out = pathlib.Path(run) / "report"
    out.mkdir(exist_ok=True)
    rows = [r for r in summary["rows"] if r["topology"] != "twin"]
    allocs = summary["allocs"]
    depths = sorted({r["depth"] for r in rows})
    inflights = sorted({r["inflight"] for r in rows})
    made = []
    for topo, users in families(rows):
        for completion in sorted({r["completion"] for r in rows}):
            sel = [r for r in rows if r["topology"] == topo and r["completion"] == completion
                   and (users is None or r["users"] == users)]
            if len({r["possible"] for r in sel}) < 2:
                continue    # one possible-CPU count (tags-scale/2's queues): no line to draw
            who = (f"one tag space per hardware queue, {users} CPU(s) mapped to it"
                   if topo == "queue" else "one tag space shared by all CPUs")
            made.append(transfer_panels(
                out, f"transfers-{family_name(topo, users)}-{completion}.svg", sel, "possible",
                allocs, depths, inflights,
                f"{summary.get('plot_label', 'Cache-line transfers')} per I/O against "
                f"possible CPUs: {who}, "
                f"completion {completion}"))

    made += plot_by_users(out, rows, allocs, depths, inflights,
                          summary.get("plot_label", "Cache-line transfers"))

    mem = summary.get("memory", [])
    if mem:
        data = out / "memory.dat"
        ps = sorted({m["possible"] for m in mem})
        data.write_text("\n".join(
            " ".join([str(p)] + [next((str(m["bytes_per_tag_space"]) for m in mem
                                       if m["possible"] == p and m["alloc"] == a), "?")
                                 for a in allocs]) for p in ps) + "\n")
        plots = ", ".join(f"'memory.dat' using 1:{i + 2} with linespoints "
                          f"lc rgb '{COLOURS[i % len(COLOURS)]}' title '{a}'"
                          for i, a in enumerate(allocs))
        script = GNUPLOT_HEAD.format(out="memory.svg")
        script += ("set title 'Bytes per tag space (depth 1023, 2 CPUs per hardware queue) "
                   "against possible CPUs'\nset logscale x 2\nset logscale y\n"
                   "set xlabel 'possible CPUs'\nset ylabel 'bytes'\n"
                   f"plot {plots}\n")
        gnuplot(script, out)
        made.append("memory.svg")
    return made


def plot_by_users(out, rows, allocs, depths, inflights, label):
    """transfers-by-users-COMPLETION.svg: per hardware queue pools at the
    most possible CPUs, transfers per I/O against the CPUs mapped to the
    queue, a panel per depth and in-flight count."""
    queue = [r for r in rows if r["topology"] == "queue"]
    if not queue:
        return []
    possible = max(r["possible"] for r in queue)
    return [transfer_panels(
        out, f"transfers-by-users-{completion}.svg",
        [r for r in queue if r["possible"] == possible and r["completion"] == completion],
        "users", allocs, depths, inflights,
        f"{label} per I/O against CPUs mapped to one hardware queue: "
        f"{possible} possible CPUs, completion {completion}")
        for completion in sorted({r["completion"] for r in queue})]


def short(scenario):
    """A scenario's axis label: 1T (one thread), 2T own (two threads, each
    freeing its own tags), 2T cross (each freeing the other's), and the depth."""
    t = scenario["threads"]
    who = "1T" if t == 1 else f"{t}T own" if scenario["mode"] == "same" else f"{t}T cross"
    return f"{who} d{scenario['depth']}"


def plot_native(run, summary):
    """ns.svg and instructions.svg of a bench-tags-native run."""
    out = pathlib.Path(run) / "report"
    out.mkdir(exist_ok=True)
    allocs = summary["allocs"]
    rows = []
    for i, s in enumerate(summary["scenarios"]):
        cells = [str(i), s["name"].replace(" ", "_")]
        for a in allocs:
            ns = s["allocs"][a]["ns_per_pair"]
            ins = s["allocs"][a]["instructions_per_pair"]
            cells += [f"{ns['median']:.6g}", f"{ns['min']:.6g}", f"{ns['max']:.6g}",
                      "?" if ins is None else f"{ins:.6g}"]
        rows.append(" ".join(cells))
    (out / "native.dat").write_text("\n".join(rows) + "\n")
    n = len(allocs)
    width = 0.8 / n
    made = []
    for name, title, col, errors in (
            ("ns.svg", "ns per alloc+free pair (median, min to max)", 0, True),
            ("instructions.svg", "instructions per alloc+free pair (callgrind, net of "
             "the harness)", 3, False)):
        plots = []
        for i, a in enumerate(allocs):
            base = 3 + 4 * i
            off = f"($1 - 0.4 + {width / 2 + i * width:.4f})"
            if errors:
                plots.append(f"'native.dat' using {off}:{base}:{base + 1}:{base + 2}:({width:.4f}) "
                             f"with boxerrorbars lc rgb '{COLOURS[i % len(COLOURS)]}' "
                             f"title '{a}'")
            else:
                plots.append(f"'native.dat' using {off}:{base + col} with boxes "
                             f"lc rgb '{COLOURS[i % len(COLOURS)]}' title '{a}'")
        script = GNUPLOT_HEAD.format(out=name).replace("size 900,440", "size 1100,520")
        script += (f"set title '{title}'\nset style fill solid 0.7\n"
                   f"set boxwidth {width:.4f}\nset xtics font ',8'\n"
                   "set xtics (" + ", ".join(
                       f"\"{short(s)}\" {i}" for i, s in enumerate(summary["scenarios"]))
                   + ")\n" + ("set logscale y\n" if errors else "set yrange [0:*]\n") +
                   f"plot {', '.join(plots)}\n")
        gnuplot(script, out)
        made.append(name)
    return made


def latest(runs, schema):
    """The newest run folder of RUNS whose summary.json has SCHEMA (for
    SCALE_SCHEMA, either scale schema), and its summary."""
    for run in reversed(runs):
        summary = load_scale(run) if schema == SCALE_SCHEMA else load_summary(run, schema)
        if summary:
            return run, summary
    return None, None


def plot_all(results, keep=lambda run: False):
    """Plots every scale and native run under RESULTS but those keep(run)
    says to leave as they are; returns (run, names) pairs."""
    made = []
    for run in sorted(p for p in pathlib.Path(results).iterdir() if p.is_dir()):
        if keep(run):
            continue
        for load, plot in ((load_scale, plot_scale),
                           (lambda r: load_summary(r, NATIVE_SCHEMA), plot_native)):
            summary = load(run)
            if summary:
                made.append((run, plot(run, summary)))
    return made


def criteria_lines(s):
    """The aims as the dashboard lists them: tags-scale/2's per setting and
    socket count summed into one line per allocator and aim."""
    if s["schema"] != SCALE_SCHEMA_2:
        return s["criteria"]
    out = {}
    for c in s["criteria"]:
        k = (c["alloc"], c["id"], c["nodes"])
        o = out.setdefault(k, {"alloc": c["alloc"], "missed": 0, "scenarios": 0,
                               "unit": "settings" if c["quantum"] else "topologies x depths",
                               "aim": c["aim"].split(" [")[0] +
                               (f" ({c['nodes']} socket{'s' if c['nodes'] == 2 else ''})"
                                if c["nodes"] else "")})
        if c["quantum"]:
            o["scenarios"] += 1
            o["missed"] += not c["passed"]
        else:
            o["scenarios"], o["missed"] = c["scenarios"], c["missed"]
    return list(out.values())


def section(results, inline_svg):
    """Dashboard HTML for the newest scale and native runs: the model's aims
    with pass or miss, the memory plot inline and every other plot linked."""
    results = pathlib.Path(results)
    runs = sorted(p for p in results.iterdir() if p.is_dir())
    e = html.escape
    out = []
    run, s = latest(runs, SCALE_SCHEMA)
    if s:
        rel = run.relative_to(results)
        out.append(f"<h2>Allocator on 1-256 simulated CPUs: <a href=\"{e(str(rel))}/\">"
                   f"{e(s['run'])}</a></h2>")
        out.append("<p class=small>make bench-scale: the unchanged allocator source on a "
                   "deterministic N-CPU model (no timing: it counts cache-line misses, "
                   f"wake-ups, locked instructions, contended locks, bytes); seed {s['seed']}, "
                   f"{s['ios']} I/Os per scenario{', quick matrix' if s['quick'] else ''}. "
                   "summary.md has every scenario.</p><ul>")
        for c in criteria_lines(s):
            verdict = "PASS" if not c["missed"] else "MISS"
            cls = "" if not c["missed"] else " class=slower"
            out.append(f"<li><span{cls}>{verdict}</span> {e(c['alloc'])}: {e(c['aim'])} "
                       f"({c['scenarios'] - c['missed']} of {c['scenarios']} "
                       f"{c.get('unit', 'scenarios')})</li>")
        out.append("</ul>")
        for name in ("transfers-by-users-irq.svg", "memory.svg"):
            if (run / "report" / name).exists():
                out.append(f"<div>{inline_svg(run / 'report' / name)}</div>")
        links = sorted(p.name for p in (run / "report").glob("transfers-*.svg"))
        out.append("<p>Transfers per I/O against CPUs: " + ", ".join(
            f"<a href=\"{e(str(rel))}/report/{e(n)}\">{e(n[10:-4])}</a>" for n in links) + "</p>")
    run, s = latest(runs, NATIVE_SCHEMA)
    if s:
        rel = run.relative_to(results)
        out.append(f"<h2>Allocator natively on this host's cores: <a href=\"{e(str(rel))}/\">"
                   f"{e(s['run'])}</a></h2>")
        for name in ("instructions.svg", "ns.svg"):
            if (run / "report" / name).exists():
                out.append(f"<div>{inline_svg(run / 'report' / name)}</div>")
    return "\n".join(out)
