"""make report: gnuplot SVG plots of every run in RESULTS/RUN/report/
(generated, ignored by git), then RESULTS/dashboard.html from
RESULTS/index.jsonl (labbench.dashboard) and, with --readme, README's
status block.  Per matrix run (a summary.json of labbench.summary):
iops.svg (median IOPS per point, pool beside sbitmap, bars from min to
max), ratio.svg (pool/sbitmap per point: the geometric mean with its 95 %
interval and the range of the repetitions), contention.svg (the pool's
local share, steals, waits and tag refusals per million I/Os), depth.svg
(IOPS against fio's iodepth for points that differ only in depth), and for
a vCPU sweep (sweep.json) sweep-POINT.svg (IOPS, local share and the
pool's counters against vCPUs).  The allocator runs (make bench-scale,
make bench-tags-native) are drawn by labbench.tagsplots, whose section
closes the page.  A run whose report/ folder holds files already keeps
them; REDRAW=1 in the environment draws every run again.  The page and
README are rewritten only when they change.

usage: python3 -m labbench report RESULTS [--baseline RUN] [--readme README.md]
"""
import os
import pathlib
import re
import subprocess
import sys

from . import dashboard, index
from . import summary as sm
from . import sweep as sweep_mod
from .summary import ALLOCS

COLOURS = {"pool": "#1f77b4", "sbitmap": "#ff7f0e"}
PLOTS = ("iops.svg", "ratio.svg", "contention.svg", "depth.svg")


def num(x, spec=".6g"):
    return "?" if x is None else format(x, spec)


def ran(summary):
    return [p for p in summary["points"] if p.get("pool") or p.get("sbitmap")]


def side_iops(p, alloc):
    s = p.get(alloc)
    return (s["iops"]["median"], s["iops"]["min"], s["iops"]["max"]) if s else (None,) * 3


# --- Plots ------------------------------------------------------------------

GNUPLOT_HEAD = """set terminal svg size 900,440 dynamic noenhanced font 'sans,11'
set output '{out}'
set datafile missing '?'
set key above
set grid ytics
"""


def gnuplot(script, cwd):
    """Run a gnuplot script; its warnings (a column with no values) only
    when it fails."""
    res = subprocess.run(["gnuplot"], input=script, text=True, cwd=cwd, capture_output=True)
    if res.returncode:
        sys.exit(f"labbench report: gnuplot failed in {cwd}:\n{res.stderr}")


def drawn(run):
    """Has RUN/report/ any file, drawn by an earlier report?"""
    out = run / "report"
    return out.is_dir() and any(out.iterdir())


