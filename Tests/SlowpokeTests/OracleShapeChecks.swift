import Foundation
import TestSupport

/// The special shapes' own checks (issue 51's goals): every metadata item of the source in the
/// output where the container can hold it, or named by the export; no stream of a second
/// program. Read with ffprobe, independently of the code that wrote the file.
extension OracleCase {
    /// `info --json`'s view of the shape: the capture rate of an Android clip, the programs of
    /// a transport stream.
    func checkShapeInfo(_ timeline: OracleTimeline) {
        let media = timeline.json["media"] as? [String: Any] ?? [:]
        guard !isSong else { return }
        switch source.kind {
        case .android240, .android30for240:
            run.ran("vendor keys")
            let keys = media["quickTimeMetadata"] as? [String: Any] ?? [:]
            if keys["com.android.capture.fps"] as? String != "240.000000" {
                fail("vendor keys", "info --json shows media.quickTimeMetadata \(keys), without com.android.capture.fps 240.000000")
            }
        case .twoPrograms:
            run.ran("second program")
            let programs = media["programs"] as? [[String: Any]] ?? []
            if programs.count != 2 { fail("second program", "info --json lists \(programs.count) programs of the transport stream's 2") }
        default: break
        }
    }

    var isSong: Bool { if case .audioOnly = mode { true } else { false } }

    /// The shape's checks of an export with video; `firstFrame` is the source frame the output's
    /// first frame shows, where known.
    func checkShape(_ export: Export, firstFrame: Int?) throws {
        switch source.kind {
        case .hdr10: try checkHDR10(export)
        case .hdr10plus:
            try checkHDR10(export)
            try checkHDR10Plus(export)
        case .timecode: try checkTimecode(export, firstFrame: firstFrame)
        case .android240, .android30for240:
            run.ran("vendor keys")
            let tags = try Self.probe(export.output)["format"].flatMap { ($0 as? [String: Any])?["tags"] as? [String: Any] } ?? [:]
            for (key, value) in OracleSource.androidKeys.sorted(by: { $0.key < $1.key }) where tags[key] as? String != value {
                fail("vendor keys", "the output's format tags have \(key) = \(tags[key] ?? "nothing"), the source's \(value)")
            }
        case .twoPrograms: try checkOneProgram(export)
        default: break
        }
    }

