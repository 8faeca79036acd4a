public import Composition

/// Shorthands and generators for tests of timelines, shared by the composition, project and
/// export tests.
/// Shorthand for exact seconds in tests: `s("3.2")` is 16/5 s.
public func s(_ text: String) -> Time { try! Time(seconds: Rational(parsing: text)) }
public func r(_ text: String) -> Rational { try! Rational(parsing: text) }
public func range(_ a: String, _ b: String) -> TimeRange { try! TimeRange(start: s(a), end: s(b)) }

/// A 10 s movie with a video track (ID 0) and an audio track (ID 1).
public func movie(_ seconds: String = "10") -> Asset {
    let whole = range("0", seconds)
    return Asset(tracks: [
        .init(trackID: 0, mediaType: .video, timeRange: whole),
        .init(trackID: 1, mediaType: .audio, timeRange: whole),
    ])
}

/// A segment's ranges as text, for readable expectations: "0-3.2 <- 0-3.2 @1".
public func describe(_ track: CompositionTrack) -> [String] {
    track.segments.map { segment in
        let source = segment.source.map(\.exactText) ?? "gap"
        return "\(segment.target.exactText) <- \(source)" + (segment.rate.map { " @\($0)" } ?? "")
    }
}

/// Rates a user might pick, including awkward ones.
public let rates: [Rational] = ["1/32", "1/4", "1/3", "1/2", "2/3", "3/4", "1", "5/4", "3/2", "2", "3", "4", "7", "32", "1001/1000"].map(r)
/// Timescales of real media: the composition default, mp4 video, NTSC, audio.
public let grids: [Int64] = [600, 15360, 30000, 48000, 1000]

/// A random time in `[0, limit]` on one of the media grids.
public func randomTime(upTo limit: Time, _ g: inout SplitMix64) -> Time {
    let grid = grids.randomElement(using: &g)!
    let ticks = Int64((limit.seconds * Double(grid)).rounded(.down))
    guard ticks > 0 else { return .zero }
    let pick = Int64.random(in: 0...ticks, using: &g)
    let t = Time(value: pick, timescale: Int32(grid))
    return t > limit ? limit : t
}

/// A random non-empty range inside `[0, limit)`.
public func randomRange(within limit: Time, _ g: inout SplitMix64) -> TimeRange? {
    let a = randomTime(upTo: limit, &g), b = randomTime(upTo: limit, &g)
    guard a != b else { return nil }
    return try? TimeRange(start: min(a, b), end: max(a, b))
}

/// Applies `count` random scale / remove / gap edits (no re-inserted media, so every source
/// time plays at most once). Edits that throw are skipped.
public func randomComposition(seed: UInt64, edits count: Int) -> Composition {
    var g = SplitMix64(state: seed)
    var c = try! Composition(asset: movie())
    for _ in 0..<count { try? randomEdit(&c, &g, allowInsert: false) }
    return c
}

/// One random edit; returns the expected change in duration.
@discardableResult
public func randomEdit(_ c: inout Composition, _ g: inout SplitMix64, allowInsert: Bool) throws -> Time {
    let choice = Int.random(in: 0..<(allowInsert ? 4 : 3), using: &g)
    let bigEnough = c.duration > .seconds(1), tooBig = c.duration > .seconds(120)
    switch (choice, bigEnough, tooBig) {
    case (_, _, true), (1, true, _):
        guard let r = randomRange(within: c.duration, &g), r.duration < c.duration else { return .zero }
        try c.removeTimeRange(r)
        return try -r.duration
    case (2, _, _):
        let at = randomTime(upTo: c.duration, &g)
        let gap = try TimeRange(start: at, duration: randomTime(upTo: .seconds(2), &g))
        try c.insertEmptyTimeRange(gap)
        return gap.duration
    case (3, _, _):
        guard let source = randomRange(within: .seconds(10), &g) else { return .zero }
        try c.insertTimeRange(source, of: movie(), at: randomTime(upTo: c.duration, &g))
        return source.duration
    default:
        guard let r = randomRange(within: c.duration, &g) else { return .zero }
        let d = try r.duration.multiplied(by: rates.randomElement(using: &g)!.reciprocal)
        try c.scaleTimeRange(r, toDuration: d)
        return try d - r.duration
    }
}
