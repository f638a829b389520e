"""The host test bench-tools: the benchmark's host tools on the committed
runs of bench/fixtures/, without a boot.  Each summarizer rebuilds its
fixture's summary exactly; labbench.check agrees with the rebuilt
summary.json and refuses a copy with one IOPS median changed by 1%;
labbench.compare finds a run the same as itself; labbench.report writes a
page that inlines its plots and loads nothing; labbench.fio prints the IOPS
the summary has.  Each of these on both matrix runs, bench-quick and
bench-fastslow, where the point's figures are fio's first reporting group
(the fast device) and the second (the slow one) is kept as load, not
counted.  The commands run as programs (python3 -m labbench COMMAND), as the
Makefile runs them; labbench.matrix counts a matrix's points as bench/guest/bench-run does.
bench/tags/pool-variant.sh without-free_to takes out what it names and nothing else.

usage: python3 -m labbench test      (bench/ on PYTHONPATH)
"""
import difflib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

from . import Status, dashboard, fio, matrix, stats, summary, tagbench

FIXTURES = pathlib.Path(__file__).resolve().parent.parent / "fixtures"


def labbench(command, *args, check=True, env=None):
    """python3 -m labbench COMMAND ARGS, in the test's folder, with ENV
    added to the environment: its output."""
    env = dict(os.environ, PYTHONPATH=str(FIXTURES.parent), **(env or {}))
    res = subprocess.run([sys.executable, "-m", "labbench", command, *map(str, args)],
                         capture_output=True, text=True, env=env)
    if check and res.returncode:
        raise AssertionError(f"labbench {command} {' '.join(map(str, args))} exited "
                             f"{res.returncode}:\n{res.stdout}{res.stderr}")
    return res


class Fixture(unittest.TestCase):
    """A copy of a fixture run in a temporary results folder, without the
    files its summarizer writes."""
    name = None
    outputs = ()

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.results = pathlib.Path(tmp.name) / "results"
        self.results.mkdir()
        self.fixture = FIXTURES / self.name
        self.run_dir = self.results / self.name
        shutil.copytree(self.fixture, self.run_dir)
        for out in self.outputs:
            (self.run_dir / out).unlink()

    def assertRebuilt(self, module):
        """MODULE rebuilds every output file of the fixture as committed."""
        labbench(module, self.run_dir)
        for out in self.outputs:
            with self.subTest(file=out):
                self.assertEqual((self.run_dir / out).read_text(), (self.fixture / out).read_text(),
                                 f"labbench.{module} no longer makes {self.fixture / out}")


class MatrixRun(Fixture):
    name = "bench-quick"
    outputs = ("summary.json", "summary.txt")

    def setUp(self):
        super().setUp()
        labbench("summary", self.run_dir)
        self.summary = json.loads((self.run_dir / "summary.json").read_text())

    def test_summary_is_rebuilt(self):
        self.assertRebuilt("summary")

    def test_check_agrees(self):
        out = labbench("check", self.run_dir).stdout
        self.assertIn("agree with the raw files", out)

    def test_check_refuses_a_changed_median(self):
        side = next(p["pool"] for p in self.summary["points"] if p.get("pool"))
        side["iops"]["median"] *= 1.01
        (self.run_dir / "summary.json").write_text(json.dumps(self.summary))
        res = labbench("check", self.run_dir, check=False)
        self.assertEqual(res.returncode, 1, "check accepted an IOPS median changed by 1%:\n" + res.stdout)
        self.assertIn("DISAGREE", res.stdout)

    def test_compare_finds_no_change_against_itself(self):
        out = labbench("compare", self.run_dir, self.run_dir).stdout
        self.assertNotIn("better for the pool", out)
        self.assertNotIn("worse for the pool", out)
        self.assertRegex(out.splitlines()[-1], r"^\d+ (n/a|same within noise)")

    def report(self, env=None):
        labbench("index", self.results)
        labbench("report", self.results, env=env)

    def test_report_writes_a_page_that_loads_nothing(self):
        self.report()
        page = (self.results / "dashboard.html").read_text()
        self.assertIn("<svg", page)
        for outside in ("<script", "<link", 'src="http', 'href="http'):
            self.assertNotIn(outside, page.lower())
        for plot in ("iops.svg", "ratio.svg", "contention.svg"):
            self.assertTrue((self.run_dir / "report" / plot).exists(), plot)

    def test_report_keeps_a_drawn_run_unless_told(self):
        self.report()
        iops = self.run_dir / "report" / "iops.svg"
        iops.write_text("as committed")
        self.report()
        self.assertEqual(iops.read_text(), "as committed")
        self.report(env={"REDRAW": "1"})
        self.assertIn("<svg", iops.read_text())

    def test_packed_run_checks_and_unpacks_whole(self):
        before = {p.relative_to(self.run_dir): p.read_bytes()
                  for p in self.run_dir.rglob("*") if p.is_file()}
        labbench("pack", self.run_dir)
        self.assertTrue((self.run_dir / "raw.tar.xz").exists())
        self.assertFalse((self.run_dir / "fio").exists())
        archive = (self.run_dir / "raw.tar.xz").read_bytes()
        self.assertIn("agree with the raw files", labbench("check", self.run_dir).stdout)
        whole = self.results / "whole"
        labbench("unpack", self.run_dir, whole)
        after = {p.relative_to(whole): p.read_bytes() for p in whole.rglob("*") if p.is_file()}
        self.assertEqual(before, after)
        # The same files pack into the same bytes.
        labbench("pack", whole)
        self.assertEqual((whole / "raw.tar.xz").read_bytes(), archive)

    def test_fio_prints_the_iops_of_the_summary(self):
        point = next(p for p in self.summary["points"] if p.get("pool"))
        runs = [self.run_dir / r for r in point["pool"]["runs"]]
        lines = labbench("fio", *runs).stdout.splitlines()
        printed = [float(line.split()[0]) for line in lines]
        want = [round(v) for v in point["pool"]["iops"]["values"]]
        self.assertEqual(printed, want)