    /// HDR10: an HEVC output keeps PQ and every frame's mastering display and content light
    /// level; an H.264 one says before any work that it carries neither.
    func checkHDR10(_ export: Export) throws {
        run.ran("HDR10 kept")
        let streams = try Self.probe(export.output)["streams"] as? [[String: Any]] ?? []
        guard let video = streams.first(where: { $0["codec_type"] as? String == "video" }) else { return fail("HDR10 kept", "no video stream") }
        guard video["codec_name"] as? String == "hevc" else {
            if !export.result.stderr.contains("carries no mastering display") {
                fail("HDR10 kept", "a \(video["codec_name"] ?? "?") export of HDR10 video does not say it drops the mastering display (stderr: \(export.result.stderr.prefix(200)))")
            }
            return
        }
        if video["color_transfer"] as? String != "smpte2084" { fail("HDR10 kept", "the output's transfer is \(video["color_transfer"] ?? "none"), not smpte2084") }
        let frames = try TestSupport.tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_frames", "-show_entries",
                                                      "frame=key_frame:frame_side_data_list", "-of", "compact", export.output.path]).stdout
            .components(separatedBy: "\nframe|").filter { !$0.isEmpty }
        let kept = frames.filter { $0.contains("Mastering display metadata") && $0.contains("max_content=1000") }.count
        if kept != frames.count { fail("HDR10 kept", "\(kept) of \(frames.count) output frames carry the mastering display and content light level") }
    }

    /// HDR10+: an HEVC output's every frame carries the ST 2094-40 message of the source frame
    /// it shows, copied or re-encoded (frames by MD5, re-encoded ones by the timeline; black
    /// pictures of gaps need none); an H.264 one says before any work that it drops it.
    func checkHDR10Plus(_ export: Export) throws {
        run.ran("HDR10+ kept")
        let streams = try Self.probe(export.output)["streams"] as? [[String: Any]] ?? []
        guard streams.first(where: { $0["codec_type"] as? String == "video" })?["codec_name"] as? String == "hevc" else {
            if !export.result.stderr.contains("carries HDR10+ dynamic metadata (SMPTE ST 2094-40)") {
                fail("HDR10+ kept", "a non-HEVC export of HDR10+ video does not say it drops HDR10+ (stderr: \(export.result.stderr.prefix(200)))")
            }
            return
        }
        let sourceMarks = try HDR10PlusTests.marks(facts.movie), marks = try HDR10PlusTests.marks(export.output)
        guard sourceMarks.count == facts.md5s.count, !sourceMarks.contains(nil) else {
            return fail("HDR10+ kept", "the source has \(sourceMarks.compactMap { $0 }.count) HDR10+ frames of \(facts.md5s.count)")
        }
        guard let frames = try sourceFrames(export.output, label: "HDR10+") else { return }
        guard frames.count == marks.count else { return fail("HDR10+ kept", "ffprobe lists \(marks.count) frames, ffmpeg decodes \(frames.count)") }
        let stills = source.reencodesStills && (timeline?.hasReverse == true || timeline?.hasGap == true)
        let shown = mode == .keyframeCuts ? nil : timeline?.passthroughFrames(times: facts.times, stills: stills)
        var wrong: [String] = []
        for (i, frame) in frames.enumerated() {
            let expected = frame ?? shown.flatMap { $0.count == frames.count ? $0[i] : nil }
            guard let expected, expected != OracleTimeline.black else { continue }
            if marks[i] != sourceMarks[expected] {
                wrong.append("output frame \(i) (\(frame == nil ? "re-encoded" : "copied"), source frame \(expected)) has \(marks[i].map(String.init) ?? "none"), not \(sourceMarks[expected]!)")
            }
        }
        if !wrong.isEmpty { fail("HDR10+ kept", "\(wrong.count) of \(frames.count) frames: \(wrong.prefix(3).joined(separator: "; "))") }
        if frames.contains(nil) { run.ran("HDR10+ on re-encoded frames") }
    }

    /// Timecode: every timecode the output states (global key, streams' keys, tmcd) is the one
    /// of the source frame its first frame shows (01:00:00:00 is source frame 0): exactly in a
    /// passthrough export, within a frame at its own rate in a `--fps` one (which counts its
    /// own frames: source frame 18 of 25 fps, 0.72 s, is frame 21.6 of 30 fps).
    func checkTimecode(_ export: Export, firstFrame: Int?) throws {
        run.ran("timecode")
        let probe = try Self.probe(export.output)
        let tagged = [probe["format"] as? [String: Any]] + (probe["streams"] as? [[String: Any]] ?? []).map { $0 }
        let codes = tagged.compactMap { ($0?["tags"] as? [String: Any])?["timecode"] as? String }
        guard let first = codes.first else { return fail("timecode", "the output states no timecode; the source starts at 01:00:00:00") }
        if Set(codes).count > 1 { fail("timecode", "the output states several timecodes: \(codes)") }
        guard let frame = firstFrame else { return }
        let rate: Int
        if case .constantRate(let fps, _) = mode { rate = fps } else { rate = source.fps }
        let parts = first.split(whereSeparator: { $0 == ":" || $0 == ";" }).compactMap { Int($0) }
        guard parts.count == 4 else { return fail("timecode", "the output's timecode \(first) is no hh:mm:ss:ff") }
        let stated = Double(parts[0] * 3600 + parts[1] * 60 + parts[2]) + Double(parts[3]) / Double(rate)
        let shown = 3600 + facts.times[frame]
        let allowed = mode.isPassthrough ? 1e-6 : 1 / Double(rate)
        if abs(stated - shown) > allowed {
            fail("timecode", String(format: "the output starts at timecode %@ (%d fps); its first frame is source frame %d, %.4f s after 01:00:00:00",
                                    first, rate, frame, facts.times[frame]))
        }
    }

    /// A program of a transport stream: the output has program A's streams only (one video,
    /// MP2 deu and eng), no AC-3 fra of program B.
    func checkOneProgram(_ export: Export) throws {
        run.ran("second program")
        let streams = try Self.probe(export.output)["streams"] as? [[String: Any]] ?? []
        let video = streams.filter { $0["codec_type"] as? String == "video" }.count
        let languages = streams.filter { $0["codec_type"] as? String == "audio" }
            .map { ($0["tags"] as? [String: Any])?["language"] as? String ?? "und" }.map { ["ger": "deu", "fre": "fra"][$0] ?? $0 }
        if video != 1 || languages.sorted() != ["deu", "eng"] {
            fail("second program", "the output has \(video) video streams and audio in \(languages); program A has 1 video and audio in deu, eng")
        }
    }

    /// ffprobe's format and streams of `file` (tags included), as JSON.
    static func probe(_ file: URL) throws -> [String: Any] {
        let result = try TestSupport.tool("ffprobe", ["-v", "error", "-show_format", "-show_streams", "-of", "json", file.path])
        return (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any] ?? [:]
    }
}
