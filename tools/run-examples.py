#!/usr/bin/env python3
"""Runs every example of the README and of every command's --help, in order, in one folder on a
generated 90 s clip, and says which exit non-zero (issue 55's goal: all of them exit 0).

    python3 tools/run-examples.py [path/to/slowpoke]    # default .build/debug/slowpoke

The folder holds what the examples name: clip.mp4 (90 s, 640x360, 60 fps, H.264 and AAC),
dog.mov (and ~/Movies/dog.mov, HOME being the folder), recording.ts and broadcast.ts (two programs),
IMG_0042.MOV (5 s at 240 fps), solo.wav, bark.m4a, song.flac (its document song.slowpoke),
recipe.json, cut.edl, PXL_0042.mp4 (an Android 240 fps capture stored for 30 fps) and, for the
`otio import` examples, timeline.otio (clip.mp4's) and from-resolve.otio (dog.mov's) from `otio export`; `undo` and
`redo` examples find an edit to take back. `ffplay -` is run as `ffprobe -` (no display), and
`preview` examples are listed but not run (they wait for keys in a window).
"""
import os, re, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build/debug/slowpoke"))
COMMANDS = ["", "open", "info", "scale", "ramp", "freeze", "slomo", "reverse", "remove", "insert-gap", "undo",
            "redo", "history", "verify", "stretch", "export", "still", "otio export", "otio import", "batch", "preview"]


def sh(command, folder, env):
    return subprocess.run(["/bin/sh", "-c", command], cwd=folder, env=env, capture_output=True, text=True, errors="replace")


def readme_examples():
    text = open(os.path.join(ROOT, "README.md")).read()
    found = []
    for block in re.findall(r"```\n(.*?)```", text, re.S):
        found += [l.split("  #")[0].strip() for l in block.splitlines() if l.startswith("slowpoke ")]
    for row in re.findall(r"^\|.*\| `(slowpoke [^`]*)` \|$", text, re.M):
        found.append(row.replace("\\|", "|"))
    return [("README", e) for e in found]


def help_examples(env):
    found = []
    for command in COMMANDS:
        out = subprocess.run([BINARY] + command.split() + ["--help"], capture_output=True, text=True, env=env).stdout
        for line in out.splitlines():
            if not line.startswith("  slowpoke "):
                continue
            line = line.strip()
            if line.startswith("slowpoke "):
                found.append((f"slowpoke {command} --help".replace("  ", " "), line.split("  #")[0].split(" # ")[0].strip()))
    return found


def make_fixtures(folder):
    def ff(*args):
        subprocess.run(["ffmpeg", "-v", "error", "-y", *args], cwd=folder, check=True)
    ff("-f", "lavfi", "-i", "testsrc2=size=640x360:rate=60:duration=90", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=90",
       "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-ac", "2", "-shortest", "clip.mp4")
    ff("-i", "clip.mp4", "-c", "copy", "dog.mov")
    os.makedirs(os.path.join(folder, "Movies"))
    shutil.copy(os.path.join(folder, "dog.mov"), os.path.join(folder, "Movies/dog.mov"))
    ff("-i", "clip.mp4", "-map", "0:v", "-map", "0:a", "-map", "0:v", "-map", "0:a", "-c", "copy",
       "-program", "title=one:st=0:st=1", "-program", "title=two:st=2:st=3", "recording.ts")
    shutil.copy(os.path.join(folder, "recording.ts"), os.path.join(folder, "broadcast.ts"))
    # An iPhone slow-motion movie: 5 s at 240 fps.
    ff("-f", "lavfi", "-i", "testsrc2=size=320x180:rate=240:duration=5", "-f", "lavfi", "-i", "sine=frequency=330:sample_rate=48000:duration=5",
       "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", "IMG_0042.MOV")
    shutil.copy(os.path.join(ROOT, "media/music.wav"), os.path.join(folder, "solo.wav"))
    # An Android slow-motion capture: 240 fps pictures stored for 30 fps playback.
    ff("-itsscale", "8", "-i", os.path.join(ROOT, "media/clip240.mp4"), "-c", "copy", "-metadata", "com.android.capture.fps=240",
       "-movflags", "use_metadata_tags", "PXL_0042.mp4")
    ff("-i", "solo.wav", "-c:a", "aac", "bark.m4a")
    ff("-i", "solo.wav", "song.flac")
    with open(os.path.join(folder, "recipe.json"), "w") as f:
        f.write('{"output_dir": "out", "edits": [{"scale": {"range": "25%-50%", "rate": "1/4"}}], "movies": ["clip.mp4", "dog.mov"]}\n')
    with open(os.path.join(folder, "cut.edl"), "w") as f:
        f.write("TITLE: cut\nFCM: NON-DROP FRAME\n\n001  AX       V     C        00:00:01:00 00:00:05:00 01:00:00:00 01:00:04:00\n"
                "* FROM CLIP NAME: dog.mov\n")