class FastSlowRun(MatrixRun):
    name = "bench-fastslow"

    def test_load_group_is_kept_but_not_counted(self):
        point = next(p for p in self.summary["points"] if p["device"] == "null_blk:fastslow")
        for alloc in ("pool", "sbitmap"):
            side = point[alloc]
            groups = [fio.load(self.run_dir / r)["jobs"] for r in side["runs"]]
            self.assertEqual(side["iops"]["values"],
                             [g[0]["read"]["iops"] + g[0]["write"]["iops"] for g in groups])
            self.assertEqual(side["load"]["slow"]["iops"]["values"],
                             [g[1]["read"]["iops"] + g[1]["write"]["iops"] for g in groups])
            self.assertEqual(set(side["inflight_mid_run"]), {"fast", "slow"})
        self.assertAlmostEqual(point["ratio_of_medians"],
                               point["pool"]["iops"]["median"] / point["sbitmap"]["iops"]["median"])


class TagbenchRun(Fixture):
    name = "bench-tags"
    outputs = ("summary.json", "summary.md")

    def test_summary_is_rebuilt(self):
        self.assertRebuilt("tagbench")


class IdabenchRun(Fixture):
    name = "bench-ida"
    outputs = ("summary.json", "summary.md")

    def test_summary_is_rebuilt(self):
        self.assertRebuilt("idabench")


class SweepRun(Fixture):
    """bench-quick (2 vCPUs) with a copy of itself as the run at 4 vCPUs in
    vcpus-4/: a sweep of two counts."""
    name = "bench-quick"

    def setUp(self):
        super().setUp()
        sub = self.run_dir / "vcpus-4"
        shutil.copytree(self.fixture, sub)
        info = sub / "guest-info.txt"
        info.write_text(info.read_text().replace("vcpus 2", "vcpus 4"))
        for run in (self.run_dir, sub):
            labbench("summary", run)

    def test_sweep_pairs_counts_per_point(self):
        out = labbench("sweep", self.run_dir).stdout
        data = json.loads((self.run_dir / "sweep.json").read_text())
        self.assertEqual((data["schema"], data["vcpus"], data["full_vcpus"]), ("bench-sweep/2", [2, 4], 2))
        self.assertEqual([p["name"] for p in data["points"]], ["scarce-tags", "plentiful-tags"])
        for p in data["points"]:
            self.assertEqual([r["vcpus"] for r in p["by_vcpus"]], [2, 4])
            self.assertEqual(p["by_vcpus"][0]["pool"], p["by_vcpus"][1]["pool"])
        self.assertIn("scarce-tags", out)

    def test_report_draws_the_sweep(self):
        labbench("sweep", self.run_dir)
        labbench("index", self.results)
        labbench("report", self.results)
        for name in ("scarce-tags", "plentiful-tags"):
            self.assertTrue((self.run_dir / "report" / f"sweep-{name}.svg").exists())
        self.assertIn("vCPU sweep", (self.results / "dashboard.html").read_text())

    def test_one_count_is_no_sweep(self):
        shutil.rmtree(self.run_dir / "vcpus-4")
        res = labbench("sweep", self.run_dir, check=False)
        self.assertNotEqual(res.returncode, 0)
        self.assertIn("needs two or more", res.stderr)


