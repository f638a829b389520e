"""results/dashboard.html and README's status block, from
results/index.jsonl alone (labbench.index): one static page that loads
nothing and carries no date of its own, so that it changes only with the
runs.

First screen (1400 x 900): the newest run of the default matrix that
measured a clean tree (else the newest, marked as dirty), one row per
point with its pool/sbitmap ratio, the 95 % interval and the range of its
repetitions on a log axis, and the counts of each verdict; one line each
for the model's and the native runs' aims; the run's vCPU sweep as small
multiples.  Below: the newest run of every other matrix, the history of
every point's ratio (a cell is coloured when the ratio moved beyond the
noise of both runs, by labbench.stats.ratio_change: green better for the
pool, red worse), every run, and the first run's figures in full.
"""
import html
import math

from . import stats
from .summary import ALLOCS

E = html.escape
V = stats.Verdict
COLOURS = {V.FASTER.value: "#1a7f37", V.SLOWER.value: "#c62828", V.SAME.value: "#44546a",
           V.TOO_FEW.value: "#9e9e9e", V.NA.value: "#9e9e9e", V.SKIPPED.value: "#9e9e9e"}
VERDICT_ORDER = (V.FASTER, V.SAME, V.SLOWER, V.TOO_FEW)
STATUS_BEGIN = "<!-- status: written by make report from results/index.jsonl; do not edit -->"
STATUS_END = "<!-- end of status -->"

CSS = """
body { font-family: sans-serif; margin: 0.8em 1.2em; color: #222; max-width: 1360px; }
h1 { font-size: 1.3em; margin: 0 0 0.2em; }
h2 { font-size: 1.1em; margin: 0.9em 0 0.3em; }
p { margin: 0.25em 0; }
.small { font-size: 0.82em; color: #555; }
.dirty { background: #fff3cd; border: 2px solid #c62828; padding: 0.2em 0.5em; font-weight: bold; }
.counts span { margin-right: 1.2em; }
.pass { color: #fff; background: #1a7f37; padding: 0 0.4em; font-weight: bold; }
.fail { color: #fff; background: #c62828; padding: 0 0.4em; font-weight: bold; }
.multiples { display: flex; flex-wrap: wrap; gap: 0.6em; }
table { border-collapse: collapse; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.15em 0.4em; text-align: right; white-space: nowrap; }
th { background: #f0f0f0; }
td.name, th.name { text-align: left; }
td.better { background: #c8f0c8; }
td.worse { background: #f8c8c8; }
td.judged { font-weight: bold; }
td.few { color: #888; }
.scroll { overflow: auto; max-height: 34em; max-width: 100%; border: 1px solid #ccc; }
.scroll table { margin: 0; }
.scroll th { position: sticky; top: 0; z-index: 2; }
.scroll td:first-child, .scroll th:first-child { position: sticky; left: 0; background: #fff; z-index: 1; }
.scroll th:first-child { z-index: 3; background: #f0f0f0; }
svg text { font-family: sans-serif; }
"""


def fmt(x, spec=".2f", missing="n/a"):
    return missing if x is None else format(x, spec)


def interval_text(iv):
    if not iv:
        return "n/a"
    lo, hi = iv
    if hi is None:
        return "unbounded" if not lo else f"[{lo:.2f}, inf)"
    return f"[{lo:.2f}, {hi:.2f}]"


def key(p):
    """What must match for two runs' points to be compared."""
    return (p["name"], p["device"], p["job"], p["jobs"], p["depth"], p["vcpus"])


def judged(p):
    return p["status"] == "run" and p["ratio"] is not None


# --- Choosing runs ---------------------------------------------------------------

def newest(entries, pred):
    """The newest entry PRED accepts that measured a clean tree, else the
    newest PRED accepts (dirty or unknown), else None."""
    chosen = [e for e in entries if pred(e)]
    clean = [e for e in chosen if e["clean"]]
    return (clean or chosen or [None])[-1]


def is_default(e):
    return e["kind"] == "bench" and e["matrix"] == "default" and not e["only"]


