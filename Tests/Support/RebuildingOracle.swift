public import Composition

/// The track edits as slowpoke made them before issue 40, for tests to compare with: every
/// edit cuts the whole track into pieces and lays them all out again from 0, merging
/// neighbours that continue each other; a ramp is its steps scaled one by one, last to first.
/// Quadratic, and independent of the splicing it checks (only the model's public API).
public enum RebuildingOracle {
    struct Piece {
        var source: TimeRange?
        var duration: Time
        var held: Time?
    }

    /// `Composition.scaleTimeRange` on every track, each clamped to the track, as before.
    public static func scale(_ c: Composition, _ range: TimeRange, toDuration newDuration: Time) throws -> Composition {
        let factor = try newDuration.ratio(to: range.duration)
        return Composition(tracks: try c.tracks.map { track in
            guard let part = try range.clamped(to: track.timeRange) else { return track }
            let partFactor = try part.duration.multiplied(by: factor).ratio(to: part.duration)
            var inside = try pieces(track, part)
            for i in inside.indices { inside[i].duration = try inside[i].duration.multiplied(by: partFactor) }
            return try rebuilt(track, pieces(track, TimeRange(start: .zero, end: part.start)) + inside
                               + pieces(track, TimeRange(start: part.end, end: track.duration)))
        })
    }

    /// `Composition.removeTimeRange`, as before.
    public static func remove(_ c: Composition, _ range: TimeRange) throws -> Composition {
        Composition(tracks: try c.tracks.map { track in
            guard let part = try range.clamped(to: track.timeRange) else { return track }
            return try rebuilt(track, pieces(track, TimeRange(start: .zero, end: part.start))
                               + pieces(track, TimeRange(start: part.end, end: track.duration)))
        })
    }

    /// `Composition.insertEmptyTimeRange`, as before.
    public static func insertGap(_ c: Composition, _ range: TimeRange) throws -> Composition {
        Composition(tracks: try c.tracks.map { track in
            guard range.start <= track.duration else { return track }
            return try rebuilt(track, pieces(track, TimeRange(start: .zero, end: range.start)) + [Piece(source: nil, duration: range.duration)]
                               + pieces(track, TimeRange(start: range.start, end: track.duration)))
        })
    }

    /// A ramp as its steps' scales, last to first.
    public static func ramp(_ c: Composition, _ ramp: Ramp) throws -> Composition {
        var result = c
        let ranges = try ramp.stepRanges(), factors = try ramp.stepFactors()
        for index in ranges.indices.reversed() {
            result = try scale(result, ranges[index], toDuration: ranges[index].duration.multiplied(by: factors[index]))
        }
        return result
    }

    /// The pieces of `track` inside `range`. The segments tile the track in order, so those
    /// ending before the range are passed over with one comparison and the scan stops at the
    /// first starting at or after its end (their overlap with it is empty, a piece `rebuilt`
    /// leaves out): in the tests' debug build each `clamped(to:)` costs several 128-bit
    /// comparisons, and RampSpliceTests spent half its CPU here.
    static func pieces(_ track: CompositionTrack, _ range: TimeRange) throws -> [Piece] {
        var result: [Piece] = []
        guard !range.isEmpty else { return result }
        for segment in track.segments {
            if segment.target.end <= range.start { continue }
            if segment.target.start >= range.end { break }
            guard let clipped = try segment.target.clamped(to: range) else { continue }
            if let source = segment.source, let rate = segment.rate {
                let start = try source.start + (clipped.start - segment.target.start).multiplied(by: rate)
                result.append(Piece(source: try TimeRange(start: start, duration: clipped.duration.multiplied(by: rate)),
                                    duration: clipped.duration))
            } else {
                result.append(Piece(source: nil, duration: clipped.duration, held: segment.heldTime))
            }
        }
        return result
    }

    static func rebuilt(_ track: CompositionTrack, _ pieces: [Piece]) throws -> CompositionTrack {
        var merged: [Piece] = []
        for piece in pieces where piece.duration > .zero {
            if let last = merged.last, try continues(last, piece) {
                let source = try last.source.map { try TimeRange(start: $0.start, end: piece.source!.end) }
                merged[merged.count - 1] = Piece(source: source, duration: try last.duration + piece.duration, held: last.held)
            } else {
                merged.append(piece)
            }
        }
        var segments: [CompositionTrackSegment] = []
        var start = Time.zero
        for piece in merged {
            let target = try TimeRange(start: start, duration: piece.duration)
            if let source = piece.source { segments.append(try CompositionTrackSegment(source: source, target: target)) }
            else if let held = piece.held { segments.append(try CompositionTrackSegment(holding: held, target: target)) }
            else { segments.append(try CompositionTrackSegment(emptyTarget: target)) }
            start = target.end
        }
        return try CompositionTrack(trackID: track.trackID, mediaType: track.mediaType, segments: segments)
    }

    static func continues(_ a: Piece, _ b: Piece) throws -> Bool {
        switch (a.source, b.source) {
        case (nil, nil): return a.held == b.held
        case let (sa?, sb?): return try sa.end == sb.start && sa.duration.ratio(to: a.duration) == sb.duration.ratio(to: b.duration)
        default: return false
        }
    }
}
