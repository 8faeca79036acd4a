/// A source of media for the composition: the movie's tracks and their time ranges, in source
/// time (0 is the first presented frame of the movie).
public struct Asset: Sendable, Hashable, Codable {
    public struct Track: Sendable, Hashable, Codable {
        public let trackID: Int32
        public let mediaType: MediaType
        public let timeRange: TimeRange

        public init(trackID: Int32, mediaType: MediaType, timeRange: TimeRange) {
            self.trackID = trackID
            self.mediaType = mediaType
            self.timeRange = timeRange
        }
    }

    public let tracks: [Track]

    public init(tracks: [Track]) { self.tracks = tracks }

    /// The union of the tracks' ranges.
    public var timeRange: TimeRange {
        guard let start = tracks.map(\.timeRange.start).min(), let end = tracks.map(\.timeRange.end).max() else {
            return .zero
        }
        return (try? TimeRange(start: start, end: end)) ?? .zero
    }
}

/// One track of a composition: segments whose target ranges tile `[0, duration)` with no gaps
/// or overlaps. Empty segments stand for gaps in the media.
///
/// The edits follow AVMutableCompositionTrack. Ranges that cross segment boundaries split the
/// segments they cut; adjacent segments that play contiguous source at the same rate (or are both
/// gaps) are merged again, so a timeline always has its simplest form and undoing an edit by its
/// inverse restores the segments exactly.
public struct CompositionTrack: Sendable, Hashable, Codable {
    public let trackID: Int32
    public let mediaType: MediaType
    public internal(set) var segments: [CompositionTrackSegment]

    public init(trackID: Int32, mediaType: MediaType, segments: [CompositionTrackSegment] = []) throws(CompositionError) {
        self.trackID = trackID
        self.mediaType = mediaType
        self.segments = segments
        try validateTiling()
    }

    private enum CodingKeys: String, CodingKey { case trackID = "id", mediaType, segments }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        trackID = try c.decode(Int32.self, forKey: .trackID)
        mediaType = try c.decode(MediaType.self, forKey: .mediaType)
        segments = try c.decode([CompositionTrackSegment].self, forKey: .segments)
        do { try validateTiling() } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    /// Target ranges must start at 0 and meet end to end.
    private func validateTiling() throws(CompositionError) {
        var expected = Time.zero
        for (index, segment) in segments.enumerated() {
            guard segment.target.start == expected else {
                throw .invalidRange("segment \(index + 1) of track \(trackID) starts at \(segment.target.start), not \(expected); segments must tile the timeline")
            }
            expected = segment.target.end
        }
    }

    /// The end of the last segment.
    public var duration: Time { segments.last?.target.end ?? .zero }

    public var timeRange: TimeRange { (try? TimeRange(start: .zero, duration: duration)) ?? .zero }

    // MARK: Queries