def synthetic_run(path, pool, sbitmap):
    """A run of one point "p" as bench/guest/bench-run leaves it, without
    telemetry: fio JSON with POOL[i] and SBITMAP[i] IOPS in repetition i+1."""
    (path / "fio").mkdir(parents=True)
    (path / "points.tsv").write_text("name\tdevice\tparams\tjob\tjobs\tdepth\tstatus\tnote\n"
                                     "p\ttagpool_blk\ttag_alloc=@\trandread-4k\t4\t32\trun\t\n")
    (path / "guest-info.txt").write_text(f"vcpus 4\nreps {len(pool)}\nruntime 5\nmatrix synthetic\n"
                                         "ab_param tag_alloc\n")
    for alloc, values in (("pool", pool), ("sbitmap", sbitmap)):
        for rep, iops in enumerate(values, 1):
            pct = {k: 1000.0 for k in fio.PERCENTILES.values()}
            job = {"jobname": "p", "error": 0, "read": {"iops": iops, "total_ios": int(iops * 5),
                                                        "clat_ns": {"percentile": pct}},
                   "write": {"iops": 0, "total_ios": 0}}
            (path / "fio" / f"p.{alloc}.{rep}.json").write_text(json.dumps({"jobs": [job]}))


class PoolSections(unittest.TestCase):
    """The emulated disks of one controller share its tag set: their pools
    count once, as null_blk's shared_tags=1; one disk's hardware queues
    each count."""

    SOURCES = ["nvme0n1/hctx0", "nvme0n1/hctx1", "nvme0n2/hctx0", "nvme0n2/hctx1"]

    def test_disks_of_one_controller_count_once(self):
        request, _ = summary.pool_sections("-", self.SOURCES, "emulated:labnvme0/1+labnvme0/2")
        self.assertEqual(request, self.SOURCES[:2])

    def test_one_disk_counts_every_hardware_queue(self):
        request, _ = summary.pool_sections("-", self.SOURCES[:2], "emulated:labnvme0/1")
        self.assertEqual(request, self.SOURCES[:2])


