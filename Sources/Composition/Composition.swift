/// A mutable composition: tracks of segments, edited as AVMutableComposition is.
///
/// Each composition-level edit applies to every track, so audio and video stay aligned; it
/// either succeeds on all tracks or changes nothing. Use ``editTrack(_:_:)`` for the track-level
/// calls.
public struct Composition: Sendable, Hashable, Codable {
    public private(set) var tracks: [CompositionTrack]

    public init(tracks: [CompositionTrack] = []) {
        self.tracks = tracks
    }

    /// The whole asset at its natural rate: `insertTimeRange(asset.timeRange, of: asset, at: 0)`.
    public init(asset: Asset) throws(CompositionError) {
        self.init()
        try insertTimeRange(asset.timeRange, of: asset, at: .zero)
    }

    /// The end of the longest track.
    public var duration: Time { tracks.map(\.duration).max() ?? .zero }

    /// From 0 to ``duration``.
    public var timeRange: TimeRange {
        get throws(CompositionError) { try TimeRange(start: .zero, duration: duration) }
    }

    public func track(withID id: Int32) -> CompositionTrack? { tracks.first { $0.trackID == id } }

    public func tracks(withMediaType type: MediaType) -> [CompositionTrack] { tracks.filter { $0.mediaType == type } }

    /// Adds an empty track and returns it. Throws if the ID is taken.
    @discardableResult
    public mutating func addTrack(mediaType: MediaType, trackID: Int32) throws(CompositionError) -> CompositionTrack {
        guard track(withID: trackID) == nil else { throw .duplicateTrack("track \(trackID) already exists") }
        let track = try CompositionTrack(trackID: trackID, mediaType: mediaType)
        tracks.append(track)
        return track
    }

    /// Applies a track-level edit to one track. The composition is unchanged if `body` throws.
    public mutating func editTrack(_ id: Int32, _ body: (inout CompositionTrack) throws(CompositionError) -> Void) throws(CompositionError) {
        guard let index = tracks.firstIndex(where: { $0.trackID == id }) else {
            throw .noSuchTrack("the composition has no track \(id)")
        }
        var track = tracks[index]
        try body(&track)
        tracks[index] = track
    }

    // MARK: Composition-level edits

    /// Inserts `range` of every track of `asset` at `t`, at natural rate. Each asset track goes to
    /// the composition track with the same ID, which is created if missing. Composition tracks
    /// that the asset does not feed get a gap of the same length, so everything after `t` moves
    /// later by `range.duration` on every track.
    public mutating func insertTimeRange(_ range: TimeRange, of asset: Asset, at t: Time) throws(CompositionError) {
        guard t.isNumeric, t >= .zero, t <= duration else {
            throw .beyondTimeline("cannot insert at \(t): the timeline runs from 0 to \(duration.readable)")
        }
        guard asset.timeRange.contains(range) else {
            throw .beyondTimeline("range \(range) is outside the source's \(asset.timeRange)")
        }
        guard !range.isEmpty else { return }
        var edited = self
        for assetTrack in asset.tracks where edited.track(withID: assetTrack.trackID) == nil {
            try edited.addTrack(mediaType: assetTrack.mediaType, trackID: assetTrack.trackID)
        }
        for index in edited.tracks.indices {
            var track = edited.tracks[index]
            if track.duration < t {
                // A shorter track is padded to the insertion point so the new media lines up.
                try track.insertEmptyTimeRange(TimeRange(start: track.duration, end: t))
            }
            if let assetTrack = asset.tracks.first(where: { $0.trackID == track.trackID }),
               let clipped = try range.clamped(to: assetTrack.timeRange) {
                // Media the source track lacks (a short audio track) becomes a gap.
                let lead = try clipped.start - range.start
                let tail = try range.end - clipped.end
                if tail > .zero { try track.insertEmptyTimeRange(TimeRange(start: t, duration: tail)) }
                try track.insertTimeRange(clipped, of: assetTrack, at: t)
                if lead > .zero { try track.insertEmptyTimeRange(TimeRange(start: t, duration: lead)) }
            } else {
                try track.insertEmptyTimeRange(TimeRange(start: t, duration: range.duration))
            }
            edited.tracks[index] = track
        }
        self = edited
    }

    /// Inserts a gap of `range.duration` at `range.start` on every track that reaches it.
    public mutating func insertEmptyTimeRange(_ range: TimeRange) throws(CompositionError) {
        guard range.start >= .zero, range.start <= duration else {
            throw .beyondTimeline("cannot insert a gap at \(range.start): the timeline runs from 0 to \(duration.readable)")
        }
        guard !range.isEmpty else { return }
        try applyToEveryTrack(from: range.start) { track throws(CompositionError) in
            if range.start <= track.duration { try track.insertEmptyTimeRange(range) }
        }
    }

    /// Holds the picture on screen at `t` for `duration` (a freeze frame): every video track
    /// gets a hold of the frame it shows at `t` (see ``CompositionTrack/insertHold(at:duration:)``),
    /// every other track that reaches `t` a gap of the same length (silence), so later content
    /// moves later by `duration` everywhere.
    public mutating func insertHold(at t: Time, duration: Time) throws(CompositionError) {
        guard t.isNumeric, t >= .zero, t < self.duration else {
            throw .beyondTimeline("cannot freeze at \(t): the timeline runs from 0 to \(self.duration.readable), and a freeze holds a frame shown before the end")
        }
        guard duration.isNumeric, duration > .zero else {
            throw .invalidRange("a freeze needs a positive duration, not \(duration)")
        }
        guard tracks.contains(where: { $0.mediaType == .video }) else {
            throw .noSuchTrack("the timeline has no video track, so there is no frame to hold")
        }
        try applyToEveryTrack(from: t) { track throws(CompositionError) in
            if track.mediaType == .video {
                try track.insertHold(at: t, duration: duration)
            } else if t <= track.duration {
                try track.insertEmptyTimeRange(TimeRange(start: t, duration: duration))
            }
        }
    }

