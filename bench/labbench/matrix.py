"""The budget of a benchmark matrix (bench/matrix/NAME, format at the top of
bench/matrix/default), printed by make bench before anything else: points
x repetitions x 2 allocators x fio's runtime, plus about PER_RUN_S a run to
load, reset, read and unload the device and BOOT_S for the boot, in
minutes.  Every matrix but quick also names quick's budget.  The points
are counted as guest/bench-run reads them: every line that is not blank, a
comment or a KEY=VALUE setting; BENCH_REPS and BENCH_RUNTIME override the
matrix's reps= and runtime=.

usage: python3 -m labbench.matrix MATRIX [--reps N] [--runtime S] [--unbuilt]
"""
import argparse
import pathlib
import re

PER_RUN_S = 2
BOOT_S = 30
# guest/bench-run's defaults when the matrix sets neither.
DEFAULT_REPS, DEFAULT_RUNTIME = 3, 5
KERNEL_BUILD_MIN = 8


def read(path):
    """(number of points, {setting: int}) of a matrix file."""
    points, settings = 0, {}
    for line in pathlib.Path(path).read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = re.match(r"([a-z_]*)=([0-9]+)\s*$", line)
        if m:
            settings[m[1]] = int(m[2])
        elif not re.match(r"[a-z_]*=", line):
            points += 1
    return points, settings


def budget(path, reps=None, runtime=None):
    """"about N minutes (P points x R reps x 2 allocators x T s of fio)"."""
    points, settings = read(path)
    reps = reps or settings.get("reps", DEFAULT_REPS)
    runtime = runtime or settings.get("runtime", DEFAULT_RUNTIME)
    seconds = points * reps * 2 * (runtime + PER_RUN_S) + BOOT_S
    return (f"about {max(1, round(seconds / 60))} minutes ({points} points x {reps} reps"
            f" x 2 allocators x {runtime} s of fio)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("matrix", type=pathlib.Path)
    ap.add_argument("--reps", type=int)
    ap.add_argument("--runtime", type=int)
    ap.add_argument("--unbuilt", action="store_true",
                    help="the bench kernel is not built yet: say what building it adds")
    args = ap.parse_args()
    line = f"bench: the {args.matrix.name} matrix takes {budget(args.matrix, args.reps, args.runtime)}"
    if args.unbuilt:
        line += f", after about {KERNEL_BUILD_MIN} minutes building the bench kernel"
    quick = args.matrix.parent / "quick"
    if args.matrix.name != "quick" and quick.exists():
        line += f"; make bench BENCH=quick takes {budget(quick)}"
    print(line)


if __name__ == "__main__":
    main()
