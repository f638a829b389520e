"""Statistics over repetitions, shared by every summary: median and range,
the verdict rule of the end-to-end benchmark (paired ratios, a bootstrap
interval), the older range rule, rank correlation.

The verdict rule.  Each repetition of a point runs pool and sbitmap back to
back in the same boot (ABBA), so a slow spell of the host slows both and
cancels in their ratio.  A point's figure is the geometric mean of its
per-repetition pool/sbitmap IOPS ratios; its 95 % interval is a
studentized (bootstrap-t) interval of the mean log ratio: BOOT_RESAMPLES
resamples with replacement, drawn with random.Random(BOOT_SEED) so that
the same figures always give the same interval.  "pool faster" when the
whole interval is above 1, "pool slower" when below, "same within noise"
when it holds 1, "too few reps" when it is unbounded (under 4 pairs: with
3, one resample in 27 repeats one ratio three times, so the 97.5 %
quantile of t is infinite), "n/a" when a side was not measured.  A plain
percentile bootstrap would judge 3 pairs, but wrongly 25 % of the time
for two equal allocators (15 % at 5 pairs, 11 % at 9; simulated); the
studentized one keeps to about 5 % from 5 pairs on, and detects a 10 %
difference with 3 % noise per pair about 9 times in 10 at 5 pairs.
Between two runs (make compare, the history) the same rule judges the
change of the ratio: a two-sample bootstrap-t interval of the difference
of the mean log ratios (Welch's standard error).
"""
import enum
import math
import random
import statistics

BOOT_SEED = 1
BOOT_RESAMPLES = 2000
LEVEL = 0.95
METHOD = (f"geometric mean of the per-repetition pool/sbitmap ratios; 95 % interval by "
          f"studentized bootstrap ({BOOT_RESAMPLES} resamples, seed {BOOT_SEED})")


class Verdict(enum.Enum):
    """A point's verdict, pool against sbitmap in one run; the value is
    what summaries, tables and the dashboard print."""
    FASTER = "pool faster"
    SAME = "same within noise"
    SLOWER = "pool slower"
    TOO_FEW = "too few reps"
    NA = "n/a"
    SKIPPED = "skipped"


class Change(enum.Enum):
    """How a point's pool/sbitmap ratio moved from one run to another."""
    BETTER = "better for the pool"
    SAME = "same within noise"
    WORSE = "worse for the pool"
    NA = "n/a"


def spread(values):
    """(max - min) / median, 0 for a zero median."""
    med = statistics.median(values)
    return (max(values) - min(values)) / med if med else 0.0


def describe(values):
    """median, min, max, spread and the values themselves."""
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "spread": spread(values), "values": list(values)}


def verdict(a, b):
    """The older range rule, kept for the allocators' native timings
    (labbench.tagsnative): is B above or below A beyond the noise of either?  a, b: lists of
    values over repetitions.  "lower" only when B's median is below A's
    minimum and the relative change exceeds both spreads; "higher" likewise;
    "same" otherwise; "n/a" with fewer than 2 repetitions on a side."""
    if len(a) < 2 or len(b) < 2:
        return "n/a"
    ma, mb = statistics.median(a), statistics.median(b)
    change = mb / ma - 1 if ma else 0.0
    noise = max(spread(a), spread(b))
    if mb < min(a) and -change > noise:
        return "lower"
    if mb > max(a) and change > noise:
        return "higher"
    return "same"


def _mean_var(xs):
    n = len(xs)
    m = sum(xs) / n
    return m, sum((x - m) ** 2 for x in xs) / (n - 1)


def _quantile(sorted_values, q):
    """The nearest-rank quantile of a sorted list."""
    return sorted_values[max(0, math.ceil(q * len(sorted_values)) - 1)]


def _t(diff, se):
    """A bootstrap t statistic; a resample without spread is +-inf (or 0)."""
    if se:
        return diff / se
    return math.inf if diff > 0 else -math.inf if diff < 0 else 0.0


def _interval(centre, se, ts):
    """centre minus the 97.5 % and 2.5 % quantiles of the resampled t times se."""
    ts.sort()
    alpha = (1 - LEVEL) / 2
    hi_t, lo_t = _quantile(ts, 1 - alpha), _quantile(ts, alpha)
    return (centre - hi_t * se if hi_t != math.inf else -math.inf,
            centre - lo_t * se if lo_t != -math.inf else math.inf)


