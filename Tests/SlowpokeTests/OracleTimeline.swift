import Foundation
import TestSupport

/// A timeline as `slowpoke info --json` states it (docs/info-json.md), and what the oracle
/// predicts from it alone: which source frames a passthrough export shows, where the beeps go.
/// Times are read as exact fractions and kept as doubles; a frame start and a segment edge are
/// the same time within ``epsilon``.
struct OracleTimeline {
    static let epsilon = 1e-9

    struct Segment: Equatable {
        var targetStart: Double
        var targetDuration: Double
        var sourceStart: Double?
        var sourceDuration: Double?
        var rate: Double?
        var reverse: Bool
        var hold: Double?
        var targetEnd: Double { targetStart + targetDuration }
        var sourceEnd: Double? { sourceStart.flatMap { s in sourceDuration.map { s + $0 } } }
        var isGap: Bool { sourceStart == nil && hold == nil }
    }

    struct Cuts {
        var reencodedFrames: Int
        var copiedFrames: Int
        var keyframeCutsBecause: String?
    }

    let json: [String: Any]
    let duration: Double
    let durationText: String
    let video: [Segment]
    let audio: [Segment]
    let cuts: Cuts?
    /// The default export's length after fitting to whole audio frames (nil when nothing moves).
    let fittedDuration: Double?
    /// Half an audio frame of the fit, seconds: how far the default export may move a segment.
    let fitSlack: Double
    /// Segments the fit moves.
    let segmentsMoved: Int
    let editsApplied: Int
    let editsUndone: Int

