import Foundation

/// One user edit, as recorded in the document's history.
public enum Edit: Sendable, Hashable {
    /// `scaleTimeRange(range, toDuration:)` on every track.
    case scale(range: TimeRange, toDuration: Time)
    /// `removeTimeRange(range)` on every track.
    case remove(range: TimeRange)
    /// `insertEmptyTimeRange(range)` on every track.
    case insertGap(range: TimeRange)
    /// A speed ramp: its steps' `scaleTimeRange` calls on every track, as one edit (one line in
    /// the history, one undo). Recorded with its step count, so replaying it gives the same steps.
    case ramp(Ramp)
    /// A freeze frame: the frame on screen at `range.start` is held for `range.duration`
    /// (``Composition/insertHold(at:duration:)``); `range` is where the hold sits afterwards.
    case freeze(range: TimeRange)
    /// iPhone-style slow motion: a ramp in, a slow middle and a ramp out, as one edit.
    case slowMotion(SlowMotion)
    /// `range` played backwards on every track (``Composition/reverseTimeRange(_:)``); the
    /// timeline's length and rates are unchanged, and reversing the range again undoes it.
    case reverse(range: TimeRange)
    /// Several ranges edited at once (`scale --range 1-2 --range 5-6`), as one edit: one line
    /// in the history, one undo. The parts are scales, cuts, reverses or ramps, in timeline
    /// order, their ranges apart and all in the timeline before the edit; they are applied
    /// last to first, so no part moves a range another part names. Made by ``grouped(_:)``.
    case group([Edit])

    /// A scale edit that plays `range` at `rate`, after checking the rate.
    public static func scale(range: TimeRange, rate: Rational) throws(CompositionError) -> Edit {
        try PlaybackRate.validate(rate)
        return .scale(range: range, toDuration: try range.duration.multiplied(by: rate.reciprocal))
    }

    /// Applies the edit to `composition`, then checks that every segment still plays at a
    /// supported rate. The composition is unchanged if it throws.
    public func apply(to composition: inout Composition) throws(CompositionError) {
        let before = composition.duration
        try composition.atomically(from: start) { (edited: inout Composition) throws(CompositionError) in
            try perform(on: &edited)
            if edited.duration > before { try TimelineLimits.checkTimeline(edited.duration) }
            if let changed = try retimed(before: before, after: edited.duration) {
                try Self.checkRates(of: edited, in: changed)
            }
        }
    }

    /// Where the edit starts: it changes nothing on the timeline before this time.
    private var start: Time {
        switch self {
        case .scale(let range, _), .remove(let range), .insertGap(let range), .freeze(let range), .reverse(let range): range.start
        case .ramp(let ramp): ramp.range.start
        case .slowMotion(let s): s.range.start
        case .group(let parts): parts.first?.start ?? .zero
        }
    }

    private func perform(on edited: inout Composition) throws(CompositionError) {
        switch self {
        case .scale(let range, let duration):
            guard duration.isNumeric, duration > .zero else {
                throw .invalidRange("cannot scale \(range) to \(duration); the new duration must be positive")
            }
            try PlaybackRate.validate(range.duration.ratio(to: duration))
            try edited.scaleTimeRange(range, toDuration: duration)
        case .remove(let range):
            try edited.removeTimeRange(range)
        case .insertGap(let range):
            guard !range.isEmpty else { throw .invalidRange("a gap needs a positive duration") }
            try TimelineLimits.checkPause(range.duration, "a gap")
            try edited.insertEmptyTimeRange(range)
        case .ramp(let ramp):
            try ramp.apply(to: &edited)
        case .freeze(let range):
            try TimelineLimits.checkPause(range.duration, "a freeze frame")
            try edited.insertHold(at: range.start, duration: range.duration)
        case .slowMotion(let slowMotion):
            try slowMotion.apply(to: &edited)
        case .reverse(let range):
            try edited.reverseTimeRange(range)
        case .group(let parts):
            for part in parts.reversed() { try part.perform(on: &edited) }
        }
    }

    /// Throws when a segment of `composition` in `changed` plays outside 1/32x to 32x.
    private static func checkRates(of composition: Composition, in changed: TimeRange) throws(CompositionError) {
        for track in composition.tracks {
            guard var index = track.segmentIndex(at: changed.start) else { continue }
            while index < track.segments.count, track.segments[index].target.start < changed.end {
                let segment = track.segments[index]
                index += 1
                guard let rate = segment.rate, rate < PlaybackRate.minimum || rate > PlaybackRate.maximum else { continue }
                throw .rateOutOfRange("this edit would play \(segment.target.shown) at \(rate.readable)x, outside the supported 0.03125x to 32x (scaling a scaled range multiplies the rates)")
            }
        }
    }

    /// Where the edit changed rates on the timeline afterwards: the edited range, stretched by
    /// the change in length. Nil for edits that change no rate (cutting, gaps and holds keep
    /// every segment's rate; merging joins only equal rates), so only the segments there need
    /// checking, not the whole timeline.
    private func retimed(before: Time, after: Time) throws(CompositionError) -> TimeRange? {
        let range: TimeRange
        switch self {
        case .scale(let r, _): range = r
        case .ramp(let ramp): range = ramp.range
        case .slowMotion(let s): range = s.range
        case .group(let parts): range = try Self.hull(of: parts)
        case .remove, .insertGap, .freeze, .reverse: return nil
        }
        return try TimeRange(start: range.start, end: range.end + (after - before))
    }