def plot_run(run, summary):
    points = ran(summary)
    if not points:
        return []
    out = run / "report"
    out.mkdir(exist_ok=True)
    for old in PLOTS:
        (out / old).unlink(missing_ok=True)
    made = []
    rows = []
    for p in points:
        cells = [p["name"]]
        for alloc in ALLOCS:
            cells += [num(v) for v in side_iops(p, alloc)]
        r, rr = p.get("ratio_pool_to_sbitmap"), p.get("ratio_range") or (None, None)
        iv = p.get("ratio_interval") or (None, None)
        bounded = bool(iv[0]) and iv[1] is not None
        cells += [num(r), num(iv[0] if bounded else None), num(iv[1] if bounded else None)]
        pc = (p.get("pool") or {}).get("contention") or {}
        sc = (p.get("sbitmap") or {}).get("contention") or {}
        share = pc.get("local_share")
        cells += [num(share * 100 if share is not None else None),
                  num(pc.get("steals_per_mio") or None), num(pc.get("refusals_per_mio") or None),
                  num(sc.get("refusals_per_mio") or None), num(pc.get("waits_per_mio") or None),
                  num(rr[0]), num(rr[1])]
        rows.append(cells)
    (out / "points.dat").write_text(
        "# name pool_med pool_min pool_max sb_med sb_min sb_max ratio interval_lo interval_hi"
        " local_pct steals_per_mio refusals_pool refusals_sbitmap waits_pool range_lo range_hi\n"
        + "".join(" ".join(cells) + "\n" for cells in rows))

    def filled(*columns):
        """Has any point a value in one of these gnuplot columns (1 = name)?
        gnuplot refuses to plot nothing."""
        return any(cells[c - 1] != "?" for cells in rows for c in columns)

    title = f"{summary['run']} ({summary['vcpus']} vCPUs)"
    common = """set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.7 border -1
set xtics rotate by 40 right nomirror
set bmargin 7
"""
    gnuplot(GNUPLOT_HEAD.format(out="iops.svg") + common + f"""
set title "{title}: median IOPS, bars min to max of the repetitions"
set ylabel 'IOPS (log scale)'
set logscale y
plot 'points.dat' using 2:3:4:xtic(1) title 'pool' lc rgb '{COLOURS['pool']}', \\
     '' using 5:6:7 title 'sbitmap' lc rgb '{COLOURS['sbitmap']}'
""", out)
    made.append("iops.svg")
    if filled(8):
        shown = [float(c) for cells in rows for c in (cells[7], cells[15], cells[16]) if c != "?"]
        ratio_lo, ratio_hi = min(shown + [0.5]) * 0.9, max(shown + [2.0]) * 1.1
        gnuplot(GNUPLOT_HEAD.format(out="ratio.svg") + f"""
set title "{title}: pool/sbitmap IOPS per point"
set ylabel 'pool / sbitmap (log scale)'
set logscale y
set yrange [{ratio_lo:.3g}:{ratio_hi:.3g}]
set ytics add (0.5, 0.67, 0.8, 1.25, 1.5, 2)
set xtics rotate by 40 right nomirror
set bmargin 7
set xrange [-0.5:{len(rows) - 0.5}]
plot 'points.dat' using 0:8:16:17:xtic(1) with yerrorbars pt 7 ps 0.6 lc rgb '#555555' \\
        title 'geometric mean; thin bar: range of the repetitions', \\
     '' using 0:8:9:10 with yerrorbars pt 7 ps 0.6 lw 4 lc rgb '#2ca02c' \\
        title '95 % interval, where bounded', \\
     1 with lines dt 2 lc rgb 'black' notitle
""", out)
        made.append("ratio.svg")
    panels = []
    if filled(11):
        panels.append(f"""set title 'pool: allocations served from the local list'
set ylabel '%'
set yrange [0:105]
plot 'points.dat' using 11:xtic(1) title 'pool local share' lc rgb '{COLOURS['pool']}'
""")
    if filled(12, 13, 14, 15):
        panels.append(f"""set title 'per million I/Os (no bar: none or not counted)'
set ylabel 'events per million I/Os (log scale)'
set yrange [1:*]
set logscale y
plot 'points.dat' using 12:xtic(1) title 'pool steals' lc rgb '#9467bd', \\
     '' using 13 title 'pool tag refusals' lc rgb '{COLOURS['pool']}', \\
     '' using 14 title 'sbitmap tag refusals' lc rgb '{COLOURS['sbitmap']}', \\
     '' using 15 title 'pool waits' lc rgb '#8c564b'
""")
    if panels:
        gnuplot(GNUPLOT_HEAD.format(out="contention.svg") + """set style data histograms
set style histogram clustered gap 1
set style fill solid 0.7 border -1
set xtics rotate by 40 right nomirror
set bmargin 7
""" + f"""
set multiplot layout 1,{len(panels)} title "{title}"
""" + "".join(panels) + "unset multiplot\n", out)
        made.append("contention.svg")
    # IOPS against depth: the largest group of points that differ only in depth.
    groups = {}
    for p in points:
        groups.setdefault((p["device"], p["params"], p["job"], p["jobs"]), []).append(p)
    series = max(groups.values(), key=lambda g: len({p["depth"] for p in g}))
    if len({p["depth"] for p in series}) > 2:
        series = sorted(series, key=lambda p: p["depth"])
        (out / "depth.dat").write_text("# depth pool_med min max sb_med min max\n" + "\n".join(
            " ".join([str(p["depth"])] + [num(v) for a in ALLOCS for v in side_iops(p, a)])
            for p in series) + "\n")
        names = ", ".join(p["name"] for p in series)
        gnuplot(GNUPLOT_HEAD.format(out="depth.svg") + f"""
set title "{title}: IOPS against iodepth, bars min to max"
set xlabel 'fio iodepth per job ({names}; log scale)'
set ylabel 'IOPS'
set logscale x 2
set offsets graph 0.05, graph 0.05, graph 0.05, 0
plot 'depth.dat' using ($1*0.97):2:3:4 with yerrorlines title 'pool' lc rgb '{COLOURS['pool']}', \\
     '' using ($1*1.03):5:6:7 with yerrorlines title 'sbitmap' lc rgb '{COLOURS['sbitmap']}'
""", out)
        made.append("depth.svg")
    return made