def run_group(source, examples, fixtures, env):
    """Runs one source's examples in order in a fresh folder holding the fixtures; a document an
    example makes for another movie (or needs, like song.slowpoke) is removed after it, so the
    next examples still find clip.slowpoke as the only one."""
    folder = tempfile.mkdtemp(prefix="slowpoke-examples-")
    for name in os.listdir(fixtures):
        path = os.path.join(fixtures, name)
        (shutil.copytree if os.path.isdir(path) else shutil.copy)(path, os.path.join(folder, name))
    env = dict(env, HOME=folder)
    first = examples[0] if examples else ""
    def setup(*arguments):
        subprocess.run([BINARY, *arguments], cwd=folder, env=env, capture_output=True)
    if not any(word in first for word in ["open ", ".MOV", "otio import"]) and source != "README":
        setup("open", "clip.mp4")
    # Something to undo (and redo); a timeline to import.
    if first in ["slowpoke undo", "slowpoke redo"]:
        setup("scale", "--range", "1-2", "--rate", "0.5")
    if first == "slowpoke redo":
        setup("undo")
    if first.startswith("slowpoke otio import"):
        setup("open", "clip.mp4")
        setup("otio", "export", "-o", "timeline.otio")
        os.remove(os.path.join(folder, "clip.slowpoke"))
        setup("open", "dog.mov")
        setup("otio", "export", "-o", "from-resolve.otio")
        os.remove(os.path.join(folder, "dog.slowpoke"))
    results = []
    for example in examples:
        if example.startswith("slowpoke preview"):
            results.append((example, None, "needs a window and keys"))
            continue
        before = set(f for f in os.listdir(folder) if f.endswith(".slowpoke"))
        for doc in re.findall(r"(\w+)\.slowpoke", example):
            if not os.path.exists(os.path.join(folder, doc + ".slowpoke")) and "otio import" not in example:
                movie = next((m for m in os.listdir(folder) if m.startswith(doc + ".") and not m.endswith(".slowpoke")), None)
                if movie:
                    subprocess.run([BINARY, "open", movie], cwd=folder, env=env, capture_output=True)
        result = sh(example.replace("| ffplay -", "| ffprobe -v error -"), folder, env)
        results.append((example, result.returncode, result.stderr.strip().splitlines()[-2:]))
        for new in set(f for f in os.listdir(folder) if f.endswith(".slowpoke")) - before - {"clip.slowpoke"}:
            if len(before) > 0:
                os.remove(os.path.join(folder, new))
    shutil.rmtree(folder)
    return results


def main():
    fixtures = tempfile.mkdtemp(prefix="slowpoke-fixtures-")
    env = dict(os.environ, SLURM_ARRAY_TASK_ID="1", PATH=os.path.dirname(BINARY) + ":" + os.environ["PATH"])
    make_fixtures(fixtures)
    groups = {}
    for source, example in readme_examples() + help_examples(env):
        groups.setdefault(source, []).append(example)
    failed = ran = 0
    for source, examples in groups.items():
        for example, status, said in run_group(source, examples, fixtures, env):
            if status is None:
                print(f"  not run   {example}   ({source}: {said})")
                continue
            ran += 1
            failed += status != 0
            print(f"  {'ok' if status == 0 else f'EXIT {status}':8}  {example}   ({source})")
            for line in ([] if status == 0 else said):
                print(f"            {line}")
    shutil.rmtree(fixtures)
    print(f"{ran} examples run, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
