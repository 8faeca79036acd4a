#!/usr/bin/env python3
"""Deterministic test-media generator (python3 standard library only).

Usage:
  gen.py frames W H FPS_NUM FPS_DEN COUNT   -> raw yuv420p frames on stdout
  gen.py beeps OUT.wav SECONDS              -> 48 kHz stereo s16 WAV with 1 kHz beeps
  gen.py music OUT.wav SECONDS              -> 48 kHz stereo s16 WAV, music-like
  gen.py tkhd-translate FILE.mp4            -> in place: give a 90-degree-clockwise
                                               tkhd matrix (0,1,-1,0) the translation
                                               tx = track height, as iPhone files have

See README.md for the exact picture / sound code.
"""
import math
import struct
import sys
import wave
from fractions import Fraction

RATE = 48000


def frames(w, h, num, den, count):
    if w % 16 or w % 2 or h % 2:
        sys.exit("W must be a multiple of 16, H even")
    b = w // 16
    if h < 3 * b:
        sys.exit("H too small for code band + gap + flash region")
    gap = bytes([128]) * w * b
    flash_on = bytes([235]) * w * (h - 2 * b)
    flash_off = bytes([64]) * w * (h - 2 * b)
    chroma = bytes([128]) * ((w // 2) * (h // 2) * 2)
    blk_on = bytes([235]) * b
    blk_off = bytes([16]) * b
    period = Fraction(den, num)          # seconds per frame, exact
    limit = Fraction(1, 20)              # 0.05 s
    out = sys.stdout.buffer
    for n in range(count):
        row = b"".join(blk_on if (n >> i) & 1 else blk_off for i in range(16))
        t = n * period
        flash = (t - math.floor(t)) < limit
        out.write(row * b + gap + (flash_on if flash else flash_off) + chroma)
    out.flush()


def write_wav(path, left, right):
    data = bytearray()
    for l, r in zip(left, right):
        data += struct.pack("<hh", l, r)
    with wave.open(path, "wb") as wf:
        wf.setnchannels(2)
        wf.setsampwidth(2)
        wf.setframerate(RATE)
        wf.writeframes(bytes(data))


def beeps(path, seconds):
    total = int(round(seconds * RATE))
    beep = [int(round(0.5 * 32767 * math.sin(2 * math.pi * 1000 * k / RATE)))
            for k in range(2400)]
    pcm = [0] * total
    s = 0
    while s * RATE < total:
        start = s * RATE
        for k in range(min(2400, total - start)):
            pcm[start + k] = beep[k]
        s += 1
    write_wav(path, pcm, pcm)


def music(path, seconds):
    total = int(round(seconds * RATE))
    # chord progression, one chord every 0.5 s (120 bpm): C, Am, F, G, ...
    chords = [
        (261.63, 329.63, 392.00),  # C
        (220.00, 261.63, 329.63),  # Am
        (174.61, 220.00, 261.63),  # F
        (196.00, 246.94, 293.66),  # G
    ]
    harm = (1.0, 0.5, 0.25, 0.125)
    seg = RATE // 2
    left = [0] * total
    right = [0] * total
    two_pi = 2 * math.pi
    for n in range(total):
        idx = n // seg
        t = (n - idx * seg) / RATE            # time since chord/beat onset
        env = math.exp(-4.0 * t)
        notes = chords[idx % len(chords)]
        v = 0.0
        for f in notes:
            for h, a in enumerate(harm, 1):
                v += a * math.sin(two_pi * f * h * t)
        v *= 0.09 * env
        # percussive click each beat: 5 ms decaying 3 kHz burst
        click = 0.0
        if t < 0.005:
            click = 0.25 * math.exp(-800.0 * t) * math.sin(two_pi * 3000 * t)
        lv = v * 1.0 + click
        rv = v * 0.85 + click
        left[n] = max(-32767, min(32767, int(round(lv * 32767))))
        right[n] = max(-32767, min(32767, int(round(rv * 32767))))
    write_wav(path, left, right)


def tkhd_translate(path):
    """ffmpeg 5.1 writes rotation matrices without translation; iPhone/AVFoundation
    files carry one (tx = stored height for a 90-degree clockwise rotation).
    Patch it in place (same size, so no offsets move)."""
    with open(path, "r+b") as f:
        d = bytearray(f.read())
        pos, patched = 0, 0
        while True:
            i = d.find(b"tkhd", pos)
            if i < 0:
                break
            pos = i + 4
            ver = d[i + 4]
            # after version/flags: times+track_id+reserved+duration, reserved(8),
            # layer, alt group, volume, reserved (8)
            m = i + 8 + (20 if ver == 0 else 32) + 8 + 8
            mat = list(struct.unpack(">9i", d[m:m + 36]))
            w, h = struct.unpack(">II", d[m + 36:m + 44])
            if mat[:6] == [0, 0x10000, 0, -0x10000, 0, 0] and mat[6] == 0:
                mat[6] = h  # 16.16 fixed point already, same as tkhd height
                d[m:m + 36] = struct.pack(">9i", *mat)
                patched += 1
        if patched != 1:
            sys.exit("tkhd-translate: expected exactly one rotated track, found %d" % patched)
        f.seek(0)
        f.write(d)


def main(argv):
    if len(argv) >= 7 and argv[1] == "frames":
        frames(*(int(x) for x in argv[2:7]))
    elif len(argv) == 4 and argv[1] == "beeps":
        beeps(argv[2], float(argv[3]))
    elif len(argv) == 4 and argv[1] == "music":
        music(argv[2], float(argv[3]))
    elif len(argv) == 3 and argv[1] == "tkhd-translate":
        tkhd_translate(argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