def run_label(e):
    """"RUN (commit C, clean tree)" or with the dirty tree said loudly."""
    tree = {True: "clean tree", False: "UNCOMMITTED CHANGES", None: "tree state not recorded"}
    return f"{e['id']} (commit {e['commit']}, {tree[e['clean']]})"


def dirty_note(e):
    if e["clean"]:
        return ""
    why = ("measured a tree with uncommitted changes: its figures may come from code no "
           "commit has" if e["clean"] is False else "did not record whether its tree was clean")
    return f'<p class=dirty>This run {why}.</p>'


# --- Inline SVG -------------------------------------------------------------------

class LogAxis:
    """x (or y) positions of ratios on a log scale between LO and HI."""

    def __init__(self, values, start, length, lo=0.5, hi=2.0, limit=8.0):
        finite = [v for v in values if v and 1 / limit <= v <= limit]
        self.lo = min([lo] + finite)
        self.hi = max([hi] + finite)
        self.start, self.length = start, length

    def __call__(self, v):
        v = min(max(v, self.lo), self.hi)
        return self.start + self.length * math.log(v / self.lo) / math.log(self.hi / self.lo)

    def ticks(self):
        cands = (0.125, 0.25, 0.5, 0.67, 0.8, 1.0, 1.25, 1.5, 2.0, 4.0, 8.0)
        return [t for t in cands if self.lo <= t <= self.hi]


def grid(axis, span, label_at, across):
    """A line per tick of AXIS over SPAN (the other coordinate's from and
    to) and its label at LABEL_AT; ACROSS: the axis is vertical, its lines
    horizontal.  The line at 1 is dark."""
    out = []
    for t in axis.ticks():
        pos = axis(t)
        stroke = 'stroke="#333" stroke-width="1.2"' if t == 1 else 'stroke="#ddd"'
        if across:
            out.append(f'<line x1="{span[0]}" x2="{span[1]}" y1="{pos:.1f}" y2="{pos:.1f}" {stroke}/>'
                       f'<text x="{label_at}" y="{pos + 4:.1f}" font-size="10" text-anchor="end">{t:g}</text>')
        else:
            out.append(f'<line x1="{pos:.1f}" x2="{pos:.1f}" y1="{span[0]}" y2="{span[1]}" {stroke}/>'
                       f'<text x="{pos:.1f}" y="{label_at}" font-size="11" text-anchor="middle">{t:g}</text>')
    return out


def ratio_marks(axis, p, at, vertical=False, bar=5):
    """The range line, the interval bar and the mean dot of point P at
    cross position AT; unbounded intervals drawn dashed over the axis."""
    colour = COLOURS.get(p["verdict"], "#444")
    out = []

    def line(a, b, width, extra=""):
        if vertical:
            return (f'<line x1="{at}" x2="{at}" y1="{axis(a):.1f}" y2="{axis(b):.1f}" '
                    f'stroke="{colour}" stroke-width="{width}"{extra}/>')
        return (f'<line x1="{axis(a):.1f}" x2="{axis(b):.1f}" y1="{at}" y2="{at}" '
                f'stroke="{colour}" stroke-width="{width}"{extra}/>')

    if p.get("range"):
        out.append(line(*p["range"], 1.2))
    iv = p.get("interval")
    if iv and iv[1] is not None and iv[0]:
        out.append(line(iv[0], iv[1], bar, ' stroke-opacity="0.45"'))
    elif iv:
        out.append(line(axis.lo, axis.hi, 1, ' stroke-dasharray="2,3" stroke-opacity="0.6"'))
    x = axis(p["ratio"])
    cx, cy = (at, x) if vertical else (x, at)
    out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="3.5" fill="{colour}"/>')
    return out


