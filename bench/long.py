"""The long-recording rows of bench.py (issue 52), kept here so that bench.py stays short.

A recording is 10 minutes of 320x180 5 fps H.264 (GOP 50) with 16 kHz mono AAC, looped with
`ffmpeg -stream_loop N -c copy` to 1 and 8 hours (an mp4) and to 3 hours (an MPEG-TS). Each gets
one 10 s edit at 0.5x in its middle, exported (passthrough, timeDomain audio) against a plain
`ffmpeg -i in -map 0 -c copy` remux, both to an mp4; the 10-minute movie also with the default spectral audio,
against the remux plus `rubberband --fine` on the 10 s span. Then `open` and `info` of the
8-hour mp4, timed alone. The inputs (the 8-hour one is 820 MB) are made under .build/bench,
which git ignores, and kept for the next run.
"""
import os
import statistics
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, ".build", "bench")


def recordings():
    """The 10-minute recording and its looped copies: {name: path}."""
    os.makedirs(WORK, exist_ok=True)
    base = os.path.join(WORK, "rec-10min.mp4")
    if not os.path.exists(base):
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=5:duration=600",
                        "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=16000:duration=600",
                        "-c:v", "libx264", "-preset", "ultrafast", "-g", "50", "-pix_fmt", "yuv420p",
                        "-c:a", "aac", "-b:a", "32k", "-ac", "1", base], check=True)
    paths = {"10min": base}
    for name, loops, ext in [("1h", 5, "mp4"), ("8h", 47, "mp4"), ("3h", 17, "ts")]:
        path = os.path.join(WORK, f"rec-{name}.{ext}")
        if not os.path.exists(path):
            subprocess.run(["ffmpeg", "-v", "error", "-y", "-stream_loop", str(loops), "-i", base, "-c", "copy", path], check=True)
        paths[name] = path
    return paths


def project(bench, src, name, at):
    """A folder holding a hard link to src, opened, with at..at+10 s at 0.5x; returns the movie."""
    folder = os.path.join(WORK, name)
    subprocess.run(["rm", "-rf", folder], check=True)
    os.makedirs(folder)
    movie = os.path.join(folder, os.path.basename(src))
    os.link(src, movie)
    subprocess.run([bench.SLOWPOKE, "open", movie], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([bench.SLOWPOKE, "scale", movie, "--range", f"{at}-{at + 10}", "--rate", "0.5"], check=True, stdout=subprocess.DEVNULL)
    return movie


def long_rows(runs, quick, bench):
    """The rows of the module's docstring; `bench` is bench.py, whose helpers it uses."""
    paths = recordings()
    cases = [("10min", "10-minute mp4", 295), ("1h", "1-hour mp4", 1795)]
    if not quick:
        cases += [("8h", "8-hour mp4", 14395), ("3h", "3-hour MPEG-TS", 5395)]
    rows, movies = [], {}
    for name, label, at in cases:
        movie = project(bench, paths[name], f"long-{name}", at)
        movies[name] = movie
        # Both write an mp4 (slowpoke writes no MPEG-TS).
        ours = [bench.SLOWPOKE, "export", movie, "-o", os.path.join(WORK, "export.mp4"), "--algorithm", "timeDomain", "--force", "--progress", "none"]
        remux = ["ffmpeg", "-v", "error", "-y", "-i", movie, "-map", "0", "-c", "copy", os.path.join(WORK, "remux.mp4")]
        row = bench.pairs(f"long recording: passthrough {label} (320x180 5 fps, 16 kHz AAC), {at}-{at + 10} s at 0.5x, timeDomain vs `ffmpeg -c copy`",
                          ours, remux, runs if name in ("10min", "1h") else max(1, min(runs, 3)))
        row["long"] = name
        rows.append(row)
    # The default spectral audio: the one cost beyond a remux is Rubber Band R3 on the span.
    movie = movies["10min"]
    span = os.path.join(WORK, "span.wav")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-ss", "295", "-t", "10", "-i", movie, "-vn", "-c:a", "pcm_s16le", span], check=True)
    remux = ["ffmpeg", "-v", "error", "-y", "-i", movie, "-map", "0", "-c", "copy", os.path.join(WORK, "remux.mp4")]
    fine = f"rubberband -q --fine -t 2 {span} {os.path.join(WORK, 'span-rb.wav')}"
    ours = [bench.SLOWPOKE, "export", movie, "-o", os.path.join(WORK, "export.mp4"), "--force", "--progress", "none"]
    rows.append(bench.pairs("long recording: passthrough 10-minute mp4, 295-305 s at 0.5x, spectral (the default) vs `ffmpeg -c copy` + `rubberband --fine` on the 10 s span",
                            ours, ["sh", "-c", " ".join(remux) + " && " + fine], runs))
    ratios = {r["long"]: r["ratio"] for r in rows if "long" in r}
    notes = []
    if "8h" in ratios:
        notes.append(f"Long recordings: the 8-hour ratio is {ratios['8h'] / ratios['10min']:.2f}x the 10-minute one (goal: at most 1.3x).")
        notes.append(alone(bench, "info", [bench.SLOWPOKE, "info", movies["8h"]], runs))
        notes.append(alone(bench, "info --json", [bench.SLOWPOKE, "info", movies["8h"], "--json"], runs))
        # `open --force` starts the document over: in a folder of its own.
        folder = os.path.join(WORK, "long-8h-open")
        subprocess.run(["rm", "-rf", folder], check=True)
        os.makedirs(folder)
        fresh = os.path.join(folder, os.path.basename(paths["8h"]))
        os.link(paths["8h"], fresh)
        notes.append(alone(bench, "open", [bench.SLOWPOKE, "open", fresh, "--force"], runs).replace(" (edited)", ""))
    if notes:
        rows[-1]["note"] = " ".join(notes)
    return rows


def alone(bench, name, cmd, runs):
    """A sentence with the median time and peak memory of `runs` runs of cmd (after one untimed)."""
    bench.run(cmd)
    results = [bench.run(cmd) for _ in range(runs)]
    return (f"`{name}` of the 8-hour mp4 (edited): median {statistics.median(r[0] for r in results):.2f} s of {runs}, "
            f"peak {max(r[1] for r in results):.0f} MB.")
