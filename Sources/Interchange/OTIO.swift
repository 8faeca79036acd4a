import Foundation
public import Composition

/// Converts slowpoke timelines to and from OpenTimelineIO's JSON (`.otio`).
///
/// **Layout written.** `Timeline.1` → `Stack.1` → one `Track.1` per composition track (`kind`
/// `Video` or `Audio`) → one `Clip.2` per segment and one `Gap.1` per empty segment. A clip's
/// `source_range` is written as OpenTimelineIO and its adapters read it (`Track.duration()`,
/// `range_in_parent()`, CMX 3600 `M2` lines, AAF): `start_time` is the media's in-point and
/// `duration` the clip's length **in the track**. A segment whose rate is not 1 carries one
/// `LinearTimeWarp.1` whose `time_scalar` is that rate, meaning the clip consumes
/// `duration × time_scalar` of media: 3.2-5.0 s at 1/4 is start 3.2, duration 7.2, scalar 0.25.
/// A 1x clip has no effect. A hold (freeze frame) is a clip whose `source_range` starts at the
/// held time and lasts the hold, with one `FreezeFrame.1` effect (a LinearTimeWarp of
/// `time_scalar` 0). Every clip has an `ExternalReference.1` to the movie.
///
/// A reversed segment is a clip whose LinearTimeWarp scalar is negative (-1 backwards at normal
/// speed, -0.5 at half speed). As OpenTimelineIO reads a warp (media time = `start_time` +
/// scalar × time in the clip) and as CMX 3600 EDLs give a reverse's source in, `start_time` is
/// the first frame shown: a frame before the end of the media it plays (`4 - 2` at 30 fps is
/// start 119/30, duration 2, scalar -1).
///
/// Files from slowpoke before this convention (timeline `metadata.slowpoke.version` 1) wrote
/// the media span as `source_range.duration`; they still import as they were meant.
///
/// **Exact times.** OTIO stores `RationalTime` as a double `value` over a double `rate`. Every
/// time in a file slowpoke writes uses one rate: the least common multiple of the movie's
/// preferred rate (its whole frame rate, or its video timescale) and the denominators of every
/// time in the timeline, so each value is a whole number and exact in a double. When that
/// multiple would pass 2^31, or a value 2^53, the preferred rate is used and values are the
/// nearest doubles. Rates such as 1/3 are not exact as a double `time_scalar` either. So each
/// clip and gap also carries its exact values as strings under `metadata.slowpoke`; on import
/// they are used when they agree with the OTIO fields (to 1 µs and 1e-9), which is the case
/// unless another tool edited the item. Otherwise the OTIO fields are read: whole values over
/// whole rates are exact, and other doubles become the simplest fraction within 1e-9 (so
/// `0.3333333333333333` is 1/3 and `29.97002997002997` is 30000/1001).
///
/// **Its own files import exactly.** An import replays the timeline as slowpoke edits on the
/// whole movie, and some timelines (stacked ramps and cuts on mixed grids) pass through a time
/// finer than a 32-bit timescale in every order of remove, scale and insert. So slowpoke also
/// writes the edits that made the timeline, as JSON text in the timeline's
/// `metadata.slowpoke.edits`; an import replays those first and keeps them when they give
/// exactly the timeline the tracks describe (any tool's change to an item makes them disagree,
/// and the tracks win).
public enum OTIO {
    /// 2: `source_range.duration` is the clip's length in the track (OTIO's convention);
    /// 1: it was the media span (slowpoke before issue 23).
    public static let schemaVersion = 2

    // MARK: Export

    /// The OTIO JSON text for `composition`, which plays `movie`; `edits`, the edits that made
    /// it from the whole movie, are written beside it for an exact import.
    public static func export(_ composition: Composition, movie: OTIOMovie, edits: [Edit]? = nil) throws(CompositionError) -> String {
        String(decoding: try exportBytes(composition, movie: movie, edits: edits), as: UTF8.self)
    }

    /// ``export(_:movie:edits:)`` as UTF-8 bytes, as they are written to a file.
    public static func exportBytes(_ composition: Composition, movie: OTIOMovie, edits: [Edit]? = nil) throws(CompositionError) -> [UInt8] {
        var out: [UInt8] = []
        export(composition, movie: movie, edits: edits) { out += $0 }
        return out
    }