def forest(points, width=1060, row=15):
    """One row per point: name, the ratio on a log axis (range line,
    interval bar, mean dot), the figures and the verdict."""
    shown = [p for p in points if judged(p)]
    if not shown:
        return "<p>No point measured both allocators.</p>"
    name_w, plot_w, top = 190, 470, 22
    axis = LogAxis([v for p in shown for v in (p["range"] or []) + [p["ratio"]]], name_w, plot_w)
    height = top + row * len(shown) + 34
    out = [f'<svg width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           'role="img" aria-label="pool/sbitmap ratio per point">']
    out += grid(axis, (top - 4, height - 30), height - 17, across=False)
    out.append(f'<text x="{name_w + plot_w / 2}" y="{height - 3}" font-size="11" text-anchor="middle">'
               'pool/sbitmap IOPS, log scale (right of 1: pool faster)</text>')
    heads = ((name_w - 6, "end", "point"), (name_w + plot_w + 12, "start", "ratio"),
             (name_w + plot_w + 62, "start", "95 % interval"), (name_w + plot_w + 172, "start", "verdict"),
             (name_w + plot_w + 282, "start", "n"))
    for x, anchor, text in heads:
        out.append(f'<text x="{x}" y="12" font-size="11" font-weight="bold" text-anchor="{anchor}">{text}</text>')
    for i, p in enumerate(shown):
        y = top + row * i + row / 2
        if i % 2:
            out.append(f'<rect x="0" y="{y - row / 2:.1f}" width="{width}" height="{row}" fill="#f6f6f6"/>')
        out.append(f'<text x="{name_w - 6}" y="{y + 4:.1f}" font-size="12" text-anchor="end">{E(p["name"])}</text>')
        out += ratio_marks(axis, p, round(y, 1))
        colour = COLOURS.get(p["verdict"], "#444")
        cells = ((name_w + plot_w + 12, f"{p['ratio']:.3f}"), (name_w + plot_w + 62, interval_text(p["interval"])),
                 (name_w + plot_w + 172, p["verdict"]), (name_w + plot_w + 282, str(len(p["rep_ratios"]))))
        for x, text in cells:
            out.append(f'<text x="{x}" y="{y + 4:.1f}" font-size="12" fill="{colour}">{E(text)}</text>')
    out.append("</svg>")
    legend = ('<p class=small>Dot: geometric mean of the per-repetition ratios; thick bar: its 95 % '
              'interval (dashed over the axis when unbounded); thin line: lowest to highest '
              'per-repetition ratio; n: repetitions paired.</p>')
    return "".join(out) + legend


def counts_line(points):
    n = {v: sum(1 for p in points if judged(p) and p["verdict"] == v.value) for v in VERDICT_ORDER}
    total = sum(1 for p in points if judged(p))
    cells = "".join(f'<span style="color:{COLOURS[v.value]}"><b>{n[v]}</b> {E(v.value)}</span>'
                    for v in VERDICT_ORDER)
    return f'<p class=counts>{cells}<span class=small>of {total} points</span></p>'


def multiple(name, rows, width=300, height=140):
    """One sweep point: its ratio against vCPUs (categorical x)."""
    left, right, top, bottom = 46, 10, 22, 34
    axis_y = LogAxis([v for r in rows for v in (r["range"] or []) + [r["ratio"]]],
                     height - bottom, -(height - top - bottom))
    step = (width - left - right) / max(len(rows), 1)
    out = [f'<svg width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
           f'aria-label="{E(name)}: pool/sbitmap against vCPUs">',
           f'<text x="{width / 2}" y="14" font-size="12" font-weight="bold" text-anchor="middle">{E(name)}</text>']
    out += grid(axis_y, (left, width - right), left - 4, across=True)
    out.append(f'<text x="10" y="{(height - bottom + top) / 2}" font-size="10" text-anchor="middle" '
               f'transform="rotate(-90 10 {(height - bottom + top) / 2})">pool/sbitmap</text>')
    for i, r in enumerate(rows):
        x = round(left + step * (i + 0.5), 1)
        out += ratio_marks(axis_y, r, x, vertical=True)
        out.append(f'<text x="{x}" y="{height - bottom + 14}" font-size="10" text-anchor="middle">{r["vcpus"]}</text>')
    out.append(f'<text x="{(left + width - right) / 2}" y="{height - 4}" font-size="10" '
               'text-anchor="middle">vCPUs</text></svg>')
    return "".join(out)


def sweep_section(e):
    by_name = {}
    for p in e["points"]:
        if judged(p):
            by_name.setdefault(p["name"], []).append(p)
    sweep = {n: sorted(rows, key=lambda r: r["vcpus"]) for n, rows in by_name.items() if len(rows) > 1}
    if not sweep:
        return ""
    return (f"<h2>vCPU sweep of {E(e['id'])}: pool/sbitmap against vCPUs</h2>\n"
            f"<div class=multiples>{''.join(multiple(n, rows) for n, rows in sweep.items())}</div>\n"
            "<p class=small>One boot per vCPU count on 2 host cores (counts above 2 share them); "
            "marks as above.</p>")


# --- Aims -------------------------------------------------------------------------

def aims(entries, kind):
    """(the newest full run of KIND with aims, its pool's aims, how many
    it meets), or (None, [], 0)."""
    # A full run, not a --quick one (a subset of the scenarios), if any.
    e = (newest(entries, lambda x: x["kind"] == kind and x.get("criteria") and not x.get("quick"))
         or newest(entries, lambda x: x["kind"] == kind and x.get("criteria")))
    if not e:
        return None, [], 0
    crit = [c for c in e["criteria"] if c["alloc"] == "pool"] or e["criteria"]
    return e, crit, sum(1 for c in crit if not c["missed"])


def aims_line(entries, kind, what):
    e, crit, met = aims(entries, kind)
    if not e:
        return f"<p>{E(what)}: no run yet.</p>"
    verdict = "PASS" if met == len(crit) else "FAIL"
    detail = ", ".join(f'<span title="{E(c["aim"])}">{c["scenarios"] - c["missed"]}/{c["scenarios"]}'
                       '</span>' for c in crit)
    return (f'<p><span class={verdict.lower()}>{verdict}</span> {E(what)}: the pool meets '
            f'{met} of {len(crit)} aims <span class=small>(scenarios passing each: {detail}; '
            f'hover for the aim)</span> &mdash; <b>{E(run_label(e))}</b>{dirty_note(e)}</p>')


def aims_text(entries, kind, what):
    """The same as a line of README's status block."""
    e, crit, met = aims(entries, kind)
    if not e:
        return f"- **{what}**: no run yet."
    return (f"- **{what}** (`{e['id']}`{'' if e['clean'] else ', uncommitted changes'}): "
            f"{'PASS' if met == len(crit) else 'FAIL'}, the pool meets {met} of {len(crit)} aims ("
            + "; ".join(aim_groups(crit)) + ").")


def aim_groups(crit):
    """Each aim of CRIT once, its settings (the model's contention levels,
    the part of its text in brackets but the socket count) together: its
    short name (the model's letter) and the scenarios passing, a range
    over the settings with how many settings it meets."""
    groups = {}
    for c in crit:
        name, _, setting = c["aim"].partition(" [")
        label = name.split(" ", 1)[0] if name.startswith("(") else name
        label += "".join(f", {s.strip(']')}" for s in setting.split(", ")[1:])
        groups.setdefault(label, []).append(c)
    out = []
    for label, cs in groups.items():
        passing = sorted(c["scenarios"] - c["missed"] for c in cs)
        total = max(c["scenarios"] for c in cs)
        if len(cs) == 1:
            out.append(f"{label}: {passing[0]} of {total}")
            continue
        span = f"{passing[0]}" if passing[0] == passing[-1] else f"{passing[0]}-{passing[-1]}"
        out.append(f"{label}: {span} of {total} at {len(cs)} settings, "
                   f"met at {sum(1 for c in cs if not c['missed'])}")
    return out


# --- Below the fold ----------------------------------------------------------------

def full_points(e):
    return [p for p in e["points"] if p["vcpus"] == e.get("full_vcpus", p["vcpus"])]


def run_section(e, title):
    pts = full_points(e)
    few = ""
    if any(p["verdict"] == V.TOO_FEW.value for p in pts):
        few = (" &mdash; too few reps: with 3 repetitions the 95 % interval is unbounded; "
               "the matrices run 5 since the rule came in")
    return (f"<h2>{E(title)}: {E(run_label(e))}</h2>\n{dirty_note(e)}"
            f"<p class=small>matrix {E(str(e['matrix']))}, {e.get('full_vcpus')} vCPUs, "
            f"{e['reps']} repetitions of {e['runtime_s']} s{few}</p>\n{counts_line(pts)}\n{forest(pts)}")


def other_matrices(entries, first):
    """The newest default-matrix run when it is not FIRST (a dirty tree),
    then the newest run of every other matrix, newest first, clean or not
    (a dirty one says so)."""
    out = []
    latest = ([e for e in entries if is_default(e)] or [None])[-1]
    if latest and latest is not first:
        out.append(run_section(latest, "Newest run of the default matrix"))
    groups = {}
    for e in entries:
        if e["kind"] == "bench" and not is_default(e):
            groups[(e["matrix"], e["only"])] = e
    for (matrix, only), e in sorted(groups.items(), key=lambda kv: kv[1]["id"], reverse=True):
        label = f"the {matrix} matrix" + (", some points only (BENCH_ONLY)" if only else "")
        out.append(run_section(e, f"Newest run of {label}"))
    return "\n".join(out)


def history(entries):
    """Every bench run's ratio per point (name and vCPUs), newest first;
    a cell coloured when the ratio moved beyond the noise of both runs
    against the latest earlier run with the same point."""
    runs = [e for e in entries if e["kind"] == "bench"]
    columns = []
    for e in runs:
        for p in e["points"]:
            if judged(p) and (p["name"], p["vcpus"]) not in columns:
                columns.append((p["name"], p["vcpus"]))
    order = {c: i for i, c in enumerate(columns)}
    columns.sort(key=lambda c: (c[1] != 4, c[1], order[c]))
    last = {}
    rows = []
    for e in runs:
        cells = {}
        for p in e["points"]:
            if not judged(p):
                continue
            before = last.get(key(p))
            change = stats.ratio_change(before[1]["rep_ratios"], p["rep_ratios"]) if before else None
            cells[(p["name"], p["vcpus"])] = (p, before, change)
            last[key(p)] = (e, p)
        rows.append((e, cells))
    head = "".join(f"<th>{E(n)}<br><span class=small>{v} vCPUs</span></th>" for n, v in columns)
    out = [f"<div class=scroll><table><tr><th class=name>run</th>{head}</tr>"]
    for e, cells in reversed(rows):
        tree = "" if e["clean"] else " <span class=small>(dirty)</span>"
        row = [f"<td class=name>{E(e['id'])}{tree}</td>"]
        for col in columns:
            if col not in cells:
                row.append("<td class=few>n/a</td>")
                continue
            p, before, change = cells[col]
            cls = []
            v = change and change["verdict"]
            if v == stats.Change.BETTER:
                cls.append("better")
            elif v == stats.Change.WORSE:
                cls.append("worse")
            if p["verdict"] in (V.FASTER.value, V.SLOWER.value):
                cls.append("judged")
            elif p["verdict"] == V.TOO_FEW.value:
                cls.append("few")
            tip = f"{p['verdict']}, 95 % interval {interval_text(p['interval'])}"
            if before:
                tip += (f"; against {before[0]['id']} ({before[1]['ratio']:.3f}): "
                        f"{v.value}, x{fmt(change['change'], '.3f')} {interval_text(change['interval'])}")
            mark = {stats.Change.BETTER: " &#9650;", stats.Change.WORSE: " &#9660;"}.get(v, "")
            row.append(f'<td class="{" ".join(cls)}" title="{E(tip)}">{p["ratio"]:.2f}{mark}</td>')
        out.append("<tr>" + "".join(row) + "</tr>")
    out.append("</table></div>")
    return "\n".join(out)


def headline(e):
    if e["kind"] == "bench":
        pts = full_points(e)
        n = {v: sum(1 for p in pts if judged(p) and p["verdict"] == v.value) for v in VERDICT_ORDER}
        return ", ".join(f"{n[v]} {v.value}" for v in VERDICT_ORDER if n[v]) or "nothing measured"
    if e.get("criteria"):
        crit = [c for c in e["criteria"] if c["alloc"] == "pool"] or e["criteria"]
        return f"pool meets {sum(1 for c in crit if not c['missed'])} of {len(crit)} aims"
    if e["kind"] == "bench-tags":
        r = [p["ns_ratio"] for p in e["points"]]
        return f"pool/sbitmap ns per pair {min(r):.2f}-{max(r):.2f} (under TCG)"
    if e["kind"] == "bench-ida":
        r = [p["alloc_ratio"] for p in e["points"]]
        return f"IDA/tag_ida ns per alloc {min(r):.2f}-{max(r):.2f}"
    return "n/a"


def every_run(entries):
    out = ["<div class=scroll><table><tr><th class=name>run</th><th class=name>kind</th>"
           "<th class=name>matrix</th><th>commit</th><th>tree</th><th>vCPUs</th><th>reps</th>"
           "<th class=name>outcome</th><th class=name>files</th></tr>"]
    for e in reversed(entries):
        tree = {True: "clean", False: "dirty", None: "n/a"}[e["clean"]]
        text = "summary.txt" if e["kind"] == "bench" else "summary.md"
        out.append(f"<tr><td class=name>{E(e['id'])}</td><td class=name>{E(e['kind'])}</td>"
                   f"<td class=name>{E(str(e['matrix'] or 'n/a'))}{' (only)' if e['only'] else ''}</td>"
                   f"<td>{E(str(e['commit']))}</td><td>{tree}</td>"
                   f"<td>{E(' '.join(map(str, e['vcpus'] or [])) or 'n/a')}</td>"
                   f"<td>{e['reps'] or 'n/a'}</td><td class=name>{E(headline(e))}</td>"
                   f'<td class=name><a href="{E(e["id"])}/{text}">{text}</a> '
                   f'<a href="{E(e["id"])}/report/">plots</a></td></tr>')
    out.append("</table></div>")
    return "\n".join(out)


def figures_table(e, baseline=None):
    """Every figure of run E's points, n/a where a point has none."""
    base = {key(p): p for p in (baseline or {}).get("points", []) if judged(p)}
    out = ["<div class=scroll><table><tr><th class=name>point</th><th>vCPUs</th><th>jobs</th>"
           "<th>depth</th><th>pool IOPS median (min-max)</th><th>sbitmap IOPS median (min-max)</th>"
           "<th>pool/sbitmap</th><th>95 % interval</th><th>range of reps</th>"
           "<th class=name>verdict</th><th>p99 &micro;s pool / sbitmap</th><th>pool local share</th>"
           "<th>steals/M I/Os</th><th>waits/M I/Os</th><th>tag refusals/M pool / sbitmap</th>"
           + ("<th class=name>against the baseline</th>" if baseline else "") + "</tr>"]
    for p in sorted(e["points"], key=lambda p: (p["vcpus"] != e.get("full_vcpus"), p["vcpus"])):
        if p["status"] == "skipped":
            out.append(f"<tr><td class=name>{E(p['name'])}</td><td>{p['vcpus']}</td><td>{p['jobs']}</td>"
                       f"<td>{p['depth']}</td><td class=name colspan={11 + bool(baseline)}>skipped: "
                       f"{E(p['note'])}</td></tr>")
            continue

        def iops(a):
            i = p["iops"][a]
            return "n/a" if not i else f"{i['median']:.0f} ({i['min']:.0f}-{i['max']:.0f})"

        rng = p["range"]
        share = p["local_share"]
        cells = [iops("pool"), iops("sbitmap"), fmt(p["ratio"], ".3f"), interval_text(p["interval"]),
                 "n/a" if not rng else f"{rng[0]:.2f}-{rng[1]:.2f}", p["verdict"],
                 " / ".join(fmt(p["p99_us"][a], ".0f") for a in ALLOCS),
                 fmt(share and share * 100, ".1f") + ("" if share is None else " %"),
                 fmt(p["steals_per_mio"], ".0f"), fmt(p["waits_per_mio"], ".0f"),
                 " / ".join(fmt(p["refusals_per_mio"][a], ".0f") for a in ALLOCS)]
        if baseline:
            b = base.get(key(p))
            cells.append("n/a" if not b or not judged(p) else
                         stats.ratio_change(b["rep_ratios"], p["rep_ratios"])["verdict"].value)
        out.append(f"<tr><td class=name>{E(p['name'])}</td><td>{p['vcpus']}</td><td>{p['jobs']}</td>"
                   f"<td>{p['depth']}</td>" + "".join(f"<td>{E(c)}</td>" for c in cells) + "</tr>")
    out.append("</table></div>")
    return "\n".join(out)


# --- The page and the status block ----------------------------------------------------

def first_run(entries):
    return newest(entries, is_default) or newest(entries, lambda e: e["kind"] == "bench")


def page(entries, baseline=None, details=""):
    """The dashboard; DETAILS is HTML added at the end (the allocator
    runs' plots, labbench.tagsplots)."""
    first = first_run(entries)
    if first is None:
        top = "<p>No end-to-end run yet: make bench.</p>"
        sweep = figures = ""
    else:
        newer = [e for e in entries if is_default(e) and e["id"] > first["id"]]
        note = ("" if not newer else f"<p class=small>Newer default-matrix runs of a tree with "
                f"uncommitted changes, below: {E(', '.join(e['id'] for e in newer))}.</p>")
        top = run_section(first, "End to end, default matrix") + note
        sweep = sweep_section(first)
        figures = (f"<h2>Every figure of {E(first['id'])}</h2>\n"
                   f"<p class=small>IOPS ranges over repetitions; n/a: not measured or no counter. "
                   f"Plots: <a href=\"{E(first['id'])}/report/\">{E(first['id'])}/report/</a> "
                   f"(make report draws them).</p>\n{figures_table(first, baseline)}")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>percpu tag pool against sbitmap</title>
<style>{CSS}</style></head><body>
<h1>percpu tag pool against sbitmap</h1>
<p class=small>Verdict rule: {E(stats.METHOD)}; pool faster or slower when the interval excludes 1,
too few reps when it is unbounded (under 4 repetitions). Every run is a QEMU TCG guest on a shared
2-core host: compare ratios within a run, not IOPS across runs. From results/index.jsonl
({len(entries)} runs) by make report.</p>
{top}
<h2>Aims of the allocator runs</h2>
{aims_line(entries, "bench-scale", "Model, 1-256 simulated CPUs (make bench-scale)")}
{aims_line(entries, "bench-tags-native", "Native, this host's 2 cores (make bench-tags-native)")}
{sweep}
{other_matrices(entries, first)}
<h2>History: pool/sbitmap per point, newest run first</h2>
<p class=small>Green &#9650;: the ratio rose beyond the noise of both runs against the latest
earlier run with the same point (better for the pool); red &#9660;: it fell (worse for the pool);
bold: pool faster or slower within its own run; grey: too few repetitions to judge. Hover a cell
for its interval and the comparison.</p>
{history(entries)}
<h2>Every run</h2>
{every_run(entries)}
{figures}
{details}
</body></html>
"""


def status_block(entries):
    """README's status block (between STATUS_BEGIN and STATUS_END)."""
    lines = [STATUS_BEGIN]
    first = first_run(entries)
    if first:
        pts = [p for p in full_points(first) if judged(p)]
        n = {v: sum(1 for p in pts if p["verdict"] == v.value) for v in VERDICT_ORDER}
        ratios = [p["ratio"] for p in pts]
        lines.append(
            f"- **End to end** (`make`, `{first['id']}`, "
            f"{'clean tree' if first['clean'] else 'uncommitted changes'}): {len(pts)} points at "
            f"{first['full_vcpus']} vCPUs, pool/sbitmap {min(ratios):.2f}-{max(ratios):.2f}; "
            + ", ".join(f"{n[v]} {v.value}" for v in VERDICT_ORDER)
            + f" ({first['reps']} repetitions each).")
    lines.append(aims_text(entries, "bench-scale", "Model"))
    lines.append(aims_text(entries, "bench-tags-native", "Native"))
    lines.append(STATUS_END)
    return "\n".join(lines)


def rewrite_status(readme, entries):
    """Rewrite README's status block: "written", "unchanged", or None when
    it has none."""
    text = readme.read_text()
    if STATUS_BEGIN not in text or STATUS_END not in text:
        return None
    head, rest = text.split(STATUS_BEGIN, 1)
    tail = rest.split(STATUS_END, 1)[1]
    new = head + status_block(entries) + tail
    if new == text:
        return "unchanged"
    readme.write_text(new)
    return "written"