    init(json text: String) throws {
        guard let json = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw OracleFailure("info --json printed no object: \(text.prefix(200))")
        }
        self.json = json
        durationText = json["duration"] as? String ?? "?"
        duration = try Self.time(json["duration"])
        let tracks = json["tracks"] as? [[String: Any]] ?? []
        func segments(_ kind: String) throws -> [Segment] {
            guard let track = tracks.first(where: { $0["mediaType"] as? String == kind }) else { return [] }
            return try (track["segments"] as? [[String: Any]] ?? []).map(Self.segment)
        }
        video = try segments("video")
        audio = try segments("audio")
        if let c = json["exportCuts"] as? [String: Any] {
            cuts = Cuts(reencodedFrames: c["reencodedFrames"] as? Int ?? -1, copiedFrames: c["copiedFrames"] as? Int ?? -1,
                        keyframeCutsBecause: c["keyframeCutsBecause"] as? String)
        } else {
            cuts = nil
        }
        let fit = json["exportFit"] as? [String: Any]
        fittedDuration = try fit.map { try Self.time($0["fittedDuration"]) }
        if let fit, let samples = fit["samplesPerFrame"] as? Int, let rate = fit["sampleRate"] as? Int, rate > 0 {
            fitSlack = Double(samples) / Double(rate) / 2
        } else {
            fitSlack = 0
        }
        segmentsMoved = fit?["segmentsMoved"] as? Int ?? 0
        editsApplied = json["editsApplied"] as? Int ?? -1
        editsUndone = json["editsUndone"] as? Int ?? -1
    }

    /// An exact time string (`"3.2"`, `"7/3"`) as seconds.
    static func time(_ value: Any?) throws -> Double {
        guard let text = value as? String else { throw OracleFailure("a time that is not a string: \(String(describing: value))") }
        let parts = text.split(separator: "/")
        if parts.count == 2, let n = Double(parts[0]), let d = Double(parts[1]), d != 0 { return n / d }
        guard parts.count == 1, let seconds = Double(text) else { throw OracleFailure("not a time: \(text)") }
        return seconds
    }

    static func segment(_ s: [String: Any]) throws -> Segment {
        let target = s["target"] as? [String: Any] ?? [:]
        let source = s["source"] as? [String: Any]
        return Segment(targetStart: try time(target["start"]), targetDuration: try time(target["duration"]),
                       sourceStart: try source.map { try time($0["start"]) }, sourceDuration: try source.map { try time($0["duration"]) },
                       rate: try (s["rate"] as? String).map { try time($0) }, reverse: s["reverse"] as? Bool ?? false,
                       hold: try s["hold"].map { try time($0) })
    }

    var hasHold: Bool { video.contains { $0.hold != nil } }
    var hasReverse: Bool { video.contains { $0.reverse } }
    var hasGap: Bool { video.contains { $0.isGap } }

    /// The source frames (indices into `times`, each frame's start) a frame-exact passthrough
    /// export shows, in order: every frame whose start lies in a segment's source range, in
    /// source order, backwards in a reversed segment. A hold shows the frame on screen at its
    /// time, which its neighbour already shows; a gap holds the frame before it (docs/export.md).
    /// The default export's frames as its plan lists them (`info --json --frames`), as source
    /// frame indices into `times`; nil when `info` made no plan (a timeline that plays the whole
    /// video forwards, in order).
    func plannedFrames(times: [Double]) -> [Int]? {
        guard let frames = (json["exportPlan"] as? [String: Any])?["frames"] as? [[String: Any]] else { return nil }
        return frames.map { frame in
            guard let source = try? Self.time(frame["source"]) else { return Self.black }
            return times.indices.min { abs(times[$0] - source) < abs(times[$1] - source) } ?? Self.black
        }
    }

    /// A black picture (a gap rendered as a still) among predicted frames, which are otherwise
    /// source frame indices.
    static let black = -1

    /// With `stills` (a frame-exact export of a timeline that reverses or has a gap, where
    /// passthrough re-encodes freezes and gaps, docs/export.md), a freeze is one picture, its
    /// held frame (the last starting at or before the held time), and a gap one ``black``
    /// picture; pieces of one freeze or gap that follow each other on the timeline are one.
    func passthroughFrames(times: [Double], stills: Bool = false) -> [Int] {
        var frames: [Int] = []
        var lastStill: Double?? = nil
        for segment in video {
            if stills, segment.isGap || segment.hold != nil {
                let key: Double? = segment.hold
                if let last = lastStill, last == key { continue }
                lastStill = .some(key)
                frames.append(key.map { held in times.lastIndex { $0 <= held + Self.epsilon } ?? 0 } ?? Self.black)
                continue
            }
            lastStill = nil
            guard let start = segment.sourceStart, let end = segment.sourceEnd else { continue }
            let inside = times.indices.filter { times[$0] >= start - Self.epsilon && times[$0] < end - Self.epsilon }
            frames += segment.reverse ? inside.reversed() : inside
        }
        return frames
    }

    /// The source frame on screen at the timeline's start (index into `times`): the last one
    /// starting at or before the first segment's source start; nil where that segment is a
    /// gap, a hold or reversed.
    func firstShownFrame(times: [Double]) -> Int? {
        guard let first = video.first, first.hold == nil, !first.reverse, let start = first.sourceStart else { return nil }
        return times.lastIndex { $0 <= start + Self.epsilon }
    }

    /// Frames of a constant-rate export of `length` seconds at `fps`: round(length × fps), halves up.
    static func constantRateFrames(length: Double, fps: Int) -> Int {
        Int((length * Double(fps) + 0.5 + 1e-9).rounded(.down))
    }

    /// Where each beep (20 ms) starting at source time `beeps[i]` starts on the timeline, with the tolerance,
    /// for each audio segment that plays it forward whole, at least 50 ms from the segment's
    /// edges (crossfades): 1 ms at 1x, 2 ms in a stretched segment.
    func expectedBeeps(_ beeps: [Double]) -> [(source: Double, at: Double, tolerance: Double)] {
        var out: [(Double, Double, Double)] = []
        for beep in beeps {
            for segment in audio where !segment.reverse {
                guard let start = segment.sourceStart, let end = segment.sourceEnd, let rate = segment.rate, rate > 0 else { continue }
                guard beep >= start + 0.05 * rate, beep + 0.02 <= end - 0.05 * rate else { continue }
                let at = segment.targetStart + (beep - start) / rate
                out.append((beep, at, abs(rate - 1) < 1e-9 ? 0.001 : 0.002))
            }
        }
        return out
    }

    /// Every place the timeline may make an onset, with how far from it one may be heard: a
    /// beep's start played forward, a beep's end played backwards (3 ms at 1x, 20 ms at other
    /// rates, where the stretcher smears the attack), and a segment's start that plays from
    /// inside a beep.
    func possibleOnsets(_ beeps: [Double]) -> [(at: Double, tolerance: Double)] {
        var out: [(Double, Double)] = []
        for segment in audio {
            guard let start = segment.sourceStart, let end = segment.sourceEnd, let rate = segment.rate, rate != 0 else { continue }
            let tolerance = abs(abs(rate) - 1) < 1e-9 ? 0.003 : 0.02
            for beep in beeps {
                let entry = segment.reverse ? end : start
                if entry > beep - 0.005 && entry < beep + 0.025 { out.append((segment.targetStart, tolerance)) }
                let edge = segment.reverse ? beep + 0.02 : beep
                guard edge >= start - 0.005, edge <= end + 0.005 else { continue }
                let at = segment.reverse ? segment.targetStart + (end - edge) / abs(rate) : segment.targetStart + (edge - start) / rate
                out.append((at, tolerance))
            }
        }
        return out
    }

    /// The segments as comparable rows (for the OTIO round trip), times in microseconds.
    var rows: [String] {
        func us(_ t: Double?) -> String { t.map { String(Int64(($0 * 1e6).rounded())) } ?? "-" }
        func rate(_ r: Double?) -> String { r.map { String(format: "%.6f", $0) } ?? "-" }
        return [("video", video), ("audio", audio)].flatMap { kind, segments in
            segments.map { s in
                "\(kind) \(us(s.targetStart))+\(us(s.targetDuration)) src \(us(s.sourceStart))+\(us(s.sourceDuration)) rate \(rate(s.rate))\(s.reverse ? " rev" : "")\(s.hold.map { " hold \(us($0))" } ?? "")"
            }
        }
    }
}