    /// What `slowpoke history` shows: `scale 3.2-5 to 7.2 s (0.25x)`.
    public var summary: String {
        switch self {
        case .scale(let range, let duration):
            let rate = (try? range.duration.ratio(to: duration)).map { "\($0.shown)x" } ?? "?"
            return "scale \(range.shown) to \(duration.shown) s (\(rate))"
        case .remove(let range):
            return "remove \(range.shown)"
        case .insertGap(let range):
            return "insert a \(range.duration.shown) s gap at \(range.start.shown) s"
        case .ramp(let ramp):
            let length = (try? ramp.duration()).map { " to \($0.shown) s" } ?? ""
            return "ramp \(ramp.range.shown)\(length) (\(ramp.from.shown)x to \(ramp.to.shown)x, \(ramp.ease.rawValue), \(ramp.steps) steps)"
        case .freeze(let range):
            return "freeze the frame at \(range.start.shown) s for \(range.duration.shown) s"
        case .slowMotion(let s):
            let length = (try? s.duration()).map { " to \($0.shown) s" } ?? ""
            return "slow motion \(s.range.shown)\(length) (\(s.rate.shown)x, ramps of \(s.rampLength.shown) s in and out)"
        case .reverse(let range):
            return "reverse \(range.shown)"
        case .group(let parts):
            let said = parts.map(\.summary)
            return said.count < 2 ? said.joined() : said.dropLast().joined(separator: ", ") + " and " + said.last!
        }
    }
}

extension Edit: Codable {
    /// The `op` the edit is recorded under in a document (`"scale"`, `"ramp"`, `"slomo"`, …).
    public var recordedName: String {
        switch self {
        case .scale: "scale"
        case .remove: "remove"
        case .insertGap: "insertGap"
        case .ramp: "ramp"
        case .freeze: "freeze"
        case .slowMotion: "slomo"
        case .reverse: "reverse"
        case .group: "group"
        }
    }

    private enum CodingKeys: String, CodingKey { case op, range, duration, from, to, ease, steps, rate, rampLength, edits }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let op = try c.decode(String.self, forKey: .op)
        let range = try c.decode(TimeRange.self, forKey: .range)
        switch op {
        case "scale": self = .scale(range: range, toDuration: try c.decode(Time.self, forKey: .duration))
        case "remove": self = .remove(range: range)
        case "insertGap": self = .insertGap(range: range)
        case "freeze": self = .freeze(range: range)
        case "reverse": self = .reverse(range: range)
        case "group":
            let parts = try c.decode([Edit].self, forKey: .edits)
            do {
                guard parts.count > 1, case .group(let checked) = try Edit.grouped(parts), checked == parts,
                      try Edit.hull(of: parts) == range else {
                    throw CompositionError.invalidRange("a group of \(parts.count) edits out of order, or with the wrong range")
                }
            } catch let error as CompositionError {
                throw DecodingError.dataCorruptedError(forKey: .edits, in: c, debugDescription: error.description)
            }
            self = .group(parts)
        case "slomo":
            do {
                self = .slowMotion(try SlowMotion(range: range, rate: try c.decode(Rational.self, forKey: .rate),
                                                  rampLength: try c.decode(Time.self, forKey: .rampLength)))
            } catch let error as CompositionError {
                throw DecodingError.dataCorruptedError(forKey: .op, in: c, debugDescription: error.description)
            }
        case "ramp":
            do {
                self = .ramp(try Ramp(range: range, from: try c.decode(Rational.self, forKey: .from),
                                      to: try c.decode(Rational.self, forKey: .to),
                                      ease: try c.decode(RampEase.self, forKey: .ease),
                                      steps: try c.decode(Int.self, forKey: .steps)))
            } catch let error as CompositionError {
                throw DecodingError.dataCorruptedError(forKey: .op, in: c, debugDescription: error.description)
            }
        default:
            throw DecodingError.dataCorruptedError(forKey: .op, in: c, debugDescription: "unknown edit \"\(op)\"")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .scale(let range, let duration):
            try c.encode("scale", forKey: .op)
            try c.encode(range, forKey: .range)
            try c.encode(duration, forKey: .duration)
        case .remove(let range):
            try c.encode("remove", forKey: .op)
            try c.encode(range, forKey: .range)
        case .insertGap(let range):
            try c.encode("insertGap", forKey: .op)
            try c.encode(range, forKey: .range)
        case .ramp(let ramp):
            try c.encode("ramp", forKey: .op)
            try c.encode(ramp.range, forKey: .range)
            try c.encode(ramp.from, forKey: .from)
            try c.encode(ramp.to, forKey: .to)
            try c.encode(ramp.ease, forKey: .ease)
            try c.encode(ramp.steps, forKey: .steps)
        case .freeze(let range):
            try c.encode("freeze", forKey: .op)
            try c.encode(range, forKey: .range)
        case .reverse(let range):
            try c.encode("reverse", forKey: .op)
            try c.encode(range, forKey: .range)
        case .slowMotion(let s):
            try c.encode("slomo", forKey: .op)
            try c.encode(s.range, forKey: .range)
            try c.encode(s.rate, forKey: .rate)
            try c.encode(s.rampLength, forKey: .rampLength)
        case .group(let parts):
            try c.encode("group", forKey: .op)
            try c.encode(try Edit.hull(of: parts), forKey: .range)
            try c.encode(parts, forKey: .edits)
        }
    }
}
