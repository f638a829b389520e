"""The budget of a benchmark matrix (bench/matrix/NAME, format at the top of
bench/matrix/default), printed by make bench before anything else: points
x repetitions x 2 allocators x fio's runtime, plus about PER_RUN_S a run to
load, reset, read and unload the device and BOOT_S for the boot, in
minutes, at each vCPU count of the sweep: the full count runs every point,
the others the matrix's sweep= points (all when it has none) for
sweep_runtime= seconds; --only (make bench BENCH_ONLY=) counts the points it
names, at every count.  Every matrix but quick also names quick's budget
(quick runs at the full count only).
The points are counted as bench/guest/bench-run reads them: every line that is
not blank, a comment or a KEY=VALUE setting; BENCH_REPS and BENCH_RUNTIME
override the matrix's reps=, runtime= and sweep_runtime=.

usage: python3 -m labbench matrix MATRIX [--reps N] [--runtime S]
       [--vcpus "1 2 4 8" --full-vcpus 4] [--only "NAME ..."] [--unbuilt]
"""
import pathlib
import re
import sys

PER_RUN_S = 2
BOOT_S = 30
# bench/guest/bench-run's defaults when the matrix sets neither.
DEFAULT_REPS, DEFAULT_RUNTIME = 3, 5
KERNEL_BUILD_MIN = 8


def read(path):
    """(point names, {setting: int or list of names}) of a matrix file."""
    points, settings = [], {}
    for line in pathlib.Path(path).read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = re.match(r"([a-z_]*)=([0-9]+)\s*$", line)
        if m:
            settings[m[1]] = int(m[2])
        elif line.startswith("sweep="):
            settings["sweep"] = line.split("=", 1)[1].strip().split(",")
        elif not re.match(r"[a-z_]*=", line):
            points.append(line.split()[0])
    return points, settings


def check_sweep(path):
    """The names of the matrix's sweep= line that are no point of it."""
    points, settings = read(path)
    return [n for n in settings.get("sweep", []) if n not in points]


def unknown_points(path, names):
    """The @names that are no point of the matrix."""
    points = read(path)[0]
    return [n for n in names if n not in points]


def budget(path, reps=None, runtime=None, vcpus=(4,), full_vcpus=4, only=()):
    """"about N minutes (at V vCPUs: P points x R reps x 2 allocators x T s
    of fio; ...)"; with @only, of those points at every count."""
    points, settings = read(path)
    if only:
        points = settings["sweep"] = list(only)
    reps = reps or settings.get("reps", DEFAULT_REPS)
    full_runtime = runtime or settings.get("runtime", DEFAULT_RUNTIME)
    sweep_runtime = runtime or settings.get("sweep_runtime", full_runtime)
    seconds, parts = 0, {}
    for v in vcpus:
        n, t = ((len(points), full_runtime) if v == full_vcpus
                else (len(settings.get("sweep", points)), sweep_runtime))
        seconds += n * reps * 2 * (t + PER_RUN_S) + BOOT_S
        parts.setdefault((n, t), []).append(str(v))
    return f"about {max(1, round(seconds / 60))} minutes (" + "; ".join(
        f"{n} points x {reps} reps x 2 allocators x {t} s of fio at {', '.join(vs)} vCPUs"
        for (n, t), vs in parts.items()) + ")"


def main(args):
    unknown = check_sweep(args.matrix)
    if unknown:
        sys.exit(f"bench: {args.matrix}: sweep= names {' '.join(unknown)}, which is no point of it")
    only = args.only.split()
    unknown = unknown_points(args.matrix, only)
    if unknown:
        sys.exit(f"bench: BENCH_ONLY names {' '.join(unknown)}, which is no point of "
                 f"{args.matrix}: {' '.join(read(args.matrix)[0])}")
    vcpus = [int(v) for v in args.vcpus.split()]
    took = budget(args.matrix, args.reps, args.runtime, vcpus, args.full_vcpus, only)
    line = f"bench: the {args.matrix.name} matrix takes {took}"
    if args.unbuilt:
        line += f", after about {KERNEL_BUILD_MIN} minutes building the bench kernel"
    quick = args.matrix.parent / "quick"
    if args.matrix.name != "quick" and quick.exists():
        line += f"; make bench BENCH=quick takes {budget(quick, vcpus=(args.full_vcpus,), full_vcpus=args.full_vcpus)}"
    print(line)

