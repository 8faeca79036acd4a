#!/usr/bin/env python3
"""The scale rows of `make bench`: slowpoke's own document work on long timelines (issue 40),
timed against a reference slowpoke, the build of an earlier commit (`--reference BIN`; without
one, slowpoke against itself). Each side prepares its own documents with its own binary (a
newer document is refused by an older slowpoke), and every timed command runs on a fresh copy.

Rows: a ramp over 150 s (2250 steps) and `info`, `scale`, `undo` after it; a 10,000-step ramp
and `info` after it; a 3000-clip OpenTimelineIO import and `info`, `otio export` after it; a
100,000-edit history (50,000 pairs of scales that cancel) and `info`, `undo` on it. The
reference side of a row gives up after --limit seconds (the row then says "> limit").

Standalone: bench/scale.py [--runs N] [--reference BIN] [--limit S] [--only SCENARIOS]
(--only after-import,history: the OTIO export and the 100,000-edit history rows; the scenario
names are ramp2250, after-ramp, ramp10000, after-ramp10000, import, after-import, history)
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, "bench", "out", "scale")
SLOWPOKE = os.path.join(ROOT, ".build", "release", "slowpoke")
MOVIE_SECONDS = 620
CLIPS = 3000
HISTORY = 100_000


def make_movie(path):
    """A 620 s 160x90 30 fps movie with AAC audio: small, so that the rows time documents."""
    if os.path.exists(path):
        return
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=160x90:rate=30",
                    "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", str(MOVIE_SECONDS),
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-c:a", "aac", "-b:a", "32k", path], check=True)


def timed(cmd, cwd, limit=None):
    """(wall seconds, peak RSS MB) of cmd run in cwd; None when it took longer than limit."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        proc.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return None
    wall = time.monotonic() - start
    # wait4 has been done by wait(); the children's peak RSS is what getrusage reports.
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if proc.returncode != 0:
        sys.exit(f"bench: command failed: {' '.join(cmd)}\n{err}")
    return wall


def peak_rss(cmd, cwd):
    """Peak RSS in MB of one run of cmd, from wait4."""
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    return usage.ru_maxrss / 1024.0


def otio_timeline(movie_url, rate=30):
    """CLIPS clips, clip i playing source frames [6i, 6i+3) at 1x, 0.5x or 0.25x in turn."""
    def rt(frames):
        return {"OTIO_SCHEMA": "RationalTime.1", "rate": float(rate), "value": float(frames)}
    reference = {"OTIO_SCHEMA": "ExternalReference.1", "metadata": {}, "name": os.path.basename(movie_url),
                 "available_range": {"OTIO_SCHEMA": "TimeRange.1", "duration": rt(MOVIE_SECONDS * rate), "start_time": rt(0)},
                 "available_image_bounds": None, "target_url": movie_url}
    clips = []
    for i in range(CLIPS):
        scalar = [1.0, 0.5, 0.25][i % 3]
        clip = {"OTIO_SCHEMA": "Clip.2", "metadata": {}, "name": f"clip {i + 1}",
                "source_range": {"OTIO_SCHEMA": "TimeRange.1", "duration": rt(3 / scalar), "start_time": rt(6 * i)},
                "effects": [] if scalar == 1 else [{"OTIO_SCHEMA": "LinearTimeWarp.1", "metadata": {}, "name": "",
                                                    "effect_name": "LinearTimeWarp", "time_scalar": scalar}],
                "markers": [], "enabled": True, "media_references": {"DEFAULT_MEDIA": reference},
                "active_media_reference_key": "DEFAULT_MEDIA"}
        clips.append(clip)
    track = {"OTIO_SCHEMA": "Track.1", "metadata": {}, "name": "V1", "source_range": None, "effects": [],
             "markers": [], "enabled": True, "children": clips, "kind": "Video"}
    stack = {"OTIO_SCHEMA": "Stack.1", "metadata": {}, "name": "tracks", "source_range": None, "effects": [],
             "markers": [], "enabled": True, "children": [track]}
    return {"OTIO_SCHEMA": "Timeline.1", "metadata": {}, "name": "long cut", "global_start_time": None, "tracks": stack}


def long_history(document):
    """Adds HISTORY scale edits to a freshly opened document: pairs that slow 1-2 s to half
    speed and bring 1-3 s back to 1 s, so the timeline is unchanged and replays to itself."""
    with open(document) as f:
        doc = json.load(f)
    slow = {"op": "scale", "range": {"start": "1", "duration": "1"}, "duration": "2"}
    back = {"op": "scale", "range": {"start": "1", "duration": "2"}, "duration": "1"}
    doc["history"] = {"applied": HISTORY, "entries": [{"date": "2026-11-26T12:00:00Z", "edit": slow if i % 2 == 0 else back}
                                                      for i in range(HISTORY)]}
    with open(document, "w") as f:
        json.dump(doc, f, indent=2, sort_keys=True)


