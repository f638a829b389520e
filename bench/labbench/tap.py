"""The results of make test, counted, and written as TAP: the one place
that writes TAP.  The runners record each result as one line of plain
text as it happens, tests/run-tests in the guest and tests/host-test on
the host, so that a guest that dies keeps what finished:

    pass NAME
    fail NAME # reason
    skip NAME # why
      pass SUBNAME          (indented two blanks: a result of the test on
                             the next unindented line, such as a KUnit case)

labbench tap EXPECTED RECORDS... prints every failure and skip, then the
closing line "N passed, N failed" (", N skipped" when any).  Every result
counts, subtests as well as the tests that ran them.  A test named in
EXPECTED (one name a line) without a result counts as failed: a guest
that crashed or hung never passes silently.  With --tap FILE it writes the
whole run as one TAP 13 document, each test's subtests nested above its
line as KTAP nests them (TAP::Parser reads it: tests/test-runner checks).
Exit status 1 when anything failed or nothing passed.

usage: python3 -m labbench tap [--tap FILE] EXPECTED RECORDS...
"""
import enum
import re

from . import Status


class Result(enum.Enum):
    PASS = "pass"
    FAIL = "fail"
    SKIP = "skip"


RECORD = re.compile(r"^(?P<indent>  )?(?P<status>pass|fail|skip) (?P<name>.+?)(?: # (?P<comment>.*))?$")
NO_RESULT = "no result: the guest crashed or hung before it ran"


def read_records(path):
    """[(Result, name, comment, [subtests])] of a records file, in its
    order; a subtest is (Result, name, comment).  Other lines are passed
    over."""
    tests, pending = [], []
    for line in path.read_text().splitlines():
        m = RECORD.match(line)
        if not m:
            continue
        entry = (Result(m["status"]), m["name"], m["comment"] or "")
        if m["indent"]:
            pending.append(entry)
        else:
            tests.append(entry + (pending,))
            pending = []
    return tests


def tap_line(num, result, name, comment, indent=""):
    """One TAP line: a skip is "ok" with a SKIP directive."""
    if result == Result.SKIP:
        comment = "SKIP" + (f" {comment}" if comment else "")
    return (f"{indent}{'not ok' if result == Result.FAIL else 'ok'} {num} - {name}"
            + (f" # {comment}" if comment else ""))


def tap(tests):
    """The TAP 13 document of TESTS (as read_records gives them)."""
    out = ["TAP version 13", f"1..{len(tests)}"]
    for num, (result, name, comment, subs) in enumerate(tests, 1):
        if subs:
            out += [f"    # Subtest: {name}", f"    1..{len(subs)}"]
        out += [tap_line(i, *sub, indent="    ") for i, sub in enumerate(subs, 1)]
        out.append(tap_line(num, result, name, comment))
    return "\n".join(out) + "\n"


def main(args):
    expected = [n for n in args.expected.read_text().splitlines() if n.strip()]
    tests = [t for path in args.results for t in read_records(path)]
    ran = {name for _r, name, _c, _s in tests}
    tests += [(Result.FAIL, name, NO_RESULT, []) for name in expected if name not in ran]
    counts = {r: 0 for r in Result}
    for result, name, comment, subs in tests:
        for sub_result, sub_name, sub_comment in subs + [(result, name, comment)]:
            counts[sub_result] += 1
            if sub_result != Result.PASS:
                print(f"{sub_result.name} {sub_name}" + (f" # {sub_comment}" if sub_comment else ""))
    if args.tap:
        args.tap.write_text(tap(tests))
    line = f"{counts[Result.PASS]} passed, {counts[Result.FAIL]} failed"
    if counts[Result.SKIP]:
        line += f", {counts[Result.SKIP]} skipped"
    print(line)
    return Status.FAILURE if counts[Result.FAIL] or not counts[Result.PASS] else Status.SUCCESS
