"""The lab's benchmark tools on the host: summarizing, checking, comparing,
indexing and drawing the benchmarks' runs.  One entry point with a
subcommand each, as the kernel's tools/testing/kunit/kunit.py has:
python3 -m labbench COMMAND (bench/ on PYTHONPATH; the Makefile's $(PY)
sets it); python3 -m labbench --help lists the commands."""
import enum


class Status(enum.Enum):
    """How a command ended; its value is the process's exit status."""
    SUCCESS = 0
    FAILURE = 1   # a check disagreed, a test failed
    USAGE = 2     # the command was given something it cannot use
