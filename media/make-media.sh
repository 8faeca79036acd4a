#!/usr/bin/env bash
# make-media.sh - regenerate slowpoke's test clips from scratch, deterministically.
#
# Usage:  media/make-media.sh      (writes into the directory this script lives in)
# Needs:  bash, python3 (stdlib only), ffmpeg/ffprobe with libx264 + aac (tested 5.1).
# Helper: gen.py (next to this script) produces raw frames and WAV audio.
#
# PICTURE CODE (all video clips; raw yuv420p, width W, block size B = W/16):
#   * Frame index code: top band y in [0, B) is 16 blocks of BxB pixels. Block i
#     (i = 0 leftmost) encodes bit i of frame index N (LSB first): luma 235 if the
#     bit is set, luma 16 if not.
#   * Gap: rows y in [B, 2B) are luma 128.
#   * Flash: region y >= 2B is luma 235 ("white flash") for every frame whose
#     presentation time t_N = N / fps (exact rational fps, e.g. 30000/1001)
#     satisfies (t_N mod 1 s) < 0.05 s, and luma 64 otherwise.
#     E.g. at 60 fps frames with N mod 60 in {0,1,2} flash.
#   * Chroma (U and V) is 128 everywhere.
#   Decode: sample the centre pixel of each code block, threshold luma at 128.
#
# SOUND CODE (all clips with audio): 48 kHz stereo, silence except a beep at every
#   whole second s = 0, 1, 2, ...: 1000 Hz sine, amplitude 0.5 (16-bit:
#   round(0.5*32767*sin(2*pi*1000*k/48000))), starting at sample s*48000 with phase 0,
#   lasting exactly 50 ms (2400 samples), identical on both channels.
#   (In the .mp4 files it is AAC-encoded, so levels/onsets are approximate to
#   within the codec's accuracy.)
#
# FILES:
#   clip60.mp4   10 s, 1280x720, 600 frames @ 60 fps, H.264 High (B-frames, keyint 60),
#                bt709/tv colour tags, AAC stereo 48 kHz 96 kb/s with beeps, faststart.
#   clip240.mp4  2 s, 640x360, 480 frames @ 240 fps, H.264 (B-frames), AAC beeps at 0,1 s.
#   rotated.mp4  3 s, 640x360 stored, 90 frames @ 30 fps, AAC beeps. Displayed rotated
#                90 degrees CLOCKWISE (portrait 360x640; the code band ends up on the
#                right edge), like an iPhone portrait clip: tkhd matrix
#                [0 1 0; -1 0 0; 360 0 1] (a=0 b=1 c=-1 d=0 tx=360 ty=0),
#                AVFoundation preferredTransform (0,1,-1,0,360,0); ffprobe shows a
#                "Display Matrix" side data with rotation=-90. NOTE: in ffmpeg 5.1
#                `-metadata:s:v:0 rotate=90` yields the OPPOSITE (counter-clockwise,
#                ffprobe rotation=90) and only works with stream copy, so we remux
#                with rotate=-90 and then add the tx translation that ffmpeg omits
#                (gen.py tkhd-translate).
#   ntsc2997.mp4 90 frames @ 30000/1001 fps (3.003 s), 640x360, H.264, AAC beeps (3 s).
#   noaudio.mp4  2 s, 640x360, 120 frames @ 60 fps, video only.
#   music.wav    4 s, 48 kHz stereo s16 PCM; chords changing every 0.5 s (decaying
#                harmonic notes, C-Am-F-G) plus a short 3 kHz click on every beat (0.5 s).
set -euo pipefail

DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
GEN="$DIR/gen.py"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

FF=(ffmpeg -hide_banner -loglevel error -nostdin -y)
BITEXACT=(-map_metadata -1 -fflags +bitexact -flags:v +bitexact -flags:a +bitexact)
COLOR=(-color_primaries bt709 -color_trc bt709 -colorspace bt709 -color_range tv)
AUDIO=(-c:a aac -b:a 96k -ar 48000 -ac 2)

# video NAME W H FPS_NUM FPS_DEN FRAMES KEYINT CRF AUDIO_SECONDS(0=none)
# (No -frames:v: gen.py emits exactly FRAMES frames, and in ffmpeg 5.1 -frames:v
# ends the whole output early, truncating the audio.)
video() {
  local name=$1 w=$2 h=$3 num=$4 den=$5 frames=$6 keyint=$7 crf=$8 asec=$9
  local ain=() amap=() aenc=()
  if [[ $asec != 0 ]]; then
    python3 "$GEN" beeps "$TMP/$name.wav" "$asec"
    ain=(-i "$TMP/$name.wav")
    amap=(-map 1:a:0)
    aenc=("${AUDIO[@]}")
  fi
  python3 "$GEN" frames "$w" "$h" "$num" "$den" "$frames" |
    "${FF[@]}" -f rawvideo -pix_fmt yuv420p -s "${w}x${h}" -framerate "$num/$den" -i - \
      "${ain[@]}" -map 0:v:0 "${amap[@]}" \
      -c:v libx264 -profile:v high -preset medium -crf "$crf" -threads 4 \
      -g "$keyint" -keyint_min "$keyint" -bf 3 -pix_fmt yuv420p "${COLOR[@]}" \
      "${aenc[@]}" "${BITEXACT[@]}" -movflags +faststart \
      "$TMP/$name.mp4"
  mv -f "$TMP/$name.mp4" "$DIR/$name.mp4"
}

rm -f "$DIR"/clip60.mp4 "$DIR"/clip240.mp4 "$DIR"/rotated.mp4 \
      "$DIR"/ntsc2997.mp4 "$DIR"/noaudio.mp4 "$DIR"/music.wav

video clip60    1280 720 60    1    600 60  28 10
video clip240   640  360 240   1    480 240 28 2
video rotated   640  360 30    1    90  30  28 3
"${FF[@]}" -i "$DIR/rotated.mp4" -map 0 -c copy -metadata:s:v:0 rotate=-90 \
  "${BITEXACT[@]}" -movflags +faststart "$TMP/rotated.mp4"
python3 "$GEN" tkhd-translate "$TMP/rotated.mp4"
mv -f "$TMP/rotated.mp4" "$DIR/rotated.mp4"
video ntsc2997  640  360 30000 1001 90  30  28 3
video noaudio   640  360 60    1    120 60  28 0

python3 "$GEN" music "$TMP/music.wav" 4
mv -f "$TMP/music.wav" "$DIR/music.wav"

echo "done:"; ls -l "$DIR"
