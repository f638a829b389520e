"""Statistics over repetitions, shared by every summary: median and spread,
the noise-aware verdict, rank correlation."""
import statistics


def spread(values):
    """(max - min) / median, 0 for a zero median."""
    med = statistics.median(values)
    return (max(values) - min(values)) / med if med else 0.0


def describe(values):
    """median, min, max, spread and the values themselves."""
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "spread": spread(values), "values": list(values)}


def verdict(a, b):
    """Is B above or below A beyond the noise of either?  a, b: lists of
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
