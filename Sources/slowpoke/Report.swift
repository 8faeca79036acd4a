import Composition
import Export
import Project
import Foundation
import Preview

/// Text layouts for people.
enum Report {
    /// One line: `10 s, video 1280x720 60 fps h264, audio 48000 Hz stereo aac`.
    static func summary(of media: MediaInfo) -> String {
        var parts: [String] = []
        if let length = (media.primaryVideo ?? media.primaryAudio)?.presentationDuration { parts.append(length.readable) }
        if let v = media.primaryVideo {
            parts.append("video \(v.width ?? 0)x\(v.height ?? 0) \(rate(v.averageFrameRate ?? v.realFrameRate)) \(v.codec)")
        }
        if let a = media.primaryAudio {
            parts.append("audio \(a.sampleRate ?? 0) Hz \(a.channelLayout ?? "\(a.channels ?? 0) ch") \(a.codec)")
        }
        if let damaged = media.damagedTimestamps, !damaged.isEmpty {
            parts.append("\(damaged.count) packet\(damaged.count == 1 ? "" : "s") with a damaged timestamp put back in place (see info)")
        }
        return parts.joined(separator: ", ")
    }

    static func info(_ document: ProjectDocument, documentName: String, all: Bool = false) throws -> String {
        var out = ""
        let media = document.media
        var head = "\(document.movie.path): \(media.containerLongName ?? media.container)"
        if let length = (media.primaryVideo ?? media.primaryAudio)?.presentationDuration { head += ", \(length.readable)" }
        head += ", \(bytes(media.fileSize))"
        if let bitRate = media.bitRate { head += ", \(bitsPerSecond(bitRate))" }
        out += head + "\n"
        for stream in media.streams { out += "  " + describe(stream) + "\n" }
        if let intent = media.fullFrameRatePlaybackIntent {
            out += "  \(MediaInfo.fullFrameRatePlaybackIntentKey) = \(intent)\n"
        }
        for (key, value) in (media.quickTimeMetadata ?? [:]).sorted(by: { $0.key < $1.key }) where key != MediaInfo.fullFrameRatePlaybackIntentKey {
            out += "  \(key) = \(value)\n"
        }
        for program in media.programs ?? [] {
            let played = program.id == media.program ? ": the document plays it" : " (`export --program \(program.id)` exports it)"
            out += "  \(program.label): streams \(program.streams.map(String.init).joined(separator: ", "))\(played)\n"
        }
        if let capture = media.captureFrameRate {
            let stored = (media.primaryVideo?.averageFrameRate ?? media.primaryVideo?.realFrameRate)?.doubleValue ?? 0
            var line = "  captured at \(decimal(capture)) fps"
            if stored > 0 && capture > stored * 1.01 {
                line += ", stored for \(decimal(stored)) fps playback: it plays at \(decimal(stored / capture))x the speed it was filmed"
            }
            out += line + "\n"
        }
        if let damaged = media.damagedTimestamps, !damaged.isEmpty {
            let times = damaged.prefix(5).map { String(format: "%.3f s", $0.seconds) }.joined(separator: ", ")
            out += "  \(damaged.count) packet\(damaged.count == 1 ? "" : "s") with a damaged timestamp (at about \(times)\(damaged.count > 5 ? ", …" : "")): read on its neighbours' clock, so the timeline keeps its length (passthrough leaves out a frame whose presentation time alone is damaged)\n"
        }
        if let restarts = media.clockRestarts, !restarts.isEmpty {
            let times = restarts.map { String(format: "%.3f s", $0.seconds) }.joined(separator: ", ")
            out += "  clock starts again at \(times) (recordings joined with cat): read on one running clock\n"
        }
        out += "\n"

        let tracks = document.timeline.tracks
        let ramps = try document.history.appliedEdits(recordedAs: ["ramp", "slomo", "group"]).flatMap(\.parts).flatMap { edit -> [Ramp] in
            switch edit {
            case .ramp(let ramp): [ramp]
            case .slowMotion(let slowMotion): (try? slowMotion.ramps()).map { [$0.into, $0.outOf] } ?? []
            default: []
            }
        }
        if Self.tracksShareSegments(document.timeline), !tracks.isEmpty {
            let names = tracks.map(\.mediaType.rawValue).joined(separator: " and ")
            out += "Timeline of \(documentName) (\(names), \(plural(tracks[0].segments.count, "segment"))):\n"
            out += table(tracks[0], ramps: ramps, all: all)
        } else {
            for track in tracks {
                out += "Timeline of \(documentName), \(track.mediaType.rawValue) track \(track.trackID) (\(plural(track.segments.count, "segment"))):\n"
                out += table(track, ramps: ramps, all: all)
            }
        }
        out += "Total duration: \(document.timeline.duration.shown) s\n"
        if let first = tracks.first { out += speedGraph(first) }
        return out
    }

