#!/usr/bin/env bash
# Runs the same sessions with two slowpoke binaries and compares what they wrote: every
# output's packets (with their timestamps), its decoded audio, its ffprobe stream list, and
# `info --json`, `history` and `otio export`. For restructurings that must not change
# behaviour: `tools/compare-exports.sh OLD NEW` prints each difference and exits 1 on any.
#
# The sessions cover passthrough and --fps exports of H.264/AAC mp4 (scale, remove, ramp,
# freeze), Opus/subtitle/chapter mkv, audio alone (m4a, wav, flac), `stretch` and `batch`.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 OLD-BINARY NEW-BINARY" >&2; exit 64; }
old=$(realpath "$1") new=$(realpath "$2")
work=$(mktemp -d)
[ -n "${KEEP:-}" ] && echo "keeping $work" >&2 || trap 'rm -rf "$work"' EXIT
q=(-v error -y)

mkdir -p "$work/media"
cd "$work/media"
ffmpeg "${q[@]}" -f lavfi -i testsrc2=size=320x240:rate=60 -f lavfi -i sine=frequency=440:sample_rate=48000 \
    -t 8 -c:v libx264 -g 30 -bf 3 -pix_fmt yuv420p -c:a aac -b:a 128k -shortest clip.mp4
printf '1\n00:00:01,000 --> 00:00:02,500\nhello\n\n2\n00:00:05,000 --> 00:00:06,000\nworld\n' > subs.srt
printf ';FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=3000\ntitle=One\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=3000\nEND=7000\ntitle=Two\n' > chapters.txt
ffmpeg "${q[@]}" -f lavfi -i testsrc=size=320x240:rate=25 -f lavfi -i sine=frequency=660:sample_rate=48000 \
    -i subs.srt -i chapters.txt -map 0:v -map 1:a -map 2:s -map_metadata 3 -t 7 \
    -c:v libx264 -g 50 -c:a libopus -c:s srt -shortest film.mkv
ffmpeg "${q[@]}" -f lavfi -i sine=frequency=523:sample_rate=44100 -t 6 -c:a aac song.m4a
ffmpeg "${q[@]}" -f lavfi -i sine=frequency=300:sample_rate=44100 -t 3 -c:a pcm_s16le voice.wav
cat > recipe.json <<'EOF'
{"output_dir": "batch", "export": {"algorithm": "timeDomain"},
 "edits": [{"scale": {"range": "25%-50%", "rate": "1/4"}}],
 "movies": ["clip.mp4", {"path": "film.mkv", "export": {"fps": 30}}]}
EOF

session() {  # run the sessions with binary $1 in folder $2
    local s=$1
    cp -r "$work/media" "$2"
    cd "$2"
    {
        $s open clip.mp4
        $s scale --range 3.2-5.0 --rate 0.25
        $s remove --range 6-6.5
        $s ramp --range 1-2 --from 1 --to 0.5 --steps 8
        $s freeze --at 0.5 --duration 0.5
        $s export -o pass.mp4 --progress none
        $s export -o pass.mkv --algorithm timeDomain --progress none
        $s export --fps 30 -o cfr.mp4 --progress none
        $s export --fps 24 --frames blend -o blend.mov --progress none
        $s info --json > clip-info.json
        $s history | sed "s/  *\[.*\]$//" > clip-history.txt
        $s otio export -o clip.otio
        $s open film.mkv
        $s scale film.slowpoke --range 2-3 --rate 0.5
        $s remove film.slowpoke --range 4-4.5
        $s export film.slowpoke -o film-pass.mkv --progress none
        $s export film.slowpoke --fps 25 -o film-cfr.mkv --progress none
        $s info film.slowpoke --json > film-info.json
        $s open song.m4a
        $s scale song.slowpoke --range 1-2 --rate 0.5 --semitones 0 2>/dev/null || $s scale song.slowpoke --range 1-2 --rate 0.5
        $s export song.slowpoke -o song.m4a.out.m4a --progress none
        $s export song.slowpoke -o song.flac --algorithm varispeed --progress none
        $s stretch voice.wav voice-slow.wav --rate 0.5 --progress none
        $s batch recipe.json --jobs 1 --progress none
    } > log.txt 2>&1 || { echo "a session failed with $s in $2:" >&2; tail -5 log.txt >&2; exit 1; }
    rm -f chapters.txt subs.srt
}
(session "$old" "$work/old")
(session "$new" "$work/new")

status=0
differ() { echo "differs: $1" >&2; status=1; }
cd "$work/old"
for f in $(find . -type f ! -name '*.slowpoke' ! -name '.*' ! -name log.txt | sort); do
    [ -f "$work/new/$f" ] || { differ "$f is missing from the new run"; continue; }
    case "$f" in
    *.json | *.txt | *.otio)
        sed "s#$work/old#DIR#g" "$f" > "$work/a" && sed "s#$work/new#DIR#g" "$work/new/$f" > "$work/b"
        cmp -s "$work/a" "$work/b" || differ "$f" ;;
    *.mp4 | *.mkv | *.mov | *.m4a | *.flac | *.wav)
        for view in packets audio streams; do
            for side in old new; do
                g="$work/$side/$f"
                case $view in
                packets) ffmpeg -v error -i "$g" -map 0 -c copy -f framemd5 - ;;
                audio) ffmpeg -v error -i "$g" -map 0:a? -f md5 - ;;
                streams) ffprobe -v error -show_streams -show_chapters -of json "$g" ;;
                esac > "$work/$side.view"
            done
            cmp -s "$work/old.view" "$work/new.view" || { differ "$f ($view)"; diff "$work/old.view" "$work/new.view" | head -6 >&2; }
        done ;;
    esac
done
new_only=$(cd "$work/new" && find . -type f ! -name '*.slowpoke' ! -name '.*' ! -name log.txt | sort | while read -r f; do [ -f "$work/old/$f" ] || echo "$f"; done)
[ -z "$new_only" ] || differ "only in the new run: $new_only"
# (a batch table's times vary from run to run)
norm() { sed -E "s#$work/(old|new)#DIR#g; s/(done|skipped) +[0-9.]+ s/\1 T/" "$1"; }
norm "$work/old/log.txt" > "$work/a"; norm "$work/new/log.txt" > "$work/b"
cmp -s "$work/a" "$work/b" || { differ "the printed output"; diff "$work/a" "$work/b" | head -20 >&2; }
n=$(cd "$work/old" && find . -type f ! -name '*.slowpoke' ! -name '.*' | wc -l)
[ "$status" = 0 ] && echo "identical: $n files compared"
exit $status