def _estimate(samples, signs):
    """(sum of sign x mean, Welch's standard error) of the samples."""
    est, var = 0.0, 0.0
    for xs, sign in zip(samples, signs):
        m, v = _mean_var(xs)
        est += sign * m
        var += v / len(xs)
    return est, math.sqrt(var)


def boot_t(samples, signs, seed=BOOT_SEED, resamples=BOOT_RESAMPLES):
    """(estimate, lo, hi): the estimate sum(sign x mean) of SAMPLES (lists
    of logs, each resampled on its own) with its bootstrap-t 95 % interval
    (bounds may be +-inf); None when a sample has under 2 values."""
    if any(len(xs) < 2 for xs in samples):
        return None
    est, se = _estimate(samples, signs)
    if se == 0:
        return est, est, est
    rng = random.Random(seed)
    ts = []
    for _ in range(resamples):
        r_est, r_se = _estimate([rng.choices(xs, k=len(xs)) for xs in samples], signs)
        ts.append(_t(r_est - est, r_se))
    return (est, *_interval(est, se, ts))


def mean_interval(logs):
    """(mean, lo, hi) of LOGS: boot_t of one sample."""
    return boot_t([logs], [1])


def diff_interval(a_logs, b_logs):
    """(mean(B) - mean(A), lo, hi): boot_t of two samples."""
    return boot_t([a_logs, b_logs], [-1, 1])


def _exp(x):
    """exp(x), None for a bound too large to hold (unbounded)."""
    return math.exp(x) if x < 700 else None


def paired_ratio(pool, sbitmap):
    """The verdict rule on PAIRS of (pool, sbitmap) figures, one pair per
    repetition: {"ratio": geometric mean, "interval": [lo, hi] (hi None when
    unbounded), "range": [min, max] of the ratios, "n", "verdict": a
    Verdict}.  Pairs with a zero or missing figure are left out."""
    ratios = [p / s for p, s in zip(pool, sbitmap) if p and s]
    if not ratios:
        return {"ratio": None, "interval": None, "range": None, "n": 0, "verdict": Verdict.NA}
    logs = [math.log(r) for r in ratios]
    est = mean_interval(logs)
    if est is None:
        return {"ratio": ratios[0], "interval": None, "range": [ratios[0]] * 2, "n": 1,
                "verdict": Verdict.TOO_FEW}
    m, lo, hi = est
    verdict = (Verdict.TOO_FEW if math.isinf(lo) or math.isinf(hi) else Verdict.FASTER if lo > 0
               else Verdict.SLOWER if hi < 0 else Verdict.SAME)
    return {"ratio": math.exp(m), "interval": [_exp(lo), _exp(hi)],
            "range": [min(ratios), max(ratios)], "n": len(ratios), "verdict": verdict}


def ratio_change(a_ratios, b_ratios):
    """The verdict rule between two runs of a point: A_RATIOS and B_RATIOS
    are their per-repetition pool/sbitmap ratios.  {"change": B's geometric
    mean over A's, "interval": [lo, hi], "verdict": a Change}."""
    a = [math.log(r) for r in a_ratios if r]
    b = [math.log(r) for r in b_ratios if r]
    est = diff_interval(a, b)
    if est is None:
        return {"change": None, "interval": None, "verdict": Change.NA}
    d, lo, hi = est
    verdict = (Change.NA if math.isinf(lo) or math.isinf(hi) else Change.BETTER if lo > 0
               else Change.WORSE if hi < 0 else Change.SAME)
    return {"change": math.exp(d), "interval": [_exp(lo), _exp(hi)], "verdict": verdict}


def ranks(values):
    """Ranks 1..n, ties sharing their mean rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(xs, ys):
    """Spearman's rank correlation of two equally long lists (None if fewer
    than 3 pairs or a list is constant)."""
    if len(xs) < 3:
        return None
    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.mean(rx), statistics.mean(ry)
    num = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    den = (sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry)) ** 0.5
    return num / den if den else None