    /// A small graph of the playback rate over the timeline, on a log scale between the
    /// slowest and fastest rates present, when they differ; gaps and holds are blank columns.
    ///
    ///     Speed over the timeline (0 - 11.697 s, log scale):
    ///        1x ███████████▆▅▄▃▁             ███████████████████████████████
    ///           █████████████████▆▅▄▂▁       ███████████████████████████████
    ///    0.262x ███████████████████████▇▆▅▃▂▁███████████████████████████████
    static func speedGraph(_ track: CompositionTrack, columns: Int = 60, rows: Int = 3) -> String {
        let reverses = track.segments.contains(where: \.isReversed)
        // The scale the preview's timeline strip draws with, too.
        guard let scale = SpeedScale(segments: track.segments), scale.slowest != scale.fastest || reverses,
              track.duration > .zero else { return "" }
        let slowest = scale.slowest, fastest = scale.fastest
        let levels = rows * 8
        let length = track.duration.seconds
        var heights: [Int?] = []
        var backwards: [Bool] = []
        var index = 0
        for column in 0..<columns {
            let t = (Double(column) + 0.5) / Double(columns) * length
            while index < track.segments.count - 1, track.segments[index].target.end.seconds <= t { index += 1 }
            backwards.append(track.segments[index].isReversed)
            guard let rate = track.segments[index].rate else { heights.append(nil); continue }
            heights.append(max(1, Int((scale.level(of: rate) * Double(levels)).rounded())))
        }
        let blocks = Array(" ▁▂▃▄▅▆▇█")
        // A step's rate such as 16/61 reads as 0.262x here.
        func label(_ r: Rational) -> String { (r.exactDecimal(maxDigits: 3) ?? String(format: "%.3g", r.doubleValue)) + "x" }
        let top = label(fastest), bottom = label(slowest)
        let width = max(top.count, bottom.count, reverses ? 3 : 0)
        var out = "Speed over the timeline (0 - \(track.duration.shown) s, log scale):\n"
        for row in 0..<rows {
            let floor = (rows - 1 - row) * 8
            let label = row == 0 ? top : row == rows - 1 ? bottom : ""
            let cells = heights.map { h in h.map { blocks[min(8, max(0, $0 - floor))] } ?? " " }
            out += "  " + String(repeating: " ", count: width - label.count) + label + " " + String(cells) + "\n"
            if slowest == fastest { break }
        }
        if reverses {
            // Backwards playback: arrows under its columns.
            out += "  " + String(repeating: " ", count: width - 3) + "rev " + String(backwards.map { $0 ? "◀" : " " }) + "\n"
        }
        return out
    }