    /// Deletes `range` from every track. Later content moves earlier.
    public mutating func removeTimeRange(_ range: TimeRange) throws(CompositionError) {
        try checkEditable(range, verb: "remove")
        try applyToEveryTrack(from: range.start) { track throws(CompositionError) in
            if let part = try range.clamped(to: track.timeRange) { try track.removeTimeRange(part) }
        }
    }

    /// Changes the duration of `range` to `newDuration` on every track; see
    /// ``CompositionTrack/scaleTimeRange(_:toDuration:)``.
    public mutating func scaleTimeRange(_ range: TimeRange, toDuration newDuration: Time) throws(CompositionError) {
        try checkEditable(range, verb: "scale")
        guard newDuration.isNumeric, newDuration > .zero else {
            throw .invalidRange("cannot scale \(range) to a duration of \(newDuration); it must be positive")
        }
        let factor = try newDuration.ratio(to: range.duration)
        try applyToEveryTrack(from: range.start) { track throws(CompositionError) in
            guard let part = try range.clamped(to: track.timeRange) else { return }
            try track.scaleTimeRange(part, toDuration: part.duration.multiplied(by: factor))
        }
    }

    /// Plays `range` backwards on every track; see ``CompositionTrack/reverseTimeRange(_:)``.
    /// A track that ends inside the range is first padded to its end with a gap, so that what
    /// it holds there plays under the same frames as before, backwards, and stays in sync.
    public mutating func reverseTimeRange(_ range: TimeRange) throws(CompositionError) {
        try checkEditable(range, verb: "reverse")
        try applyToEveryTrack(from: range.start) { track throws(CompositionError) in
            guard track.duration > range.start else { return }
            if track.duration < range.end {
                try track.insertEmptyTimeRange(TimeRange(start: track.duration, end: range.end))
            }
            try track.reverseTimeRange(range)
        }
    }

    /// Scales consecutive steps on every track (ranges that tile one stretch of the timeline,
    /// in order, each with its new duration) in one splice per track: exactly what
    /// ``scaleTimeRange(_:toDuration:)`` on each step, last to first, gives, in time
    /// proportional to the steps and the segments they cover (a ramp of 10,000 steps).
    mutating func scaleSteps(_ steps: [(range: TimeRange, toDuration: Time)]) throws(CompositionError) {
        var factors: [Rational] = []
        factors.reserveCapacity(steps.count)
        for step in steps {
            try checkEditable(step.range, verb: "scale")
            guard step.toDuration.isNumeric, step.toDuration > .zero else {
                throw .invalidRange("cannot scale \(step.range) to a duration of \(step.toDuration); it must be positive")
            }
            factors.append(try step.toDuration.ratio(to: step.range.duration))
        }
        guard let first = steps.first else { return }
        try applyToEveryTrack(from: first.range.start) { track throws(CompositionError) in
            // Steps after a track's end leave it alone, so each clamps to the track as it is now.
            var parts: [(range: TimeRange, factor: Rational)] = []
            for (step, factor) in zip(steps, factors) {
                guard let part = try step.range.clamped(to: track.timeRange) else { continue }
                parts.append((part, try part.duration.multiplied(by: factor).ratio(to: part.duration)))
            }
            try track.scaleSteps(parts)
        }
    }

    private func checkEditable(_ range: TimeRange, verb: String) throws(CompositionError) {
        guard !range.isEmpty else { throw .invalidRange("range \(range) is empty; there is nothing to \(verb)") }
        guard range.start >= .zero, range.end <= duration else {
            throw .beyondTimeline("range \(range) goes beyond the end of the timeline (\(duration))")
        }
    }

    /// Applies `body` to every track, all or nothing (see ``atomically(from:_:)``).
    private mutating func applyToEveryTrack(from start: Time, _ body: (inout CompositionTrack) throws(CompositionError) -> Void) throws(CompositionError) {
        try atomically(from: start) { (edited: inout Composition) throws(CompositionError) in
            for index in edited.tracks.indices { try body(&edited.tracks[index]) }
        }
    }

    /// Runs `body`, an edit that changes nothing before time `start`, on the composition in
    /// place, all or nothing: what each track holds from `start` on is kept first, and put back
    /// if `body` throws. Editing a copy instead (and dropping it on failure) made every edit
    /// copy every segment of every track: an import of 3000 clips spent most of its time
    /// there. Edits rebuild the segment holding their start together with the one before it,
    /// so that is where the kept part begins.
    public mutating func atomically(from start: Time, _ body: (inout Composition) throws(CompositionError) -> Void) throws(CompositionError) {
        let kept = tracks.map { track in
            let from = max(0, (track.segmentIndex(at: start) ?? track.segments.count) - 2)
            return (from: from, segments: Array(track.segments[from...]))
        }
        do {
            try body(&self)
        } catch {
            for (index, old) in kept.enumerated() { tracks[index].segments.replaceSubrange(old.from..., with: old.segments) }
            throw error
        }
    }
}