class VerdictRule(unittest.TestCase):
    """The known answers of fixtures/verdict-rule.json, through labbench
    summary, check and compare as make bench and make compare run them."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = pathlib.Path(tmp.name)
        self.cases = json.loads((FIXTURES / "verdict-rule.json").read_text())

    def run_case(self, name):
        c = self.cases["cases"][name]
        run = self.tmp / name
        if not run.exists():
            sb = [10000 * d * n for d, n in zip(c["drift"], c["noise_sbitmap"])]
            pool = [10000 * d * c["pool"] * n for d, n in zip(c["drift"], c["noise_pool"])]
            synthetic_run(run, pool, sb)
            labbench("summary", run)
            labbench("check", run)
        return run, c, json.loads((run / "summary.json").read_text())

    def test_each_case_gets_its_verdict(self):
        for name in self.cases["cases"]:
            with self.subTest(case=name):
                _run, c, summary = self.run_case(name)
                self.assertEqual(summary["points"][0]["verdict"], c["verdict"])

    def test_the_old_range_rule_missed_the_shift(self):
        for name, c in self.cases["cases"].items():
            if "old_rule" in c:
                _run, _c, summary = self.run_case(name)
                p = summary["points"][0]
                self.assertEqual(stats.verdict(p["sbitmap"]["iops"]["values"],
                                               p["pool"]["iops"]["values"]), c["old_rule"])

    def test_compare_judges_the_move_of_the_ratio(self):
        for case in self.cases["compare"]:
            with self.subTest(**case):
                a, b = self.run_case(case["a"])[0], self.run_case(case["b"])[0]
                out = labbench("compare", a, b).stdout
                self.assertEqual(out.splitlines()[-1], f"1 {case['verdict']}", out)


def copy_run(src, results, name, matrix=None, clean=True):
    """A copy of fixture SRC as results/NAME, its matrix and its tree's
    state changed, summarized as make bench leaves it."""
    run = results / name
    shutil.copytree(FIXTURES / src, run)
    info = json.loads((run / "run-info.json").read_text())
    info.update(clean=clean, commit=name.split("-")[4] + ("" if clean else "-dirty"))
    (run / "run-info.json").write_text(json.dumps(info))
    if matrix:
        settings = run / "guest-info.txt"
        settings.write_text(re.sub(r"(?m)^matrix .*$", f"matrix {matrix}", settings.read_text()))
    if (run / "points.tsv").exists():
        labbench("summary", run)
    return run


class Dashboard(unittest.TestCase):
    """make report on a results folder of fixtures: an older quick run, a
    default-matrix run of a clean tree, a newer one of a dirty tree, and
    the allocator runs of the model and the native timing."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.results = pathlib.Path(tmp.name) / "results"
        self.results.mkdir()
        copy_run("bench-quick", self.results, "2026-01-01-0000-aaaaaaa-quick")
        copy_run("bench-quick", self.results, "2026-01-02-0000-bbbbbbb", matrix="default")
        copy_run("bench-fastslow", self.results, "2026-01-03-0000-ccccccc", matrix="default",
                 clean=False)
        copy_run("bench-scale", self.results, "2026-01-02-0100-ddddddd-scale")
        copy_run("bench-native", self.results, "2026-01-02-0200-eeeeeee-native")
        self.readme = pathlib.Path(tmp.name) / "README.md"
        self.readme.write_text(f"# lab\n\n{dashboard.STATUS_BEGIN}\nold\n{dashboard.STATUS_END}\nend\n")
        labbench("index", self.results)
        labbench("report", self.results, "--readme", self.readme)
        self.page = (self.results / "dashboard.html").read_text()

    def first_screen(self):
        """The page up to the history: what a 1400 x 900 window shows first
        and the sections right after it."""
        return self.page[:self.page.index("<h2>History")]

    def test_first_section_is_the_newest_clean_default_run(self):
        first = self.first_screen()
        h2 = re.findall(r"<h2>(.*?)</h2>", first)
        self.assertTrue(h2[0].startswith("End to end, default matrix: 2026-01-02-0000-bbbbbbb"), h2)
        self.assertIn("2026-01-03-0000-ccccccc", first)     # named as newer, dirty
        self.assertLess(first.index("<h2>End to end"), first.index("2026-01-01-0000-aaaaaaa-quick"))

    def test_first_section_counts_the_verdicts_and_names_the_aims(self):
        first = self.first_screen()
        counts = re.search(r"<p class=counts>(.*?)</p>", first)[1]
        for v in ("pool faster", "same within noise", "pool slower", "too few reps"):
            self.assertRegex(counts, rf"<b>\d+</b> {v}")
        self.assertRegex(first, r"class=pass>PASS</span> Model.*2026-01-02-0100-ddddddd-scale")
        # The fixture's pool is never slower, but takes more instructions
        # than sbitmap for every tag freed on another CPU.
        self.assertRegex(first, r"class=fail>FAIL</span> Native.*2026-01-02-0200-eeeeeee-native")
        self.assertIn("the pool meets 2 of 3 aims", first[first.index("Native"):])
        status = self.readme.read_text()
        self.assertIn("instructions per pair at most sbitmap's, a tag freed on another CPU: 0 of 4",
                      status)
        self.assertIn("each CPU freeing its own tags: 8 of 8", status)

    def test_no_cell_reads_a_question_mark_or_not_committed(self):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", self.page)
        self.assertTrue(cells)
        self.assertFalse([c for c in cells if c.strip() == "?"])
        self.assertNotIn("not committed", self.page)
        self.assertNotIn(">?<", self.page)

    def test_a_dirty_run_says_so(self):
        page = self.page
        start = page.index("2026-01-03-0000-ccccccc (commit")
        self.assertIn("UNCOMMITTED CHANGES", page[start:start + 200])

    def test_readme_status_block_is_rewritten(self):
        text = self.readme.read_text()
        self.assertNotIn("\nold\n", text)
        self.assertIn("2026-01-02-0000-bbbbbbb", text)
        self.assertTrue(text.startswith("# lab\n") and text.endswith("end\n"))

    def test_report_twice_changes_nothing(self):
        def tree():
            return {p: p.read_bytes() for p in sorted(self.results.rglob("*")) if p.is_file()}
        before, readme = tree(), self.readme.read_bytes()
        labbench("index", self.results)
        labbench("report", self.results, "--readme", self.readme)
        self.assertEqual(tree(), before)
        self.assertEqual(self.readme.read_bytes(), readme)