def prepare(binary, name, movie, steps):
    """A folder WORK/<name> holding the movie and a document made by binary through `steps`
    (lists of arguments, or callables taking the folder); returns the folder."""
    folder = os.path.join(WORK, name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    os.symlink(movie, os.path.join(folder, "movie.mp4"))
    for step in [["open", "movie.mp4"]] + steps:
        if callable(step):
            step(folder)
        else:
            subprocess.run([binary] + step, cwd=folder, check=True, stdout=subprocess.DEVNULL)
    return folder


def run_on_copy(binary, folder, args, limit):
    """Times `binary args` on a fresh copy of folder's document."""
    scratch = folder + "-run"
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(folder, scratch, symlinks=True)
    return timed([binary] + args, scratch, limit)


def scenarios(movie):
    """(setup steps, [(row label, timed args)]) per scenario."""
    ramp = ["ramp", "--range", "0-150", "--from", "1", "--to", "0.25"]
    big = os.path.join(WORK, "long-cut.otio")
    return [
        ("ramp2250", [], [("ramp over 150 s (2250 steps)", ramp)]),
        ("after-ramp", [ramp], [("info after a 2250-step ramp", ["info"]),
                                ("scale after a 2250-step ramp", ["scale", "--range", "200-201", "--rate", "0.5"]),
                                ("undo after a 2250-step ramp", ["undo"])]),
        ("ramp10000", [], [("ramp over 150 s, 10,000 steps", ramp + ["--steps", "10000"])]),
        ("after-ramp10000", [ramp + ["--steps", "10000"]], [("info after a 10,000-step ramp", ["info"])]),
        ("import", [], [(f"otio import, {CLIPS} clips", ["otio", "import", big, "-o", "movie.slowpoke", "--force"])]),
        ("after-import", [["otio", "import", big, "-o", "movie.slowpoke", "--force"]],
         [(f"info after a {CLIPS}-clip import", ["info"]),
          (f"otio export after a {CLIPS}-clip import", ["otio", "export", "-o", "out.otio", "--force"])]),
        ("history", [lambda folder: long_history(os.path.join(folder, "movie.slowpoke")),
                     ["scale", "--range", "300-301", "--rate", "0.5"]],
         [(f"info on a {HISTORY:,}-edit history", ["info"]), (f"undo on a {HISTORY:,}-edit history", ["undo"])]),
    ]


def scale_rows(runs, reference, limit, only=None):
    os.makedirs(WORK, exist_ok=True)
    movie = os.path.join(WORK, "movie.mp4")
    make_movie(movie)
    with open(os.path.join(WORK, "long-cut.otio"), "w") as f:
        json.dump(otio_timeline("file://" + movie), f)
    sides = [("ours", SLOWPOKE)] + ([("theirs", reference)] if reference else [])
    rows = []
    for name, setup, timed_rows in scenarios(movie):
        if only and name not in only:
            continue
        folders = {}
        for side, binary in sides:
            start = time.monotonic()
            folders[side] = prepare(binary, f"{name}-{side}", movie, setup)
            print(f"  {name}: {side} prepared in {time.monotonic() - start:.1f} s", file=sys.stderr)
        for label, args in timed_rows:
            times = {"ours": [], "theirs": []}
            for i in range(runs):
                for side, binary in (sides if i % 2 == 0 else sides[::-1]):
                    # A reference that already gave up is not run again.
                    if times[side] and times[side][-1] is None:
                        continue
                    wall = run_on_copy(binary, folders[side], args, limit if side == "theirs" else None)
                    times[side].append(wall)
                print(f"  {label}: run {i + 1}/{runs}: {times['ours'][-1]:.3f} s, reference {times['theirs'][-1:]}", file=sys.stderr)
            # One more run of ours for its peak memory, then the segments it left.
            scratch = folders["ours"] + "-run"
            shutil.rmtree(scratch, ignore_errors=True)
            shutil.copytree(folders["ours"], scratch, symlinks=True)
            mem = peak_rss([SLOWPOKE] + args, scratch)
            info = json.loads(subprocess.run([SLOWPOKE, "info", "--json"], cwd=scratch, capture_output=True, check=True).stdout)
            segments = sum(len(t["segments"]) for t in info["tracks"])
            ours = statistics.median(times["ours"])
            theirs = (None if None in times["theirs"] else statistics.median(times["theirs"])) if reference else "-"
            rows.append({"label": label, "runs": runs, "ours": ours, "theirs": theirs, "mem": mem, "segments": segments})
    return rows


def table(rows, limit):
    lines = ["| benchmark | runs | slowpoke | reference | segments after | slowpoke peak |", "|---|---|---|---|---|---|"]
    for r in rows:
        theirs = r["theirs"] if r["theirs"] == "-" else f"> {limit:.0f} s" if r["theirs"] is None else f"{r['theirs']:.3f} s"
        lines.append(f"| {r['label']} | {r['runs']} | {r['ours']:.3f} s | {theirs} | {r['segments']} | {r['mem']:.0f} MB |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--reference", help="the slowpoke binary of an earlier commit")
    parser.add_argument("--limit", type=float, default=120, help="seconds after which the reference gives up")
    parser.add_argument("--binary", help="the slowpoke to time (default: .build/release/slowpoke)")
    parser.add_argument("--only", help="comma-separated scenarios to run (default: all; see above)")
    args = parser.parse_args()
    global SLOWPOKE
    SLOWPOKE = os.path.abspath(args.binary or SLOWPOKE)
    only = set(args.only.split(",")) if args.only else None
    known = {name for name, _, _ in scenarios("")}
    if only and not only <= known:
        sys.exit(f"bench: unknown scenario {', '.join(sorted(only - known))}; known: {', '.join(sorted(known))}")
    print(table(scale_rows(args.runs, args.reference, args.limit, only), args.limit))


if __name__ == "__main__":
    main()
