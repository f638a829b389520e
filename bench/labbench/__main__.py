"""python3 -m labbench COMMAND [ARGS]: the lab's host tools, one
subcommand each (as tools/testing/kunit/kunit.py has run, config, build,
exec and parse).  Each command's module does the work; this file only
reads the command line and turns what the command returns into the exit
status (labbench.Status)."""
import argparse
import importlib
import pathlib
import sys

from . import Status


def run_arg(ap):
    ap.add_argument("run", type=pathlib.Path, help="a run folder under results/")


def matrix_args(ap):
    ap.add_argument("matrix", type=pathlib.Path)
    ap.add_argument("--reps", type=int)
    ap.add_argument("--runtime", type=int)
    ap.add_argument("--vcpus", default="4", help="the vCPU counts of the sweep, blank separated")
    ap.add_argument("--full-vcpus", type=int, default=4, help="the count that runs every point")
    ap.add_argument("--only", default="", help="run only these points (blank separated)")
    ap.add_argument("--unbuilt", action="store_true",
                    help="the bench kernel is not built yet: say what building it adds")


def compare_args(ap):
    ap.add_argument("a", help="the earlier run (folder, or name under results/)")
    ap.add_argument("b", help="the later run")


def index_args(ap):
    ap.add_argument("results", type=pathlib.Path, help="the results folder")
    ap.add_argument("runs", nargs="*", type=pathlib.Path,
                    help="runs to add or replace (default: every run in RESULTS, the index rebuilt)")


def report_args(ap):
    ap.add_argument("results", type=pathlib.Path, help="the results folder")
    ap.add_argument("--baseline", help="a run to compare the newest one with as well")
    ap.add_argument("--readme", type=pathlib.Path,
                    help="a README whose generated status block to rewrite")


def tap_args(ap):
    ap.add_argument("--tap", type=pathlib.Path, help="write the whole run as one TAP file")
    ap.add_argument("expected", type=pathlib.Path, help="the tests expected, one name a line")
    ap.add_argument("results", nargs="*", type=pathlib.Path, help="result files (TAP or records)")


def unpack_args(ap):
    run_arg(ap)
    ap.add_argument("dest", type=pathlib.Path, help="a folder to make")


def passthrough(ap):
    ap.add_argument("args", nargs=argparse.REMAINDER, help="the module's own arguments (--help)")


# name: (module, function, what it does, its arguments).  function is
# called with the parsed arguments (a passthrough module's main() with its
# own argument list) and returns a Status or None (success).
COMMANDS = {
    "fio": ("fio", "main", "print the IOPS of fio JSON files, one a line (bench-run's progress)",
            lambda ap: ap.add_argument("files", nargs="+", type=pathlib.Path)),
    "matrix": ("matrix", "main", "print a matrix's time budget (make bench's first line)",
               matrix_args),
    "summary": ("summary", "main", "summarize a matrix run: summary.json, summary.txt", run_arg),
    "check": ("check", "main", "make a run's summaries again from its raw files, and check them",
              run_arg),
    "sweep": ("sweep", "main", "a vCPU sweep's runs side by side: sweep.json, sweep.txt", run_arg),
    "compare": ("compare", "main", "two runs point by point, by the verdict rule", compare_args),
    "pack": ("pack", "main", "move a run's raw files into its raw.tar.xz",
             lambda ap: ap.add_argument("runs", nargs="+", type=pathlib.Path)),
    "unpack": ("pack", "unpack_main", "a packed run whole again, in a new folder", unpack_args),
    "index": ("index", "main", "add runs to results/index.jsonl (or rebuild it)", index_args),
    "report": ("report", "main", "plots of every run and results/dashboard.html", report_args),
    "tagbench": ("tagbench", "main", "summarize a make bench-tags run", run_arg),
    "idabench": ("idabench", "main", "summarize a make bench-ida run", run_arg),
    "tap": ("tap", "main", "count test results into 'N passed, N failed' and one TAP file",
            tap_args),
    "test": ("test_tools", "main", "the host test bench-tools, on bench/fixtures/",
             lambda ap: None),
    "tagsnative": ("tagsnative", None, "make bench-tags-native's runs (its own arguments)",
                   passthrough),
    "tagsscale": ("tagsscale", None, "make bench-scale's model runs (its own arguments)",
                  passthrough),
}


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m labbench", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (_module, _function, what, arguments) in COMMANDS.items():
        arguments(sub.add_parser(name, help=what, description=what))
    args = ap.parse_args(argv)
    module_name, function, _what, _arguments = COMMANDS[args.command]
    module = importlib.import_module(f".{module_name}", __package__)
    if function is None:
        status = module.main(args.args)
    else:
        status = getattr(module, function)(args)
    return status or Status.SUCCESS


if __name__ == "__main__":
    sys.exit(main().value)
