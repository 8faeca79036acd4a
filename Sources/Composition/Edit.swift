import Foundation

/// The rates slowpoke's audio and video pipelines support, as AVAudioTimePitchAlgorithm does:
/// 1/32x to 32x.
public enum PlaybackRate {
    public static let minimum = try! Rational(1, 32)
    public static let maximum = try! Rational(32)

    /// Throws a message a user can act on when `rate` is not in `[1/32, 32]`.
    public static func validate(_ rate: Rational) throws(CompositionError) {
        if rate.isZero {
            throw .rateOutOfRange("rate 0 would stop time; use a rate from 1/32 (slowest) to 32 (fastest)")
        }
        if rate.isNegative {
            throw .rateOutOfRange("rate \(rate.readable) is negative and slowpoke does not play backwards; use a rate from 1/32 to 32")
        }
        if rate < minimum || rate > maximum {
            throw .rateOutOfRange("rate \(rate.readable) is outside the supported 1/32 to 32")
        }
    }
}

/// One user edit, as recorded in the document's history.
public enum Edit: Sendable, Hashable {
    /// `scaleTimeRange(range, toDuration:)` on every track.
    case scale(range: TimeRange, toDuration: Time)
    /// `removeTimeRange(range)` on every track.
    case remove(range: TimeRange)
    /// `insertEmptyTimeRange(range)` on every track.
    case insertGap(range: TimeRange)

    /// A scale edit that plays `range` at `rate`, after checking the rate.
    public static func scale(range: TimeRange, rate: Rational) throws(CompositionError) -> Edit {
        try PlaybackRate.validate(rate)
        return .scale(range: range, toDuration: try range.duration.multiplied(by: rate.reciprocal))
    }

    /// Applies the edit to `composition`, then checks that every segment still plays at a
    /// supported rate. The composition is unchanged if it throws.
    public func apply(to composition: inout Composition) throws(CompositionError) {
        var edited = composition
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
            try edited.insertEmptyTimeRange(range)
        }
        for track in edited.tracks {
            for segment in track.segments {
                guard let rate = segment.rate, rate < PlaybackRate.minimum || rate > PlaybackRate.maximum else { continue }
                throw .rateOutOfRange("this edit would play \(segment.target) at \(rate.readable)x, outside the supported 1/32x to 32x (scaling a scaled range multiplies the rates)")
            }
        }
        composition = edited
    }

    /// What `slowpoke history` shows: `scale 3.2-5 to 7.2 s (0.25x)`.
    public var summary: String {
        switch self {
        case .scale(let range, let duration):
            let rate = (try? range.duration.ratio(to: duration)).map { "\($0.readable)x" } ?? "?"
            return "scale \(range) to \(duration) (\(rate))"
        case .remove(let range):
            return "remove \(range)"
        case .insertGap(let range):
            return "insert a \(range.duration) gap at \(range.start)"
        }
    }
}

extension Edit: Codable {
    private enum CodingKeys: String, CodingKey { case op, range, duration }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let op = try c.decode(String.self, forKey: .op)
        let range = try c.decode(TimeRange.self, forKey: .range)
        switch op {
        case "scale": self = .scale(range: range, toDuration: try c.decode(Time.self, forKey: .duration))
        case "remove": self = .remove(range: range)
        case "insertGap": self = .insertGap(range: range)
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
        }
    }
}

/// The document's undo and redo history: every edit ever made, and how many of them are
/// applied. Undo lowers `applied`; a new edit drops the undone ones after it.
public struct EditHistory: Sendable, Hashable, Codable {
    public struct Entry: Sendable, Hashable, Codable {
        public let edit: Edit
        public let date: Date
    }

    public private(set) var entries: [Entry] = []
    public private(set) var applied: Int = 0

    public init() {}

    public var canUndo: Bool { applied > 0 }
    public var canRedo: Bool { applied < entries.count }
    public var appliedEdits: [Edit] { entries[..<applied].map(\.edit) }

    mutating func record(_ edit: Edit, date: Date) {
        entries.removeSubrange(applied...)
        entries.append(Entry(edit: edit, date: date))
        applied += 1
    }

    mutating func stepBack() throws(CompositionError) -> Edit {
        guard canUndo else { throw .nothingToUndo }
        applied -= 1
        return entries[applied].edit
    }

    mutating func stepForward() throws(CompositionError) -> Edit {
        guard canRedo else { throw .nothingToRedo }
        applied += 1
        return entries[applied - 1].edit
    }

    private enum CodingKeys: String, CodingKey { case entries, applied }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        entries = try c.decode([Entry].self, forKey: .entries)
        applied = try c.decode(Int.self, forKey: .applied)
        guard (0...entries.count).contains(applied) else {
            throw DecodingError.dataCorruptedError(forKey: .applied, in: c,
                debugDescription: "history says \(applied) edits are applied but holds \(entries.count)")
        }
    }
}