class CounterNames(unittest.TestCase):
    def test_pool_counters_are_the_kernels(self):
        """labbench.fio.POOL_COUNTERS in the order percpu_tag_pool_show()
        of the patched tree (LAB_KSRC, set by make test) prints them."""
        ksrc = os.environ.get("LAB_KSRC")
        if not ksrc:
            self.skipTest("LAB_KSRC is not set")
        text = (pathlib.Path(ksrc) / "lib/percpu_tags.c").read_text()
        show = text[text.find("void percpu_tag_pool_show("):]
        names = re.findall(r'([a-z_]+)=%llu', show[:show.find("\n}\n")])
        self.assertTrue(names, "no counters printed by percpu_tag_pool_show()")
        self.assertEqual(fio.POOL_COUNTERS, tuple(names))


class NewPoolCounters(unittest.TestCase):
    """Telemetry of the pool with the kernel's counters (alloc_shared,
    scarce_entries; no alloc_refill, alloc_handed, steals) beside that of
    the old pool in the committed runs."""

    def test_figures_of_the_new_counters(self):
        total = {"alloc_local": 900, "alloc_shared": 60, "alloc_stolen": 40, "refills": 7,
                 "returns": 3, "scarce_entries": 1, "waits": 2, "fails": 5}
        f = summary.pool_figures(total, 1000)
        self.assertEqual(f["local_share"], 0.9)
        self.assertEqual(f["allocs_per_io"], 1.0)
        self.assertEqual(f["steals_per_mio"], 40 * 1e3)
        self.assertIsNone(f["handed_per_mio"])

    def test_figures_of_the_old_counters(self):
        total = {"alloc_local": 800, "alloc_refill": 100, "alloc_stolen": 50, "alloc_handed": 50,
                 "steals": 9, "refills": 7, "waits": 2, "fails": 5}
        f = summary.pool_figures(total, 1000)
        self.assertEqual(f["local_share"], 0.8)
        self.assertEqual(f["steals_per_mio"], 9 * 1e3)
        self.assertEqual(f["handed_per_mio"], 50 * 1e3)

    def test_sections_keep_their_generation(self):
        self.assertEqual(fio.pool_counters({"req.alloc_shared": 1}, "req."), fio.POOL_COUNTERS)
        self.assertEqual(fio.pool_counters({"alloc_refill": 1}), fio.OLD_POOL_COUNTERS)

    def test_tagbench_line_with_the_kernels_names(self):
        r = tagbench.parse("tagbench: alloc=pool depth=8 cpus=2 inflight=4 rep=1 ns_per_pair=300"
                           " fails_per_mpair=0 alloc_local=90 alloc_shared=6 alloc_stolen=4"
                           " refills=3 returns=1 scarce_entries=0 waits=0 fails=0")
        self.assertEqual(sum(r.get(k, 0) for k in fio.ALLOC_COUNTERS), 100)
        self.assertEqual(fio.steal_counter(r), "alloc_stolen")

class PoolWithout(unittest.TestCase):
    """bench/tags/pool-variant.sh on the patched tree (LAB_KSRC): without-free_to
    takes percpu_tag_free_to() out and nothing else; it refuses an unknown
    variant and a tree it finds nothing to take out of.  (That the ablated
    build then has no definition of it: nm OUT/native-bench shows
    "w percpu_tag_free_to", the pool's build "T percpu_tag_free_to".)"""
    FILES = ("lib/percpu_tags.c", "lib/tag_ida.c", "lib/sbitmap.c",
             "include/linux/percpu_tags.h", "include/linux/tag_ida.h",
             "include/linux/sbitmap.h")
    SCRIPT = FIXTURES.parent / "tags" / "pool-variant.sh"

    def setUp(self):
        ksrc = os.environ.get("LAB_KSRC")
        if not ksrc:
            self.skipTest("LAB_KSRC is not set")
        self.ksrc = pathlib.Path(ksrc)
        if "percpu_tag_free_to" not in (self.ksrc / "include/linux/percpu_tags.h").read_text():
            self.skipTest("the patched tree has no percpu_tag_free_to()")
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = pathlib.Path(tmp.name)

    def without(self, feature, src, out):
        return subprocess.run([str(self.SCRIPT), "without-" + feature, str(src), str(out)],
                              capture_output=True, text=True)

    def test_free_to_removes_the_function_and_its_prototype_only(self):
        out = self.tmp / "out"
        res = self.without("free_to", self.ksrc, out)
        self.assertEqual(res.returncode, 0, res.stderr)
        for f in self.FILES:
            old, new = (self.ksrc / f).read_text(), (out / f).read_text()
            with self.subTest(file=f):
                if f not in ("lib/percpu_tags.c", "include/linux/percpu_tags.h"):
                    self.assertEqual(new, old)
                    continue
                code = re.sub(r"/\*.*?\*/", "", new, flags=re.S)
                self.assertNotIn("percpu_tag_free_to", code)
                ops = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(),
                                              autojunk=False).get_opcodes()
                self.assertEqual({op for op, *_ in ops}, {"equal", "delete"})
                gone = sum(i2 - i1 for op, i1, i2, _, _ in ops if op == "delete")
                self.assertLess(gone, 40, "more than percpu_tag_free_to() removed")

    def test_refuses_unknown_feature_and_a_tree_without_it(self):
        res = self.without("no_such_feature", self.ksrc, self.tmp / "a")
        self.assertNotEqual(res.returncode, 0)
        self.assertIn("unknown variant", res.stderr)
        self.assertEqual(self.without("free_to", self.ksrc, self.tmp / "b").returncode, 0)
        res = self.without("free_to", self.tmp / "b", self.tmp / "c")
        self.assertNotEqual(res.returncode, 0)
        self.assertIn("nothing changed", res.stderr)