    /// ``exportBytes(_:movie:)`` handed to `write` a piece at a time (about a megabyte each),
    /// each track's items made one at a time as they are written: a 3000-clip timeline is
    /// 16 MB of text, and holding it and its tree of JSON values took more than 7 KB a segment.
    /// The bytes are those of ``exportTree(_:movie:)`` serialized.
    public static func export<E: Error>(_ composition: Composition, movie: OTIOMovie, edits: [Edit]? = nil,
                                        to write: ([UInt8]) throws(E) -> Void) throws(E) {
        let (rate, reference) = references(composition, movie: movie)
        let skeleton = timeline(composition, movie: movie, edits: edits) { _ in [] }.serializedBytes()
        // Each track's empty "children" array, in track order, is where its items go (no
        // other member of the skeleton is named so and empty; strings cannot hold the quotes).
        let marker = Array(#""children": []"#.utf8)
        let places = (0..<max(0, skeleton.count - marker.count + 1)).filter { skeleton[$0] == marker[0] && skeleton[$0 ..< $0 + marker.count].elementsEqual(marker) }
        guard places.count == composition.tracks.count else {
            return try write(exportTree(composition, movie: movie, edits: edits).serializedBytes())
        }
        var out: [UInt8] = []
        var from = 0
        for (track, place) in zip(composition.tracks, places) {
            let open = place + marker.count - 2
            out += skeleton[from ..< open]
            let indent = place - (skeleton[..<place].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0)
            if track.segments.isEmpty { out += "[]".utf8 } else {
                out += "[\n".utf8
                for (index, segment) in track.segments.enumerated() {
                    OrderedJSON.pad(indent + 4, into: &out)
                    item(segment, index: index, movie: movie, reference: reference, rate: rate).write(into: &out, indent: indent + 4)
                    out += (index == track.segments.count - 1 ? "\n" : ",\n").utf8
                    if out.count >= 1 << 20 { try write(out); out.removeAll(keepingCapacity: true) }
                }
                OrderedJSON.pad(indent, into: &out)
                out.append(UInt8(ascii: "]"))
            }
            from = open + 2
        }
        out += skeleton[from...]
        try write(out)
    }

    /// The whole OTIO timeline for `composition` as one tree of JSON values.
    static func exportTree(_ composition: Composition, movie: OTIOMovie, edits: [Edit]? = nil) -> OrderedJSON {
        let (rate, reference) = references(composition, movie: movie)
        return timeline(composition, movie: movie, edits: edits) { track in
            track.segments.enumerated().map { index, segment in item(segment, index: index, movie: movie, reference: reference, rate: rate) }
        }
    }

    /// The rate every time is written at, and the movie's ExternalReference.
    private static func references(_ composition: Composition, movie: OTIOMovie) -> (rate: Int64, reference: OrderedJSON) {
        var times: [Time] = [movie.availableRange.start, movie.availableRange.duration]
        for track in composition.tracks {
            for segment in track.segments {
                if let source = segment.source { times += [source.start, source.duration] + (segment.isReversed ? [(try? firstShown(source, movie)) ?? source.start] : []) }
                if let held = segment.heldTime { times.append(held) }
                times.append(segment.target.duration)
            }
        }
        let rate = chooseRate(for: times, preferred: movie.preferredRate)
        let reference = OrderedJSON.object([
            ("OTIO_SCHEMA", .string("ExternalReference.1")),
            ("metadata", .object([])),
            ("name", .string(movie.name)),
            ("available_range", timeRange(movie.availableRange, rate: rate)),
            ("available_image_bounds", .null),
            ("target_url", .string(movie.targetURL)),
        ])
        return (rate, reference)
    }

    /// The timeline object, each track's items given by `children`.
    private static func timeline(_ composition: Composition, movie: OTIOMovie, edits: [Edit]?,
                                 children: (CompositionTrack) -> [OrderedJSON]) -> OrderedJSON {
        var tracks: [OrderedJSON] = []
        var counts: [MediaType: Int] = [:]
        for track in composition.tracks {
            counts[track.mediaType, default: 0] += 1
            let kind = track.mediaType == .video ? "Video" : "Audio"
            tracks.append(.object([
                ("OTIO_SCHEMA", .string("Track.1")),
                ("metadata", .object([("slowpoke", .object([("track_id", .integer(Int64(track.trackID)))]))])),
                ("name", .string("\(kind == "Video" ? "V" : "A")\(counts[track.mediaType]!)")),
                ("source_range", .null),
                ("effects", .array([])),
                ("markers", .array([])),
                ("enabled", .bool(true)),
                ("children", .array(children(track))),
                ("kind", .string(kind)),
            ]))
        }
        return .object([
            ("OTIO_SCHEMA", .string("Timeline.1")),
            ("metadata", .object([("slowpoke", .object([("version", .integer(Int64(schemaVersion)))] + editsField(edits)))])),
            ("name", .string(movie.name)),
            ("global_start_time", .null),
            ("tracks", .object([
                ("OTIO_SCHEMA", .string("Stack.1")),
                ("metadata", .object([])),
                ("name", .string("tracks")),
                ("source_range", .null),
                ("effects", .array([])),
                ("markers", .array([])),
                ("enabled", .bool(true)),
                ("children", .array(tracks)),
            ])),
        ])
    }

    /// One segment as an OTIO item: a clip (with a LinearTimeWarp unless it plays at rate 1), a
    /// frozen clip, or a gap, each with slowpoke's exact times in its metadata.
    private static func item(_ segment: CompositionTrackSegment, index: Int, movie: OTIOMovie, reference: OrderedJSON,
                             rate: Int64) -> OrderedJSON {
        if let source = segment.source, let segmentRate = segment.signedRate {
            let start = segment.isReversed ? (try? firstShown(source, movie)) ?? source.start : source.start
            var exact: [(String, OrderedJSON)] = [
                ("source_start", .string(source.start.secondsText)),
                ("source_duration", .string(source.duration.secondsText)),
                ("rate", .string(segmentRate.description)),
            ]
            if segment.isReversed { exact.append(("frame", .string(movie.frame.secondsText))) }
            return .object([
                ("OTIO_SCHEMA", .string("Clip.2")),
                ("metadata", .object([("slowpoke", .object(exact))])),
                ("name", .string("\(movie.name) \(index + 1)")),
                ("source_range", timeRange(start: start, duration: segment.target.duration, rate: rate)),
                ("effects", .array(segmentRate == .one ? [] : [.object([
                    ("OTIO_SCHEMA", .string("LinearTimeWarp.1")),
                    ("metadata", .object([])),
                    ("name", .string("")),
                    ("effect_name", .string("LinearTimeWarp")),
                    ("time_scalar", .number(segmentRate.doubleValue)),
                ])])),
                ("markers", .array([])),
                ("enabled", .bool(true)),
                ("media_references", .object([("DEFAULT_MEDIA", reference)])),
                ("active_media_reference_key", .string("DEFAULT_MEDIA")),
            ])
        } else if let held = segment.heldTime {
            return .object([
                ("OTIO_SCHEMA", .string("Clip.2")),
                ("metadata", .object([("slowpoke", .object([
                    ("held", .string(held.secondsText)),
                    ("duration", .string(segment.target.duration.secondsText)),
                ]))])),
                ("name", .string("\(movie.name) \(index + 1) (freeze)")),
                ("source_range", timeRange(start: held, duration: segment.target.duration, rate: rate)),
                ("effects", .array([.object([
                    ("OTIO_SCHEMA", .string("FreezeFrame.1")),
                    ("metadata", .object([])),
                    ("name", .string("")),
                    ("effect_name", .string("FreezeFrame")),
                    ("time_scalar", .number(0)),
                ])])),
                ("markers", .array([])),
                ("enabled", .bool(true)),
                ("media_references", .object([("DEFAULT_MEDIA", reference)])),
                ("active_media_reference_key", .string("DEFAULT_MEDIA")),
            ])
        } else {
            return .object([
                ("OTIO_SCHEMA", .string("Gap.1")),
                ("metadata", .object([("slowpoke", .object([
                    ("duration", .string(segment.target.duration.secondsText)),
                ]))])),
                ("name", .string("")),
                ("source_range", timeRange(start: .zero, duration: segment.target.duration, rate: rate)),
                ("effects", .array([])),
                ("markers", .array([])),
                ("enabled", .bool(true)),
            ])
        }
    }

    /// A reversed clip's `start_time`: its last frame, a frame before its media's end (its
    /// start, for media shorter than a frame).
    static func firstShown(_ source: TimeRange, _ movie: OTIOMovie) throws(CompositionError) -> Time {
        max(source.start, try source.end - movie.frame)
    }

    /// The rate in which every time is a whole number, or `preferred` if none fits.
    static func chooseRate(for times: [Time], preferred: Int64) -> Int64 {
        var rate = preferred
        for time in times {
            guard let seconds = time.exactSeconds else { continue }
            guard let lcm = Rational.leastCommonMultiple(rate, seconds.denominator, limit: Int64(Int32.max)) else { return preferred }
            rate = lcm
        }
        for time in times {
            guard let seconds = time.exactSeconds else { continue }
            let value = Int128(seconds.numerator) * Int128(rate / seconds.denominator)
            if value > Int128(1) << 53 || value < -(Int128(1) << 53) { return preferred }
        }
        return rate
    }

    static func rationalTime(_ time: Time, rate: Int64) -> OrderedJSON {
        let seconds = time.exactSeconds ?? .zero
        let scaled = Int128(seconds.numerator) * Int128(rate)
        let value: Double = scaled % Int128(seconds.denominator) == 0
            ? Double(scaled / Int128(seconds.denominator))
            : Double(seconds.numerator) / Double(seconds.denominator) * Double(rate)
        return .object([("OTIO_SCHEMA", .string("RationalTime.1")), ("rate", .number(Double(rate))), ("value", .number(value))])
    }

    static func timeRange(_ range: TimeRange, rate: Int64) -> OrderedJSON {
        timeRange(start: range.start, duration: range.duration, rate: rate)
    }

    /// A range from its start and duration: their sum (the end OTIO never stores) may need a
    /// finer timescale than exact arithmetic holds after many stacked edits.
    static func timeRange(start: Time, duration: Time, rate: Int64) -> OrderedJSON {
        .object([
            ("OTIO_SCHEMA", .string("TimeRange.1")),
            ("duration", rationalTime(duration, rate: rate)),
            ("start_time", rationalTime(start, rate: rate)),
        ])
    }
}
