"""The interpolation corpus rows of bench.py (kept here so that bench.py stays short)."""
import os
import subprocess
import sys


def make_corpus(path, size):
    """The interpolation corpus of InterpolationCorpusTests at `size` (W:H), x264 crf 12: moving
    test pattern, a cut to a scrolling cellular automaton, a white frame, a fade to black, a still
    picture, noise and scrolling text, 8 frames each at 30 fps (49 frames)."""
    if os.path.exists(path):
        return
    s = f"s={size.replace(':', 'x')}:r=30"
    font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    parts = [f"testsrc2={s},trim=end_frame=8,setpts=PTS-STARTPTS",
             f"cellauto={s}:rule=110:scroll=1:full=1,trim=end_frame=8,setpts=PTS-STARTPTS",
             f"color=white:{s},trim=end_frame=1",
             f"testsrc2={s},trim=start_frame=20:end_frame=28,setpts=PTS-STARTPTS,fade=out:0:8",
             f"testsrc2={s},trim=end_frame=1,loop=loop=7:size=1,setpts=N/30/TB",
             f"color=gray:{s},noise=alls=100:allf=t+u,trim=end_frame=8",
             f"color=black:{s},drawtext=fontfile={font}:text='slowpoke scrolls':fontsize=40:fontcolor=white:x=20:y=h-12*n,trim=end_frame=8"]
    graph = ";".join(f"{p},format=yuv420p,setsar=1[p{i}]" for i, p in enumerate(parts)) + ";" + \
        "".join(f"[p{i}]" for i in range(len(parts))) + f"concat=n={len(parts)}"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-filter_complex", graph, "-c:v", "libx264", "-preset", "veryfast", "-crf", "12", path], check=True)


def corpus_rows(runs, quick, bench):
    """The interpolation corpus (cuts, a flash, a fade, a still, noise, scrolling text) at the
    sizes `swift test` leaves out, slowed to 0.5x and exported at 30 fps: each export must
    succeed with every frame (the full-size retry of a cut crashed at 640 px and wider), timed
    against slowpoke's own --frames nearest. `bench` is bench.py, whose helpers and settings it uses."""
    rows = []
    sizes = [("1280:720", "720p")] if quick else [("1280:720", "720p"), ("1920:1080", "1080p"), ("1918:1080", "1918x1080")]
    for size, label in sizes:
        src = os.path.join(bench.WORK, f"corpus{label}.mp4")
        make_corpus(src, size)
        movie = bench.project(src, f"corpus{label}", 0, "1.6", rate="0.5")
        out = os.path.join(bench.WORK, f"slowpoke-corpus{label}.mp4")
        ours = [bench.SLOWPOKE, "export", movie, "--fps", "30", "--frames", "interpolate", "--preset", bench.PRESET, "--crf", bench.CRF,
                "-o", out, "--force", "--progress", "none"]
        nearest = [bench.SLOWPOKE, "export", movie, "--fps", "30", "--preset", bench.PRESET, "--crf", bench.CRF,
                   "-o", os.path.join(bench.WORK, f"slowpoke-corpus{label}-nearest.mp4"), "--force", "--progress", "none"]
        row = bench.pairs(f"--frames interpolate, corpus of cuts, flash, fade, still, noise and text at {size.replace(':', 'x')}, slowed 0.5x, vs slowpoke's own --frames nearest",
                    ours, nearest, runs)
        probe = subprocess.run(["ffprobe", "-v", "error", "-count_packets", "-select_streams", "v:0", "-show_entries",
                                "stream=nb_read_packets", "-of", "csv=p=0", out], capture_output=True, text=True, check=True)
        frames = int(probe.stdout.strip())
        if frames != 97:
            sys.exit(f"bench: the {label} corpus export has {frames} frames instead of 97")
        row["note"] = f"corpus at {size.replace(':', 'x')}: all 97 frames written; CPU time {row['cpu_ours']:.1f} s against {row['cpu_theirs']:.1f} s"
        rows.append(row)
    return rows