    /// The index of the segment whose target range contains `t`, by binary search; nil outside
    /// `[0, duration)`.
    public func segmentIndex(at t: Time) -> Int? {
        guard t.isNumeric, t >= .zero, t < duration else { return nil }
        var low = 0, high = segments.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if segments[mid].target.start <= t { low = mid } else { high = mid - 1 }
        }
        return low
    }

    /// What plays at composition time `t`: the segment, the source time and the rate. Nil
    /// outside the track.
    public func presentation(at t: Time) throws(CompositionError) -> Presentation? {
        guard let index = segmentIndex(at: t) else { return nil }
        let segment = segments[index]
        return Presentation(segmentIndex: index, segment: segment, sourceTime: try segment.sourceTime(at: t))
    }

    /// ``presentation(at:)`` with the source time rounded to the nearest tick of `timescale`,
    /// for exports where the exact source time does not fit (see ``CompositionError/overflow(_:)``).
    public func approximatePresentation(at t: Time, timescale: Int32) -> Presentation? {
        guard let index = segmentIndex(at: t) else { return nil }
        let segment = segments[index]
        var sourceTime = segment.heldTime
        if let source = segment.source, let rate = segment.rate {
            let played = (t.seconds - segment.target.start.seconds) * rate.doubleValue
            let seconds = segment.isReversed ? source.end.seconds - played : source.start.seconds + played
            sourceTime = Time(value: Int64((seconds * Double(timescale)).rounded()), timescale: timescale)
        }
        return Presentation(segmentIndex: index, segment: segment, sourceTime: sourceTime)
    }

    /// Every composition time at which source time `s` plays, in order. Empty when `s` was
    /// removed; more than one when its range was inserted more than once.
    public func compositionTimes(forSourceTime s: Time) throws(CompositionError) -> [Time] {
        var times: [Time] = []
        for segment in segments {
            guard let source = segment.source, source.contains(s) else { continue }
            if let t = try segment.compositionTime(forSourceTime: s) { times.append(t) }
        }
        return times
    }

    /// The first composition time at which source time `s` plays, rounded to the nearest tick of
    /// `timescale`: for exports that must round because the exact time does not fit (see
    /// ``CompositionError/overflow(_:)``). Nil when no segment plays `s`.
    public func approximateCompositionTime(forSourceTime s: Time, timescale: Int32) -> Time? {
        for segment in segments {
            guard let source = segment.source, let rate = segment.rate, source.contains(s) else { continue }
            let played = segment.isReversed ? source.end.seconds - s.seconds : s.seconds - source.start.seconds
            let seconds = segment.target.start.seconds + played / rate.doubleValue
            return Time(value: Int64((seconds * Double(timescale)).rounded()), timescale: timescale)
        }
        return nil
    }

    // MARK: Edits (AVMutableCompositionTrack)

    /// Inserts `sourceRange` of `sourceTrack` at composition time `at`, at its natural rate (1).
    /// Content at or after `at` moves later by `sourceRange.duration`. An empty range does nothing.
    public mutating func insertTimeRange(_ sourceRange: TimeRange, of sourceTrack: Asset.Track, at t: Time) throws(CompositionError) {
        guard sourceTrack.mediaType == mediaType else {
            throw .noSuchTrack("cannot insert \(sourceTrack.mediaType) into \(mediaType) track \(trackID)")
        }
        guard sourceTrack.timeRange.contains(sourceRange) else {
            throw .beyondTimeline("source range \(sourceRange) is outside the source track's \(sourceTrack.timeRange)")
        }
        try checkInsertionPoint(t)
        guard !sourceRange.isEmpty else { return }
        try replace(insertingAt: t, piece: Piece(source: sourceRange, duration: sourceRange.duration))
    }

    /// Inserts a gap of `range.duration` at `range.start`. Later content moves later.
    public mutating func insertEmptyTimeRange(_ range: TimeRange) throws(CompositionError) {
        try checkInsertionPoint(range.start)
        guard !range.isEmpty else { return }
        try replace(insertingAt: range.start, piece: Piece(source: nil, duration: range.duration))
    }

    /// Holds the frame on screen at composition time `t` for `duration` (a freeze frame): a
    /// hold of the source time playing at `t` is inserted there, and later content moves later
    /// by `duration`. Inside a hold, the hold grows. AVFoundation gets the same picture by
    /// scaling a one-frame range; a hold keeps the frame's own time and has no rate.
    ///
    ///     before:  [0 ==== 2 ==== 4)                 freeze at 2 for 1.5
    ///     after:   [0 ==== 2)[hold 2: 2 ━━ 3.5)[3.5 ==== 5.5)
    public mutating func insertHold(at t: Time, duration: Time) throws(CompositionError) {
        guard duration.isNumeric, duration > .zero else {
            throw .invalidRange("a freeze needs a positive duration, not \(duration)")
        }
        guard let presentation = try presentation(at: t) else {
            throw .beyondTimeline("there is no frame at \(t): the track runs from 0 to \(duration.readable), and a freeze holds a frame that plays (use a time before the end)")
        }
        guard let held = presentation.sourceTime else {
            throw .beyondTimeline("the timeline has a gap at \(t), so there is no frame to hold there")
        }
        try replace(insertingAt: t, piece: Piece(source: nil, duration: duration, held: held))
    }

    /// Deletes the content in `range`. Later content moves earlier by `range.duration`. The
    /// track remains even when it becomes empty.
    public mutating func removeTimeRange(_ range: TimeRange) throws(CompositionError) {
        try checkWithin(range)
        guard !range.isEmpty else { return }
        try splice(range, with: [])
    }

    /// Changes the duration of `range` to `newDuration`. Each segment inside it, split at the
    /// range's edges, has its target duration multiplied by `newDuration / range.duration` and its
    /// rate divided by the same factor. Later content shifts by `newDuration - range.duration`.
    public mutating func scaleTimeRange(_ range: TimeRange, toDuration newDuration: Time) throws(CompositionError) {
        try checkWithin(range)
        guard !range.isEmpty else { throw .invalidRange("range \(range) is empty; there is nothing to scale") }
        guard newDuration.isNumeric, newDuration > .zero else {
            throw .invalidRange("cannot scale \(range) to a duration of \(newDuration); it must be positive")
        }
        try scaleSteps([(range, try newDuration.ratio(to: range.duration))])
    }

    // MARK: Internals

    /// A segment before its place on the timeline is known: a source (nil for a gap or a
    /// hold), a target duration, and for a hold the held source time.
    struct Piece {
        var source: TimeRange?
        var duration: Time
        var held: Time? = nil
        /// Media played backwards.
        var reversed = false
    }

    private func checkInsertionPoint(_ t: Time) throws(CompositionError) {
        guard t.isNumeric, t >= .zero, t <= duration else {
            throw .beyondTimeline("cannot insert at \(t): it is outside the track's 0-\(duration.readable)")
        }
    }

    private func checkWithin(_ range: TimeRange) throws(CompositionError) {
        guard range.start >= .zero, range.end <= duration else {
            throw .beyondTimeline("range \(range) goes beyond the track's 0-\(duration.readable)")
        }
    }

    private mutating func replace(insertingAt t: Time, piece: Piece) throws(CompositionError) {
        try splice(TimeRange(start: t, duration: .zero), with: [piece])
    }

    /// The segments' content within `range`, cut exactly at its edges.
    func pieces(in range: TimeRange) throws(CompositionError) -> [Piece] {
        var result: [Piece] = []
        guard !range.isEmpty else { return result }
        let first = segmentIndex(at: range.start) ?? segments.count
        for segment in segments[first...] {
            guard segment.target.start < range.end else { break }
            guard let clipped = try segment.target.clamped(to: range) else { continue }
            if let source = segment.source, let rate = segment.rate {
                if clipped == segment.target {
                    result.append(Piece(source: source, duration: clipped.duration, reversed: segment.isReversed))
                } else {
                    // Played backwards, the target's start plays the source's end.
                    let skipped = segment.isReversed ? try segment.target.end - clipped.end : try clipped.start - segment.target.start
                    let sourceStart = try source.start + skipped.multiplied(by: rate)
                    let sourceDuration = try clipped.duration.multiplied(by: rate)
                    result.append(Piece(source: try TimeRange(start: sourceStart, duration: sourceDuration),
                                        duration: clipped.duration, reversed: segment.isReversed))
                }
            } else {
                result.append(Piece(source: nil, duration: clipped.duration, held: segment.heldTime))
            }
        }
        return result
    }

    /// Lays pieces end to end from `start`, merging neighbours that continue each other.
    static func build(_ pieces: [Piece], from start: Time = .zero) throws(CompositionError) -> [CompositionTrackSegment] {
        var merged: [Piece] = []
        for piece in pieces where piece.duration > .zero {
            if let last = merged.last, try continues(last, with: piece) {
                let source = try last.source.map { s throws(CompositionError) in
                    last.reversed ? try TimeRange(start: piece.source!.start, end: s.end) : try TimeRange(start: s.start, end: piece.source!.end)
                }
                merged[merged.count - 1] = Piece(source: source, duration: try last.duration + piece.duration,
                                                 held: last.held, reversed: last.reversed)
            } else {
                merged.append(piece)
            }
        }
        var segments: [CompositionTrackSegment] = []
        segments.reserveCapacity(merged.count)
        var start = start
        for piece in merged {
            let target = try TimeRange(start: start, duration: piece.duration)
            if let source = piece.source {
                segments.append(try CompositionTrackSegment(source: source, target: target, reversed: piece.reversed))
            } else if let held = piece.held {
                segments.append(try CompositionTrackSegment(holding: held, target: target))
            } else {
                segments.append(try CompositionTrackSegment(emptyTarget: target))
            }
            start = target.end
        }
        return segments
    }

    static func continues(_ a: Piece, with b: Piece) throws(CompositionError) -> Bool {
        switch (a.source, b.source) {
        case (nil, nil):
            // Two gaps, or two holds of the same frame.
            return a.held == b.held
        case let (sa?, sb?):
            // Forwards, b's source follows a's; backwards, it comes before it.
            guard a.reversed == b.reversed, a.reversed ? sb.end == sa.start : sa.end == sb.start else { return false }
            return try sa.duration.ratio(to: a.duration) == sb.duration.ratio(to: b.duration)
        default:
            return false
        }
    }
}