    /// What the default export does with every stream, or why that cannot be said.
    static func export(_ plan: Result<StreamPlan?, any Error>) -> String {
        switch plan {
        case .failure(let error):
            return "\nExport: the movie could not be read: \(error.localizedDescription)\n"
        case .success(nil):
            return ""
        case .success(let plan?):
            let heading = plan.isAudioOnly ? "\nExport (the audio alone, to .\(plan.container)):\n"
                : "\nExport (passthrough, to .\(plan.container); `export --fps` re-encodes the video\(plan.container == "webm" ? ", to .mkv" : "")):\n"
            return heading + streams(plan)
        }
    }

    /// What an export does with each stream, a row each, and the chapters.
    static func streams(_ plan: StreamPlan) -> String {
        var out = ""
        let rows = plan.entries.map { ["stream \($0.index)", $0.kind, $0.fate.label, FlagAdvice.text(Notice($0.detail, remedies: $0.remedies))] }
        let widths = (0..<3).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            out += "  " + (0..<3).map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "   ")
                + "   " + row[3] + "\n"
        }
        if plan.chapters > 0 { out += "  \(plural(plan.chapters, "chapter")), retimed through the timeline\n" }
        return out
    }

    /// What the export does at the timeline's cuts (nothing when it copies every frame).
    static func cuts(_ preview: Result<CutPreview?, any Error>) -> String {
        guard case .success(let preview?) = preview else { return "" }
        if let why = preview.keyframeCutsBecause { return "  video cuts move to keyframes (nothing re-encoded), because \(why)\n" }
        if preview.reencodedFrames == 0 { return "  video cuts are frame-exact at keyframes: nothing re-encoded; \(preview.copiedFrames) frames copied\n" }
        let places = preview.reversals > 0 ? ExportMovie.places(cuts: preview.cuts, reversals: preview.reversals) : plural(preview.cuts, "cut")
        let stills = ExportMovie.stills(held: preview.heldFrames, black: preview.blackFrames)
        return "  video cuts are frame-exact: \(plural(preview.reencodedFrames, "frame")) re-encoded at \(places)\(stills); \(preview.copiedFrames) copied\n"
    }

    /// `240`, `29.97`, `0.125`: up to three decimals, trailing zeros dropped.
    static func decimal(_ x: Double) -> String {
        var text = String(format: "%.3f", x)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// What the default export will say before any work (``PassthroughPlan/warnings``), or why
    /// it refuses the timeline.
    static func planned(_ plan: Result<PassthroughPlan?, any Error>) -> String {
        switch plan {
        case .failure(let error): return "  passthrough export refuses this timeline: \(FlagAdvice.message(for: error) ?? error.localizedDescription)\n"
        case .success(nil): return ""
        case .success(let plan?): return plan.warnings.map { "  export will say: \(FlagAdvice.text($0))\n" }.joined()
        }
    }

    /// The segment table: composition range, source range, rate. The steps of a ramp in
    /// `ramps` that are still whole on the track (its step rates in a row, over contiguous
    /// source) are one row: `2-31   2 - 4375/768   2 - 4   ramp 1x→0.25x, 30 steps`.
    /// A table of more than ``summaryRows`` rows shows its first and last half of them and how
    /// many are left out, unless `all`.
    static func table(_ track: CompositionTrack, ramps: [Ramp] = [], all: Bool = false) -> String {
        let segments = track.segments
        // Steps of equal rate are one segment on the track.
        let stepRates = ramps.compactMap { ramp in
            (try? ramp.stepRates()).map { rates in (ramp, rates.enumerated().filter { $0.offset == 0 || rates[$0.offset - 1] != $0.element }.map(\.element)) }
        }
        // First which segments each row covers, then the text of the rows shown only.
        var spans: [(range: Range<Int>, ramp: Ramp?)] = []
        var index = 0
        while index < segments.count {
            if let (ramp, count) = rampRun(in: segments, at: index, stepRates), segments[index].source != nil,
               segments[index + count - 1].source != nil, !segments[index..<(index + count)].contains(where: \.isReversed) {
                spans.append((index..<(index + count), ramp))
                index += count
            } else {
                spans.append((index..<(index + 1), nil))
                index += 1
            }
        }
        var omitted = 0
        if !all, spans.count > summaryRows {
            omitted = spans.count - summaryRows
            spans.removeSubrange((summaryRows / 2)..<(spans.count - summaryRows / 2))
        }
        var rows = [["#", "composition", "source", "rate"]]
        for (range, ramp) in spans {
            let first = segments[range.lowerBound], last = segments[range.upperBound - 1]
            if let ramp, let from = first.source, let to = last.source {
                rows.append([
                    "\(range.lowerBound + 1)-\(range.upperBound)",
                    "\(first.target.start.shown) - \(last.target.end.shown)",
                    "\(from.start.shown) - \(to.end.shown)",
                    "ramp \(ramp.from.shown)x→\(ramp.to.shown)x\(ramp.ease == .smooth ? " smooth" : ""), \(ramp.steps) steps" + (range.count < ramp.steps ? " (\(range.count) of its rates)" : ""),
                ])
            } else {
                rows.append([
                    "\(range.lowerBound + 1)",
                    "\(first.target.start.shown) - \(first.target.end.shown)",
                    first.source.map { first.isReversed ? "\($0.end.shown) - \($0.start.shown)" : "\($0.start.shown) - \($0.end.shown)" }
                        ?? first.heldTime.map { "\($0.shown) (held)" } ?? "(gap)",
                    first.rate.map { first.isReversed ? ($0 == .one ? "reverse" : "reverse \($0.shown)x") : "\($0.shown)x" }
                        ?? (first.isHold ? "freeze" : ""),
                ])
            }
        }
        let widths = (0..<4).map { column in rows.map { $0[column].count }.max() ?? 0 }
        var lines = rows.map { row in
            "  " + row.enumerated().map { column, cell in
                cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "   ").trimmingCharacters(in: .whitespaces)
        }
        if omitted > 0 {
            lines.insert("  … \(plural(omitted, "more row")) (`slowpoke info --all` shows every row)", at: 1 + summaryRows / 2)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The most rows a segment table shows without `--all`.
    static let summaryRows = 40

    /// The ramp whose steps (all of them, or a run of them that a later edit left whole: a
    /// freeze or a cut splits a ramp into parts) start at `segments[index]`, and how many
    /// segments they are.
    private static func rampRun(in segments: [CompositionTrackSegment], at index: Int, _ ramps: [(Ramp, [Rational])]) -> (Ramp, Int)? {
        var best: (Ramp, Int)?
        for (ramp, rates) in ramps where rates.count > 1 {
            for offset in rates.indices where rates[offset] == segments[index].rate {
                var count = 0
                while index + count < segments.count, offset + count < rates.count,
                      segments[index + count].rate == rates[offset + count],
                      let source = segments[index + count].source,
                      count == 0 || segments[index + count - 1].source?.end == source.start {
                    count += 1
                }
                if count > 1, count > (best?.1 ?? 1) { best = (ramp, count) }
            }
        }
        return best
    }

    static func history(_ history: EditHistory) throws -> String {
        guard history.count > 0 else { return "no edits yet\n" }
        let formatter = ISO8601DateFormatter()
        var out = ""
        for (index, entry) in try history.entries.enumerated() {
            let state = index < history.applied ? "  " : "  (undone) "
            out += "\(index + 1).\(state)\(entry.edit.summary)   [\(formatter.string(from: entry.date))]\n"
        }
        return out
    }

    static func describe(_ s: StreamInfo) -> String {
        var parts = ["stream \(s.index): \(s.kind.rawValue)", s.profile.map { "\(s.codec) (\($0))" } ?? s.codec]
        switch s.kind {
        case .video:
            if let sizes = s.sizeChanges { parts.append(VideoSizeChange.summary(sizes)) } else if let w = s.width, let h = s.height { parts.append("\(w)x\(h)") }
            if let pf = s.pixelFormat { parts.append(pf) }
            let colour = [s.colorPrimaries, s.colorTransfer, s.colorSpace].compactMap { $0 }
            if !colour.isEmpty { parts.append("colour " + colour.joined(separator: "/")) }
            if let rot = s.rotation, rot != 0 { parts.append("rotated \(Int(rot))° clockwise") }
            if let sar = s.sampleAspectRatio, sar != .one { parts.append("SAR \(sar)") }
            var rates = rate(s.averageFrameRate)
            if let r = s.realFrameRate, r != s.averageFrameRate { rates += " (r \(r))" }
            parts.append(rates)
            if let mode = s.frameRateMode { parts.append(mode.rawValue == "constant" ? "constant rate" : "variable rate") }
            if let order = s.fieldOrder { parts.append(order == "topFirst" ? "interlaced, top field first" : "interlaced, bottom field first") }
            if let n = s.frameCount { parts.append("\(n) frames") }
        case .audio:
            if let changes = s.formatChanges {
                // The header's format is whichever the prober decoded; the frames say more.
                parts.append(changes[0].formatName)
                parts.append("then " + changes.dropFirst().map { "\($0.formatName) at \($0.time.formatted3) s" }.joined(separator: ", then "))
            } else {
                if let r = s.sampleRate { parts.append("\(r) Hz") }
                if let l = s.channelLayout ?? s.channels.map({ "\($0) channels" }) { parts.append(l) }
            }
            if let f = s.sampleFormat { parts.append(f) }
        default:
            break
        }
        if let b = s.bitRate { parts.append(bitsPerSecond(b)) }
        if let d = s.presentationDuration ?? s.duration { parts.append(d.isNumeric ? "\(d.shown) s" : "\(d)") }
        if let l = s.language, l != "und" { parts.append("language \(l)") }
        return parts.joined(separator: ", ")
    }

    static func rate(_ r: Rational?) -> String {
        guard let r else { return "? fps" }
        // NTSC rates as people say them (29.97, 23.976); `--json` keeps 30000/1001.
        return "\(r.shown) fps"
    }

    static func bytes(_ n: Int64) -> String {
        if n < 10_000 { return "\(n) bytes" }
        if n < 10_000_000 { return String(format: "%.1f kB", Double(n) / 1e3) }
        return String(format: "%.1f MB", Double(n) / 1e6)
    }

    static func bitsPerSecond(_ n: Int64) -> String {
        n < 1_000_000 ? "\(n / 1000) kb/s" : String(format: "%.2f Mb/s", Double(n) / 1e6)
    }

    static func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }

    /// Whether every track has the same segments, so `info` shows one table for all of them.
    static func tracksShareSegments(_ timeline: Composition) -> Bool {
        let tracks = timeline.tracks
        return tracks.count <= 1 || tracks.dropFirst().allSatisfy { $0.segments == tracks[0].segments }
    }

    /// The segments as `info` counts them: those of the one table when the tracks share them
    /// (`7 segments`), else each track's (`7 segments on the video track, 5 on the audio`).
    static func segmentCount(_ timeline: Composition) -> String {
        guard let first = timeline.tracks.first else { return "0 segments" }
        if tracksShareSegments(timeline) { return plural(first.segments.count, "segment") }
        return timeline.tracks.enumerated().map { index, track in
            (index == 0 ? plural(track.segments.count, "segment") : "\(track.segments.count)")
                + " on \(track.mediaType.rawValue) track \(track.trackID)"
        }.joined(separator: ", ")
    }
}

extension StreamPlan.Fate {
    /// The word `info` shows.
    var label: String {
        switch self {
        case .copied: "copied"
        case .retimed: "retimed"
        case .encoded: "encoded"
        case .leftOut: "LEFT OUT"
        }
    }
}

private extension Double {
    /// Seconds with three decimals, as `info` shows a time.
    var formatted3: String { String(format: "%.3f", self) }
}