def plot_sweep(run, data):
    """RUN/report/sweep-POINT.svg for each point of a vCPU sweep: IOPS of
    both allocators, the pool's local share and its counters per million
    I/Os, against vCPUs."""
    out = run / "report"
    out.mkdir(exist_ok=True)
    for old in out.glob("sweep-*"):
        old.unlink()
    made = []
    for p in data["points"]:
        rows = []
        for r in p["by_vcpus"]:
            pool, sb = r["pool"] or {}, r["sbitmap"] or {}
            share = pool.get("local_share")
            cells = [str(r["vcpus"])] + [num(v) for a in ALLOCS for v in side_iops(r, a)]
            cells.append(num(share * 100 if share is not None else None))
            # Log scale: a zero count is drawn as missing.
            cells += [num(pool.get(k) or None) for k in sweep_mod.POOL_FIGURES[1:]]
            cells += [num(pool.get("refusals_per_mio") or None), num(sb.get("refusals_per_mio") or None)]
            rows.append(cells)
        dat = f"sweep-{p['name']}.dat"
        (out / dat).write_text("# vcpus pool_med min max sb_med min max local_pct refills steals"
                               " waits handed fails refusals_pool refusals_sbitmap\n"
                               + "".join(" ".join(c) + "\n" for c in rows))
        counts = " ".join(str(r["vcpus"]) for r in p["by_vcpus"])
        svg = f"sweep-{p['name']}.svg"
        colours = ("#2ca02c", "#9467bd", "#8c564b", "#17becf", "#d62728")
        counters = ", \\\n     ".join(
            f"'{dat}' using 1:{9 + i} with linespoints title 'pool {name}' lc rgb '{c}'"
            for i, (name, c) in enumerate(zip(("refills", "steals", "waits", "hand-offs", "fails"),
                                              colours)))
        # gnuplot refuses a plot whose every value is missing.
        share_panel = f"""set title 'pool: allocations from the local cache'
set ylabel '%'
set yrange [0:105]
plot '{dat}' using 1:8 with linespoints title 'pool local share' lc rgb '{COLOURS['pool']}'
""" if any(cells[7] != "?" for cells in rows) else ""
        counts_panel = f"""set title 'pool events per million I/Os'
set ylabel 'per million I/Os (log scale; none: no point)'
set yrange [*:*]
set logscale y
set key below
plot {counters}, \\
     '{dat}' using 1:14 with linespoints title 'pool tag refusals' lc rgb '{COLOURS['pool']}' dt 2, \\
     '{dat}' using 1:15 with linespoints title 'sbitmap tag refusals' lc rgb '{COLOURS['sbitmap']}' dt 2
""" if any(c != "?" for cells in rows for c in cells[8:]) else ""
        gnuplot(GNUPLOT_HEAD.format(out=svg).replace("size 900,440", "size 1200,540") + f"""
set multiplot layout 1,{1 + bool(share_panel) + bool(counts_panel)} title "{data['run']}: {p['name']} against vCPUs"
set xlabel 'vCPUs (log scale)'
set logscale x 2
set xtics ({", ".join(counts.split())})
set offsets graph 0.05, graph 0.05, graph 0.05, 0
set title 'median IOPS, bars min to max'
set ylabel 'IOPS'
plot '{dat}' using ($1*0.97):2:3:4 with yerrorlines title 'pool' lc rgb '{COLOURS['pool']}', \\
     '' using ($1*1.03):5:6:7 with yerrorlines title 'sbitmap' lc rgb '{COLOURS['sbitmap']}'
{share_panel}{counts_panel}unset multiplot
""", out)
        made.append(svg)
    return made


# --- The page (labbench.dashboard) ---------------------------------------------

def inline_svg(path):
    text = path.read_text()
    text = re.sub(r"<\?xml[^>]*\?>", "", text)
    text = re.sub(r"<!DOCTYPE[^>]*>", "", text, flags=re.S)
    return text


def main(args):
    results = args.results
    entries = index.read(results)
    if not entries:
        sys.exit(f"labbench report: no {results}/{index.NAME}: run python3 -m labbench index {results}")
    baseline = None
    if args.baseline:
        baseline = next((e for e in entries if e["id"] == pathlib.Path(args.baseline).name), None)
        if baseline is None:
            sys.exit(f"labbench report: BASELINE={args.baseline} is no run of {index.NAME}")
    redraw = bool(os.environ.get("REDRAW"))

    def keep(run):
        return drawn(run) and not redraw

    for run in sorted(p for p in results.iterdir() if p.is_dir()):
        summary = sm.load_summary(run)
        if not summary or keep(run):
            continue
        made = plot_run(run, summary)
        data = sweep_mod.load_sweep(run)
        if data:
            made += plot_sweep(run, data)
        print(f"labbench report: {run}/report/: {' '.join(made)}")
    from . import tagsplots
    for run, made in tagsplots.plot_all(results, keep):
        print(f"labbench report: {run}/report/: {' '.join(made)}")
    out = results / "dashboard.html"
    text = dashboard.page(entries, baseline, tagsplots.section(results, inline_svg))
    done = "unchanged"
    if not out.exists() or out.read_text() != text:
        out.write_text(text)
        done = "written"
    print(f"labbench report: {out} ({len(entries)} runs): {done}")
    if args.readme:
        done = dashboard.rewrite_status(args.readme, entries)
        print(f"labbench report: the status block of {args.readme}: {done or 'none found'}")
