"""The benchmark report: for every run folder in RESULTS with a summary.json
of schema bench-summary/1, gnuplot SVG plots in RUN/report/ (iops.svg:
median IOPS per point, pool beside sbitmap, bars from min to max; ratio.svg:
pool/sbitmap per point, bar from the lowest to the highest ratio the
repetitions allow; contention.svg: the pool's local share, steals and the
tag refusals per million I/Os; depth.svg: IOPS against fio's iodepth for
points that differ only in depth; with a vCPU sweep, labbench.sweep's
sweep.json, sweep-POINT.svg: IOPS, local share and the pool's counters
against vCPUs), then one static page, RESULTS/dashboard.html, that needs
no server and loads nothing: the latest run with its plots inlined, each
point flagged when its IOPS fell (or rose) beyond its own noise against
the previous run that has the same point (and against BASELINE when
given), the newest vCPU sweep, and the history of every run with a
sparkline per point.  Runs of make bench-scale and make bench-tags-native
(schemas tags-scale/1, tags-native/1) are drawn by labbench.tagsplots and
the newest of each closes the page.  A run whose report/ folder holds
files already keeps them, so that committed runs do not change with the
plotting code; REDRAW=1 in the environment draws every run again.

usage: python3 -m labbench.report RESULTS [BASELINE]
"""
import datetime
import html
import os
import pathlib
import re
import subprocess
import sys

