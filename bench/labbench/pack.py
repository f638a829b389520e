"""A run folder as results/ keeps it: what the dashboard and a reader need
stays as files (run-info.json, summary.json, summary.txt or summary.md,
sweep.json, sweep.txt and the .tsv tables, in the run's own folder and in
its vcpus-N/ parts), everything else (fio's JSON, the telemetry, console
logs, dmesg, kernel configs, the guests' raw output) goes into one
raw.tar.xz in the run's folder, and report/ is drawn again by make report.
The archive is made the same way every time (sorted names, no owners or
dates), so packing the same files gives the same bytes.

labbench pack RUN... packs runs (make bench* does, once its summary is
checked); labbench unpack RUN DEST puts the whole run back together in DEST
(the kept files and the archive's); labbench check unpacks a packed run to
a temporary folder to recompute it.

usage: python3 -m labbench pack RUN...
       python3 -m labbench unpack RUN DEST
"""
import contextlib
import io
import lzma
import pathlib
import shutil
import sys
import tarfile
import tempfile

RAW = "raw.tar.xz"
KEPT_NAMES = ("run-info.json", "summary.json", "summary.txt", "summary.md", "sweep.json",
              "sweep.txt", RAW)
GENERATED = ("report",)


def kept(path):
    """Does results/ keep PATH (relative to its run) as a file?"""
    parts = path.parts
    if parts[0] in GENERATED:
        return False
    if len(parts) == 2 and not parts[0].startswith("vcpus-"):
        return False
    if len(parts) > 2:
        return False
    return path.name in KEPT_NAMES or path.suffix == ".tsv"


def raw_files(run):
    """The files of RUN that go into its archive, relative to RUN, sorted."""
    return sorted(p.relative_to(run) for p in run.rglob("*")
                  if p.is_file() and not kept(p.relative_to(run))
                  and p.relative_to(run).parts[0] not in GENERATED)


def is_packed(run):
    return (run / RAW).exists()


def pack(run):
    """Move RUN's raw files into RUN/raw.tar.xz (added to an archive there
    already); returns how many files went in."""
    files = raw_files(run)
    if not files:
        return 0
    members = {}
    if is_packed(run):
        with tarfile.open(run / RAW) as tar:
            for m in tar.getmembers():
                members[m.name] = tar.extractfile(m).read()
    for rel in files:
        members[str(rel)] = (run / rel).read_bytes()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name in sorted(members):
            data = members[name]
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    (run / RAW).write_bytes(lzma.compress(buf.getvalue(), preset=9))
    for rel in files:
        (run / rel).unlink()
    for d in sorted((p for p in run.rglob("*") if p.is_dir()), reverse=True):
        if not any(d.iterdir()):
            d.rmdir()
    return len(files)


def unpack(run, dest):
    """RUN whole in DEST: its kept files, and its archive's unpacked."""
    shutil.copytree(run, dest, ignore=shutil.ignore_patterns(RAW, *GENERATED))
    if is_packed(run):
        with tarfile.open(run / RAW) as tar:
            tar.extractall(dest, filter="data")


@contextlib.contextmanager
def unpacked(run):
    """RUN with its raw files: RUN itself when it is not packed, else a
    temporary copy of the same name, removed afterwards."""
    run = pathlib.Path(run)
    if not is_packed(run):
        yield run
        return
    with tempfile.TemporaryDirectory() as tmp:
        dest = pathlib.Path(tmp) / run.name
        unpack(run, dest)
        yield dest


def main(args):
    for run in args.runs:
        if not run.is_dir():
            sys.exit(f"labbench pack: no run folder {run}")
        n = pack(run)
        print(f"labbench pack: {run}: {n} files into {RAW}" if n else
              f"labbench pack: {run}: nothing to pack")


def unpack_main(args):
    if args.dest.exists():
        sys.exit(f"labbench unpack: {args.dest} exists")
    unpack(args.run, args.dest)
    print(f"labbench unpack: {args.run} whole in {args.dest}")
