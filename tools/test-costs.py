#!/usr/bin/env python3
"""What each test suite costs, in CPU time: the measure that does not lie on a shared machine.

Runs every suite on its own, one after another, under `/usr/bin/time -f "%U %S %e"` (user and
system time of the test process and of every program it waited for: slowpoke, ffmpeg, ffprobe,
python), and prints the suites by CPU time, most first, with the sum and the sum / 2 (what the
suites would take on two quiet cores if `swift test` kept both busy). Wall times are printed
too, but on a loaded machine only the CPU column means anything.

    python3 tools/test-costs.py                      # every suite, the quick tier (`make test`)
    python3 tools/test-costs.py --long               # with SLOWPOKE_LONG_TESTS=1 (`make test-long`)
    python3 tools/test-costs.py --only 'Reverse|Fuzz'  # the suites whose name matches
    python3 tools/test-costs.py --tsv costs.tsv --top 30

Build the tests first (`swift build --build-tests`). Each suite runs as `swift test --skip-build
--filter '^Target.Suite/'` runs it: the test bundle itself (`.build/debug/*PackageTests.xctest
--testing-library swift-testing --filter ...`; `--bin DIR` takes another build's, `--swift-test`
goes through `swift test`, which holds .build's lock and so cannot run with -j).
PreviewCommandTests and PreviewScreenTests run as `make test` runs them, with SLOWPOKE_PREVIEW_TESTS=1. The cost of
starting with nothing to run is measured once and taken off every row (the net CPU column); the
raw figures are in the TSV.
"""
import argparse, os, re, subprocess, sys, tempfile, time, pathlib
from concurrent.futures import ThreadPoolExecutor

root = pathlib.Path(__file__).resolve().parent.parent
PREVIEW_SUITE = "SlowpokeTests.PreviewCommandTests"
PREVIEW_SCREEN_SUITE = "SlowpokeTests.PreviewScreenTests"  # beside the rest in `make test`, gated the same way


def suites(lister):
    """Every suite the bundle lists, as `Target.Suite`, with its number of tests."""
    listing = subprocess.run(lister, cwd=root, capture_output=True, text=True)
    if listing.returncode != 0:
        sys.exit(" ".join(lister) + " failed (build the tests first):\n" + listing.stderr[-2000:])
    counts = {}
    for line in listing.stdout.splitlines():
        m = re.match(r"^(\w+\.\w+)/", line.strip())
        if m:
            counts[m.group(1)] = counts.get(m.group(1), 0) + 1
    return counts


