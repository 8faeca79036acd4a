"""A quick frame-drop score of the FlowInterpolation library on the footage corpus, in seconds
instead of the minutes of `bench.py --only footage`: no export and no encoding.

Each clip of footage.py is decoded once to raw YUV 4:2:0 (with minterpolate's output on its even
frames beside it, cached in bench/out/frame-drop); bench/frame_drop.cpp is compiled against
Sources/FlowInterpolation as it stands and interpolates every odd frame from its two even
neighbours through the C API, scoring it (PSNR over Y, U and V, ffmpeg's way) against the
dropped frame, beside minterpolate's. It also runs the check of
ConstantRateExportTests.inBetweenFramesOnlyInsideTheSlowedRange on media/clip240.mp4 (no
in-between picture within 0.1 of a source picture, mean luma difference). Scores are before
encoding, so they run a little above the bench's (which encode at CRF 12).

    python3 bench/frame_drop.py [--quality high] [--no-seed] [clip ...]

--no-seed starts every pair's flow afresh instead of from the pair's before it (sp_flow_seed,
as the export does).
"""
import os
import subprocess
import sys

import footage

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench", "out", "frame-drop")
GUARD = "guard-pan"
MINTERPOLATE = "minterpolate=fps=30:mi_mode=mci:mc_mode=aobmc:me_mode=bidir:vsbmc=1"


def raw(name, source, first, count, theirs=True):
    """The clip's frames as raw YUV, its size file, and (with `theirs`) minterpolate's frames from
    its even ones."""
    path = os.path.join(OUT, name)
    if os.path.exists(path + (".mi.yuv" if theirs else ".size")):
        return
    if source.endswith(".gz"):
        unpacked = os.path.join(OUT, os.path.basename(source)[:-3])
        with open(unpacked, "wb") as f:
            subprocess.run(["gzip", "-dc", source], stdout=f, check=True)
        source = unpacked
    ff = ["ffmpeg", "-nostdin", "-v", "error", "-y"]
    subprocess.run(ff + ["-i", source, "-vf", f"select='between(n\\,{first}\\,{first + count - 1})',setpts=N/30/TB",
                         "-r", "30", "-an", "-pix_fmt", "yuv420p", "-f", "rawvideo", path + ".yuv"], check=True)
    size = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height",
                           "-of", "csv=p=0", source], capture_output=True, text=True, check=True).stdout.strip()
    with open(path + ".size", "w") as f:
        f.write(size + "\n")
    if not theirs:
        return
    subprocess.run(ff + ["-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", size.replace(",", "x"), "-r", "30", "-i", path + ".yuv",
                         "-vf", f"select='not(mod(n\\,2))',setpts=N/15/TB,{MINTERPOLATE}", "-f", "rawvideo",
                         "-pix_fmt", "yuv420p", path + ".mi.yuv"], check=True)


def main():
    args = sys.argv[1:]
    quality = "0"
    if args[:2] == ["--quality", "high"]:
        quality, args = "1", args[2:]
    seed = "1"
    if args[:1] == ["--no-seed"]:
        seed, args = "0", args[1:]
    os.makedirs(OUT, exist_ok=True)
    names = args or [c[0] for c in footage.CLIPS] + [GUARD, "clip240"]
    for name, where, first, count, _ in footage.CLIPS:
        if name in names:
            raw(name, footage.located(where), first, count)
    if "clip240" in names:
        raw("clip240", os.path.join(ROOT, "media", "clip240.mp4"), 0, 480, theirs=False)
    if GUARD in names:
        # The bench's synthetic pan with a disc crossing it (bench.py's make_footage), scored
        # beside the corpus but not in its mean: the flow fusion of the fifth round gained vtest
        # 0.2 dB and cost this shot 0.8 (a smoothed flow drags the disc's edge).
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import bench
        source = os.path.join(bench.WORK, "footage720p-5s.mp4")
        bench.make_footage(source, 5, "1280:720")
        raw(GUARD, source, 0, 60)
    source = os.path.join(ROOT, "Sources", "FlowInterpolation")
    binary = os.path.join(OUT, "frame_drop")
    # Every source of the library but sp_flow_merge's, which the scorer does not call.
    sources = sorted(os.path.join(source, f) for f in os.listdir(source) if f.endswith(".cpp") and f != "FlowMerge.cpp")
    subprocess.run(["g++", "-O2", "-std=c++17", f"-I{source}/include", "-I/usr/include/opencv4",
                    os.path.join(ROOT, "bench", "frame_drop.cpp")] + sources +
                   ["-o", binary, "-lopencv_video", "-lopencv_imgproc", "-lopencv_core"], check=True)
    subprocess.run([binary, OUT, quality, seed] + names, check=True)


if __name__ == "__main__":
    main()