class MatrixBudget(unittest.TestCase):
    def test_counts_points_as_bench_run_reads_them(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = pathlib.Path(tmp) / "m"
            path.write_text("# a comment\nreps=2\nruntime=10\n\n"
                            "a tagpool_blk tags=8 randread-4k 1x 32\n"
                            "  # indented comment\nb null_blk - randread-4k 2 1\n")
            self.assertEqual(matrix.read(path), (["a", "b"], {"reps": 2, "runtime": 10}))
            # 2 points x 2 reps x 2 allocators x (10 s + 2 s) + 30 s = 126 s
            self.assertEqual(matrix.budget(path), "about 2 minutes (2 points x 2 reps x 2 "
                             "allocators x 10 s of fio at 4 vCPUs)")
            self.assertIn("x 1 reps", matrix.budget(path, reps=1))

    def test_sweep_counts_run_the_sweep_points_or_bench_only(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = pathlib.Path(tmp) / "m"
            path.write_text("reps=1\nruntime=10\nsweep=b\nsweep_runtime=4\n"
                            "a tagpool_blk tags=8 randread-4k 1x 32\n"
                            "b null_blk - randread-4k 2 1\n")
            self.assertEqual(matrix.read(path)[1]["sweep"], ["b"])
            self.assertEqual(matrix.check_sweep(path), [])
            path.write_text(path.read_text().replace("sweep=b", "sweep=b,c"))
            self.assertEqual(matrix.check_sweep(path), ["c"])
            path.write_text(path.read_text().replace("sweep=b,c", "sweep=b"))
            # at 4: 2 x 1 x 2 x 12 + 30 = 78 s; at 1 and 8: 1 x 1 x 2 x 6 + 30 = 42 s each
            self.assertEqual(matrix.budget(path, vcpus=(1, 4, 8)), "about 3 minutes (1 points x 1 "
                             "reps x 2 allocators x 4 s of fio at 1, 8 vCPUs; 2 points x 1 reps x "
                             "2 allocators x 10 s of fio at 4 vCPUs)")
            # BENCH_ONLY: at 4: 1 x 1 x 2 x 12 + 30 = 54 s; at 2: 1 x 1 x 2 x 6 + 30 = 42 s
            self.assertEqual(matrix.unknown_points(path, ["a", "c"]), ["c"])
            self.assertEqual(matrix.budget(path, vcpus=(2, 4), only=["a"]), "about 2 minutes "
                             "(1 points x 1 reps x 2 allocators x 4 s of fio at 2 vCPUs; 1 points "
                             "x 1 reps x 2 allocators x 10 s of fio at 4 vCPUs)")


def main(_args=None):
    result = unittest.main(module=__name__, argv=["labbench test"], exit=False,
                           verbosity=1).result
    failed = [test.id() for test, _ in result.failures + result.errors]
    if failed:
        print(f"bench-tools: {len(failed)} of {result.testsRun} checks failed: " + ", ".join(failed))
        return Status.FAILURE
    print(f"bench-tools: {result.testsRun} checks of summary, check, compare, report, fio, "
          f"matrix, sweep, tagbench and idabench passed")
    return Status.SUCCESS