def timed(command, environment, log=None):
    """(user, sys, wall, exit status, last lines of output) of one run of `command`; its output
    goes to the file `log` too when given."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as out:
        run = subprocess.run(["/usr/bin/time", "-f", "%U %S %e", "-o", out.name] + command, cwd=root,
                             env=environment, capture_output=True, text=True)
        fields = out.read().split()[-3:]
    if log:
        pathlib.Path(log).write_text(run.stdout + run.stderr)
    user, system, wall = (float(f) for f in fields)
    tail = [l for l in (run.stdout + run.stderr).splitlines() if "Test run with" in l or "failed" in l][-3:]
    return user, system, wall, run.returncode, tail


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--long", action="store_true", help="run the long tier (SLOWPOKE_LONG_TESTS=1)")
    parser.add_argument("--only", help="a regular expression: measure only the suites it finds")
    parser.add_argument("--top", type=int, default=30, help="rows of the table (default 30)")
    parser.add_argument("--tsv", help="write every row here as it is measured (suite, tests, user, sys, wall, status)")
    parser.add_argument("--prior", help="a TSV of an earlier run: start with the suites that cost most there")
    parser.add_argument("--logs", help="a folder: each suite's output goes to <suite>.log there (its tests' own times)")
    parser.add_argument("--bin", default=str(root / ".build/debug"),
                        help="the build folder holding the test bundle and slowpoke (default .build/debug)")
    parser.add_argument("--swift-test", action="store_true", help="run each suite through `swift test --skip-build`")
    parser.add_argument("--swift", default=os.environ.get("SWIFT", "swift"))
    parser.add_argument("-j", "--jobs", type=int, default=1,
                        help="suites measured side by side (default 1: one at a time, as on a quiet machine; "
                             "more only shortens a measurement on a machine that is loaded anyway)")
    args = parser.parse_args()

    environment = dict(os.environ)
    build = pathlib.Path(args.bin).resolve()
    # The OTIO oracle of the package that build belongs to (.build/debug resolves to
    # .build/<triple>/debug, so look for .build among its parents).
    package_build = next((p for p in build.parents if p.name == ".build"), build.parent)
    environment.setdefault("SLOWPOKE_OTIO_PYTHON", str(package_build / "otio-venv/bin/python"))
    if args.long:
        environment["SLOWPOKE_LONG_TESTS"] = "1"
    if args.swift_test:
        lister, base = [args.swift, "test", "list", "--skip-build"], [args.swift, "test", "--skip-build", "--filter"]
    else:
        bundle = next(iter(sorted(build.glob("*PackageTests.xctest"))), None)
        if bundle is None:
            sys.exit(f"no *PackageTests.xctest in {build}: run swift build --build-tests")
        lister = [str(bundle), "--testing-library", "swift-testing", "--list-tests"]
        base = [str(bundle), "--testing-library", "swift-testing", "--filter"]
    if args.logs:
        os.makedirs(args.logs, exist_ok=True)
    counts = suites(lister)
    names = sorted(n for n in counts if not args.only or re.search(args.only, n))
    if args.prior:  # the costliest first, so that -j ends with the small ones
        cost = {r[0]: float(r[2]) + float(r[3]) for r in
                (l.rstrip("\n").split("\t") for l in open(args.prior) if not l.startswith("#"))}
        names.sort(key=lambda n: -cost.get(n, 0.0))

    # What starting costs with nothing to run, taken off every row.
    empty = timed(base + ["^NoSuchTarget.NoSuchSuite/"], environment)
    overhead = empty[0] + empty[1]
    print(f"{pathlib.Path(base[0]).name} with nothing to run: {overhead:.2f} s CPU, {empty[2]:.2f} s wall", flush=True)

    rows, started, done = [], time.time(), [0]
    if args.tsv:  # written as the rows come, so that an interrupted run keeps what it measured
        with open(args.tsv, "w") as f:
            f.write(f"# overhead\t{overhead:.2f}\n# suite\ttests\tuser\tsys\twall\tstatus\n")

    def measure(name):
        env = dict(environment)
        if name in (PREVIEW_SUITE, PREVIEW_SCREEN_SUITE):
            env["SLOWPOKE_PREVIEW_TESTS"] = "1"
        log = os.path.join(args.logs, name + ".log") if args.logs else None
        user, system, wall, status, tail = timed(base + [f"^{re.escape(name)}/"], env, log)
        done[0] += 1
        net = max(0.0, user + system - overhead)
        print(f"[{done[0]}/{len(names)}] {name}: {net:.1f} s CPU, {wall:.1f} s wall"
              + ("" if status == 0 else f"  FAILED ({status}) " + " | ".join(tail)), flush=True)
        row = (name, counts[name], user, system, wall, status)
        if args.tsv:
            with open(args.tsv, "a") as f:
                f.write("\t".join(str(x) for x in row) + "\n")
        return row

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        rows = list(pool.map(measure, names))

    rows.sort(key=lambda r: -(r[2] + r[3]))
    total = sum(max(0.0, r[2] + r[3] - overhead) for r in rows)
    print(f"\n| suite | tests | CPU s (net) | wall s |\n|---|---:|---:|---:|")
    for name, tests, user, system, wall, status in rows[:args.top]:
        print(f"| {name.split('.', 1)[1]}{'' if status == 0 else ' (failed)'} | {tests} | "
              f"{max(0.0, user + system - overhead):.1f} | {wall:.1f} |")
    print(f"\n{len(rows)} suites: {total:.0f} s CPU, / 2 cores = {total / 2:.0f} s; "
          f"measured in {time.time() - started:.0f} s wall, {args.jobs} at a time; failures: {sum(r[5] != 0 for r in rows)}")
    # The preview step runs on its own after `swift test`, and waits on real time: its wall
    # time (on a quiet machine) adds to the rest's CPU / 2.
    preview = [r for r in rows if r[0] == PREVIEW_SUITE]
    if preview:
        cpu = max(0.0, preview[0][2] + preview[0][3] - overhead)
        print(f"without the preview step: {total - cpu:.0f} s CPU, / 2 = {(total - cpu) / 2:.0f} s; "
              f"the preview step: {cpu:.0f} s CPU, {preview[0][4]:.0f} s wall")


if __name__ == "__main__":
    main()