from . import stats
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
        sys.exit(f"labbench.report: gnuplot failed in {cwd}:\n{res.stderr}")


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
        cells += [num(r), num(rr[0]), num(rr[1])]
        pc = (p.get("pool") or {}).get("contention") or {}
        sc = (p.get("sbitmap") or {}).get("contention") or {}
        share = pc.get("local_share")
        cells += [num(share * 100 if share is not None else None),
                  num(pc.get("steals_per_mio") or None), num(pc.get("refusals_per_mio") or None),
                  num(sc.get("refusals_per_mio") or None), num(pc.get("waits_per_mio") or None)]
        rows.append(cells)
    (out / "points.dat").write_text(
        "# name pool_med pool_min pool_max sb_med sb_min sb_max ratio ratio_lo ratio_hi"
        " local_pct steals_per_mio refusals_pool refusals_sbitmap waits_pool\n"
        + "".join(" ".join(cells) + "\n" for cells in rows))

    def filled(*columns):
        """Has any point a value in one of these gnuplot columns (1 = name)?
        gnuplot refuses to plot nothing."""
        return any(cells[c - 1] != "?" for cells in rows for c in columns)

    title = f"{summary['run']}: vcpus={summary['vcpus']}, A/B by {summary['ab_param']}"
    common = """set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.7 border -1
set xtics rotate by 40 right nomirror
set bmargin 7
"""
    gnuplot(GNUPLOT_HEAD.format(out="iops.svg") + common + f"""
set title "{title}\\nmedian IOPS, bars from min to max over repetitions"
set ylabel 'IOPS'
set logscale y
plot 'points.dat' using 2:3:4:xtic(1) title 'pool' lc rgb '{COLOURS['pool']}', \\
     '' using 5:6:7 title 'sbitmap' lc rgb '{COLOURS['sbitmap']}'
""", out)
    made.append("iops.svg")
    if filled(8):
        gnuplot(GNUPLOT_HEAD.format(out="ratio.svg") + common + f"""
set title "{title}\\npool/sbitmap median IOPS, bar from lowest to highest ratio of the repetitions"
set ylabel 'pool / sbitmap'
set yrange [0:*]
plot 'points.dat' using 8:9:10:xtic(1) title 'pool / sbitmap' lc rgb '#2ca02c', \\
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
        panels.append(f"""set title 'per million I/Os (log; missing = none or not counted)'
set ylabel 'events per million I/Os'
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
set title "{title}\\nIOPS against fio iodepth per job ({names}), bars from min to max"
set xlabel 'iodepth per job'
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
        counts_panel = f"""set title 'per million I/Os (log; missing = none)'
set ylabel 'events per million I/Os'
set yrange [*:*]
set logscale y
set key below
plot {counters}, \\
     '{dat}' using 1:14 with linespoints title 'pool tag refusals' lc rgb '{COLOURS['pool']}' dt 2, \\
     '{dat}' using 1:15 with linespoints title 'sbitmap tag refusals' lc rgb '{COLOURS['sbitmap']}' dt 2
""" if any(c != "?" for cells in rows for c in cells[8:]) else ""
        gnuplot(GNUPLOT_HEAD.format(out=svg).replace("size 900,440", "size 1200,460") + f"""
set multiplot layout 1,{1 + bool(share_panel) + bool(counts_panel)} title "{data['run']}: {p['name']} ({p['device']}, {p['job']}, depth {p['depth']}): against vCPUs"
set xlabel 'vCPUs'
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


# --- The page -----------------------------------------------------------------

CSS = """
body { font-family: sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; }
th { background: #f0f0f0; }
td.name, th.name { text-align: left; }
.slower { background: #f8c8c8; font-weight: bold; }
.faster { background: #c8f0c8; }
.skipped { color: #999; }
.small { font-size: 0.85em; color: #555; }
svg { max-width: 100%; height: auto; }
"""


def inline_svg(path):
    text = path.read_text()
    text = re.sub(r"<\?xml[^>]*\?>", "", text)
    text = re.sub(r"<!DOCTYPE[^>]*>", "", text, flags=re.S)
    return text


def committed(run):
    res = subprocess.run(["git", "ls-files", "--error-unmatch", str(run / "summary.json")],
                         capture_output=True, cwd=run.parent)
    return res.returncode == 0


def previous_side(history, upto, key, alloc):
    """The latest run before index upto that measured this point and side."""
    for summary in reversed(history[:upto]):
        for p in summary["points"]:
            if sm.point_key(p, summary["vcpus"]) == key and p.get(alloc):
                return summary, p[alloc]
    return None, None


def flag(old, new):
    if not old or not new:
        return ""
    v = stats.verdict(old["iops"]["values"], new["iops"]["values"])
    return {"higher": "faster", "lower": "slower"}.get(v, v)


def sparkline(history, key, width=160, height=40):
    """Median IOPS of pool and sbitmap across runs, with min-max whiskers."""
    series = {a: [] for a in ALLOCS}
    for i, s in enumerate(history):
        for p in s["points"]:
            if sm.point_key(p, s["vcpus"]) == key:
                for a in ALLOCS:
                    if p.get(a):
                        series[a].append((i, p[a]["iops"]))
    values = [v for a in ALLOCS for _, d in series[a] for v in (d["min"], d["max"])]
    if not values:
        return ""
    lo, hi = min(values), max(values)
    span = (hi - lo) or 1
    n = max(len(history) - 1, 1)

    def xy(i, v):
        return 5 + (width - 10) * i / n, height - 4 - (height - 8) * (v - lo) / span

    parts = [f'<svg width="{width}" height="{height}" viewBox="0 0 {width} {height}">']
    for a in ALLOCS:
        pts = series[a]
        if not pts:
            continue
        c = COLOURS[a]
        parts.append('<polyline fill="none" stroke="%s" points="%s"/>' % (
            c, " ".join("%.1f,%.1f" % xy(i, d["median"]) for i, d in pts)))
        for i, d in pts:
            x, y1 = xy(i, d["min"])
            _, y2 = xy(i, d["max"])
            parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{y1:.1f}" y2="{y2:.1f}" stroke="{c}"/>')
    parts.append(f"<title>{lo:.0f} to {hi:.0f} IOPS; blue pool, orange sbitmap</title></svg>")
    return "".join(parts)


def iops_cell(side, verdict=""):
    if not side:
        return "<td>-</td>"
    cls = f' class="{verdict}"' if verdict in ("slower", "faster") else ""
    i = side["iops"]
    mark = {"slower": " &#9660;", "faster": " &#9650;"}.get(verdict, "")
    return f"<td{cls}>{i['median']:.0f} <span class=small>&plusmn;{i['spread']:.0%}</span>{mark}</td>"


def latest_table(history, baseline):
    s = history[-1]
    e = html.escape
    out = ["<table><tr><th class=name>point</th><th>device</th><th>job</th><th>jobs</th><th>depth</th>"
           "<th>pool IOPS</th><th>sbitmap IOPS</th><th>pool/sbitmap</th><th class=name>verdict</th>"
           "<th>p50 / p99 / p99.9 &micro;s pool</th><th>sbitmap</th><th>pool local</th>"
           "<th>steals/M</th><th>waits/M</th><th>refusals/M pool</th><th>sbitmap</th>"
           "<th class=name>against the previous run</th>"
           + ("<th class=name>against the baseline</th>" if baseline else "") + "</tr>"]
    left_out = [p["name"] for p in s["points"] if p.get("note") == sm.LEFT_OUT]
    for p in s["points"]:
        key = sm.point_key(p, s["vcpus"])
        if p["name"] in left_out:
            continue
        if p["verdict"] == "skipped":
            out.append(f"<tr class=skipped><td class=name>{e(p['name'])}</td><td>{e(p['device'])}</td>"
                       f"<td>{e(p['job'])}</td><td>{p['jobs']}</td><td>{p['depth']}</td>"
                       f"<td colspan=12 class=name>skipped: {e(p.get('note', ''))}</td></tr>")
            continue
        flags, cells, notes, bnotes = {}, [], [], []
        for a in ALLOCS:
            prev_run, prev = previous_side(history, len(history) - 1, key, a)
            flags[a] = flag(prev, p.get(a))
            if flags[a] in ("slower", "faster"):
                notes.append(f"{a} {flags[a]} than {prev_run['run']}")
            if baseline:
                bp = next((q for q in baseline["points"]
                           if sm.point_key(q, baseline["vcpus"]) == key), None)
                v = flag((bp or {}).get(a), p.get(a))
                if v:
                    bnotes.append(f"{a} {v}")
            cells.append(iops_cell(p.get(a), flags[a]))

        def lat(a):
            c = (p.get(a) or {}).get("clat_ns") or {}
            return " / ".join(num(c[k]["median"] / 1000, ".0f") if c.get(k) else "?"
                              for k in ("p50", "p99", "p99.9"))

        pc = (p.get("pool") or {}).get("contention") or {}
        sc = (p.get("sbitmap") or {}).get("contention") or {}
        share = pc.get("local_share")
        out.append(
            f"<tr><td class=name>{e(p['name'])}</td><td>{e(p['device'])}</td><td>{e(p['job'])}</td>"
            f"<td>{p['jobs']}</td><td>{p['depth']}</td>{cells[0]}{cells[1]}"
            f"<td>{num(p.get('ratio_pool_to_sbitmap'), '.3f')}</td><td class=name>{e(p['verdict'])}</td>"
            f"<td>{lat('pool')}</td><td>{lat('sbitmap')}</td>"
            f"<td>{'-' if share is None else format(share, '.1%')}</td>"
            f"<td>{num(pc.get('steals_per_mio'), '.0f')}</td><td>{num(pc.get('waits_per_mio'), '.0f')}</td>"
            f"<td>{num(pc.get('refusals_per_mio'), '.0f')}</td><td>{num(sc.get('refusals_per_mio'), '.0f')}</td>"
            f"<td class=name>{e('; '.join(notes) or 'within noise or no earlier run')}</td>"
            + (f"<td class=name>{e(', '.join(bnotes) or 'n/a')}</td>" if baseline else "") + "</tr>")
    out.append("</table>")
    if left_out:
        out.append(f"<p class=small>not run here (BENCH_ONLY, or not a sweep= point): "
                   f"{e(' '.join(left_out))}</p>")
    return "\n".join(out)


def history_table(history, runs):
    e = html.escape
    keys = []
    for s in history:
        for p in ran(s):
            k = sm.point_key(p, s["vcpus"])
            if k not in keys:
                keys.append(k)
    out = ["<table><tr><th class=name>run</th><th>commit</th><th>series</th><th>vCPUs</th>"
           "<th>matrix</th>" + "".join(f"<th>{e(k[0])}<br><span class=small>{k[4]} deep, "
                                       f"{k[3]} jobs, {k[5]} vCPUs</span></th>" for k in keys) + "</tr>"]
    out.append("<tr><td class=name colspan=5>median IOPS across runs (blue pool, orange sbitmap; "
               "whiskers min to max)</td>" + "".join(f"<td>{sparkline(history, k)}</td>" for k in keys) + "</tr>")
    for i in reversed(range(len(history))):
        s, run = history[i], runs[i]
        info = s.get("run_info", {})
        mark = "" if committed(run) else " <span class=small>(not committed)</span>"
        row = [f"<td class=name>{e(s['run'])}{mark}</td><td>{e(str(info.get('commit', '?')))}</td>"
               f"<td>{e(str(info.get('series_sha256', '?')))}</td><td>{s['vcpus']}</td><td>{e(s['matrix'])}</td>"]
        by_key = {sm.point_key(p, s["vcpus"]): p for p in s["points"]}
        for k in keys:
            p = by_key.get(k)
            if not p or not (p.get("pool") or p.get("sbitmap")):
                row.append("<td class=skipped>-</td>")
                continue
            parts, worst = [], ""
            for a in ALLOCS:
                _, prev = previous_side(history, i, k, a)
                v = flag(prev, p.get(a))
                if v == "slower" or (v == "faster" and worst != "slower"):
                    worst = v
                if p.get(a):
                    arrow = {"slower": "&#9660;", "faster": "&#9650;"}.get(v, "")
                    parts.append(f"{a[0]} {p[a]['iops']['median']:.0f}{arrow}")
            r = p.get("ratio_pool_to_sbitmap")
            cls = f' class="{worst}"' if worst else ""
            row.append(f"<td{cls}>{'<br>'.join(parts)}<br><span class=small>p/s {num(r, '.2f')}</span></td>")
        out.append("<tr>" + "".join(row) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def sweep_section(results, runs):
    """The newest run with a vCPU sweep: its table and plots."""
    for run in reversed(runs):
        data = sweep_mod.load_sweep(run)
        if not data:
            continue
        plots = "".join(f"<div>{inline_svg(svg)}</div>"
                        for svg in sorted((run / "report").glob("sweep-*.svg")))
        e = html.escape
        return (f"<h2>vCPU sweep: {e(data['run'])}</h2>\n<p class=small>The points run at "
                f"{', '.join(map(str, data['vcpus']))} vCPUs (every point at {data['full_vcpus']}; "
                f"the others in {e(str(run.relative_to(results)))}/vcpus-N/), one boot per count. "
                "Under TCG on 2 host cores, counts above 2 share the cores: read the pool's "
                "counters, which do not move with load, before the IOPS.</p>\n"
                f"<pre>{e(sweep_mod.text(data))}</pre>\n{plots}")
    return ""


def page(results, history, runs, baseline, allocator):
    s, run = history[-1], runs[-1]
    info = s.get("run_info", {})
    e = html.escape
    plots = "".join(f"<div>{inline_svg(run / 'report' / name)}</div>"
                    for name in PLOTS
                    if (run / "report" / name).exists())
    rel = run.relative_to(results)
    sweep = sweep_section(results, runs)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>percpu tag pool: benchmark dashboard</title>
<style>{CSS}</style></head><body>
<h1>percpu tag pool against sbitmap: fio end to end</h1>
<p class=small>Generated {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC by
labbench.report from {len(history)} runs with a summary.json of schema {sm.SCHEMA}
(results/README.md). All runs under QEMU TCG on a shared 2-core host: compare ratios within a run;
absolute IOPS move between runs. A cell is <span class=slower>red &#9660;</span> when its median
IOPS is below the previous run's minimum and the drop exceeds both runs' spreads,
<span class=faster>green &#9650;</span> for the same rise.</p>
<h2>Latest run: <a href="{e(str(rel))}/">{e(s['run'])}</a></h2>
<p>commit {e(str(info.get('commit', '?')))}, series {e(str(info.get('series_sha256', '?')))},
{e(str(info.get('linux_source', '?')))}, host {e(str(info.get('host_cpu', '?')))}
({info.get('host_cores', '?')} cores), {e(str(info.get('accelerator', '?')))}, {s['vcpus']} vCPUs,
matrix {e(s['matrix'])}, {s.get('reps') or '?'} reps of {s.get('runtime_s') or '?'} s,
A/B by {e(s['ab_param'])}{', baseline ' + e(baseline['run']) if baseline else ''}.</p>
{latest_table(history, baseline)}
{plots}
{sweep}
<h2>History</h2>
<p class=small>Newest first; per point the pool (p) and sbitmap (s) median IOPS and their ratio.</p>
{history_table(history, runs)}
{allocator}
</body></html>
"""


def main(results, baseline_arg=None):
    results = pathlib.Path(results)
    runs, history = [], []
    for run in sorted(p for p in results.iterdir() if p.is_dir()):
        summary = sm.load_summary(run)
        if summary:
            runs.append(run)
            history.append(summary)
    if not history:
        sys.exit(f"labbench.report: no run in {results} has a summary.json of schema {sm.SCHEMA}")
    baseline = None
    if baseline_arg:
        for path in (pathlib.Path(baseline_arg), results / baseline_arg):
            if path.is_dir() and sm.load_summary(path):
                baseline = sm.load_summary(path)
        if baseline is None:
            sys.exit(f"labbench.report: BASELINE={baseline_arg} is no run with a summary.json")
    redraw = bool(os.environ.get("REDRAW"))

    def keep(run):
        return drawn(run) and not redraw

    for run, summary in zip(runs, history):
        if keep(run):
            continue
        made = plot_run(run, summary)
        data = sweep_mod.load_sweep(run)
        if data:
            made += plot_sweep(run, data)
        print(f"labbench.report: {run}/report/: {' '.join(made)}")
    from . import tagsplots
    for run, made in tagsplots.plot_all(results, keep):
        print(f"labbench.report: {run}/report/: {' '.join(made)}")
    out = results / "dashboard.html"
    out.write_text(page(results, history, runs, baseline, tagsplots.section(results, inline_svg)))
    print(f"labbench.report: {out} (latest {history[-1]['run']}, {len(history)} runs)")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.strip().splitlines()[-1])
    main(*sys.argv[1:])
