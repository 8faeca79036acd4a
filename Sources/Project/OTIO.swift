import Foundation
public import Composition

/// Errors reading an OpenTimelineIO file. Every message names the item it is about.
public enum OTIOError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file is not JSON, or not an OTIO timeline.
    case notATimeline(String)
    /// A required field is missing or has the wrong type.
    case malformed(String)
    /// Valid OTIO that a slowpoke timeline cannot represent.
    case unsupported(String)

    public var description: String {
        switch self {
        case .notATimeline(let why), .malformed(let why), .unsupported(let why): why
        }
    }
}

extension OTIOError: LocalizedError {
    public var errorDescription: String? { description }
}

/// The movie an OTIO export refers to.
public struct OTIOMovie: Sendable, Hashable {
    /// The timeline's name (the movie's file name).
    public var name: String
    /// `ExternalReference.target_url`: a `file://` URL, or a path relative to the .otio file.
    public var targetURL: String
    /// The movie's presentation range, `[0, D)`, for `available_range`.
    public var availableRange: TimeRange
    /// The rate to write times in when nothing finer is needed: the movie's frame rate when it
    /// is a whole number, otherwise its video timescale.
    public var preferredRate: Int64

    public init(name: String, targetURL: String, availableRange: TimeRange, preferredRate: Int64) {
        self.name = name
        self.targetURL = targetURL
        self.availableRange = availableRange
        self.preferredRate = max(1, preferredRate)
    }
}

/// A timeline read from an OTIO file, reduced to what slowpoke can play: per track, clips
/// (a source range of the movie at a rate) and gaps.
public struct OTIOTimeline: Sendable, Hashable {
    public enum Item: Sendable, Hashable {
        /// Plays `source` (media time) at `rate`: it lasts `source.duration / rate` on the track.
        case clip(source: TimeRange, rate: Rational)
        case gap(duration: Time)
    }

    public struct LabeledItem: Sendable, Hashable {
        public let item: Item
        /// How messages name it: `clip "shot 3" (item 3 of Video track "V1")`.
        public let label: String
        /// The clip's media reference, nil for a gap.
        public let targetURL: String?
    }

    public struct Track: Sendable, Hashable {
        public let mediaType: MediaType
        public let name: String
        public let items: [LabeledItem]
        /// `Video track "V1"`.
        public var label: String { "\(mediaType == .video ? "Video" : "Audio") track \"\(name)\"" }
    }

    public let name: String
    public let tracks: [Track]

    /// Every clip's target URL, in order of first appearance.
    public var targetURLs: [String] {
        var seen: [String] = []
        for track in tracks {
            for item in track.items {
                if let url = item.targetURL, !seen.contains(url) { seen.append(url) }
            }
        }
        return seen
    }
}

/// Converts slowpoke timelines to and from OpenTimelineIO's JSON (`.otio`).
///
/// **Layout written.** `Timeline.1` → `Stack.1` → one `Track.1` per composition track (`kind`
/// `Video` or `Audio`) → one `Clip.2` per segment, whose `source_range` is the segment's source
/// range in media time and whose `LinearTimeWarp.1` effect has `time_scalar` = the segment's
/// rate (so the clip lasts `source_range.duration / time_scalar` on the track), with an
/// `ExternalReference.1` to the movie; and one `Gap.1` per empty segment.
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
public enum OTIO {
    public static let schemaVersion = 1

    // MARK: Export

    /// The OTIO JSON text for `composition`, which plays `movie`.
    public static func export(_ composition: Composition, movie: OTIOMovie) throws(CompositionError) -> String {
        var times: [Time] = [movie.availableRange.start, movie.availableRange.duration]
        for track in composition.tracks {
            for segment in track.segments {
                if let source = segment.source { times += [source.start, source.duration] } else { times.append(segment.target.duration) }
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
        var tracks: [OrderedJSON] = []
        var counts: [MediaType: Int] = [:]
        for track in composition.tracks {
            counts[track.mediaType, default: 0] += 1
            let kind = track.mediaType == .video ? "Video" : "Audio"
            var children: [OrderedJSON] = []
            for (index, segment) in track.segments.enumerated() {
                if let source = segment.source, let segmentRate = segment.rate {
                    children.append(.object([
                        ("OTIO_SCHEMA", .string("Clip.2")),
                        ("metadata", .object([("slowpoke", .object([
                            ("source_start", .string(source.start.secondsText)),
                            ("source_duration", .string(source.duration.secondsText)),
                            ("rate", .string(segmentRate.description)),
                        ]))])),
                        ("name", .string("\(movie.name) \(index + 1)")),
                        ("source_range", timeRange(source, rate: rate)),
                        ("effects", .array([.object([
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
                    ]))
                } else {
                    let gap = try TimeRange(start: .zero, duration: segment.target.duration)
                    children.append(.object([
                        ("OTIO_SCHEMA", .string("Gap.1")),
                        ("metadata", .object([("slowpoke", .object([
                            ("duration", .string(segment.target.duration.secondsText)),
                        ]))])),
                        ("name", .string("")),
                        ("source_range", timeRange(gap, rate: rate)),
                        ("effects", .array([])),
                        ("markers", .array([])),
                        ("enabled", .bool(true)),
                    ]))
                }
            }
            tracks.append(.object([
                ("OTIO_SCHEMA", .string("Track.1")),
                ("metadata", .object([("slowpoke", .object([("track_id", .integer(Int64(track.trackID)))]))])),
                ("name", .string("\(kind == "Video" ? "V" : "A")\(counts[track.mediaType]!)")),
                ("source_range", .null),
                ("effects", .array([])),
                ("markers", .array([])),
                ("enabled", .bool(true)),
                ("children", .array(children)),
                ("kind", .string(kind)),
            ]))
        }
        let timeline = OrderedJSON.object([
            ("OTIO_SCHEMA", .string("Timeline.1")),
            ("metadata", .object([("slowpoke", .object([("version", .integer(Int64(schemaVersion)))]))])),
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
        return timeline.serialized()
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
        .object([
            ("OTIO_SCHEMA", .string("TimeRange.1")),
            ("duration", rationalTime(range.duration, rate: rate)),
            ("start_time", rationalTime(range.start, rate: rate)),
        ])
    }

    // MARK: Import

    /// Reads an OTIO file's JSON. Throws, naming the item, for anything slowpoke cannot
    /// represent: transitions, nested stacks, trimmed tracks, disabled items, freeze frames,
    /// time effects other than LinearTimeWarp, other effects, and references that are not
    /// external files.
    public static func read(_ data: Data) throws(OTIOError) -> OTIOTimeline {
        let root: Any
        do { root = try JSONSerialization.jsonObject(with: data) } catch {
            throw .notATimeline("the file is not JSON, so it is not an OpenTimelineIO timeline")
        }
        guard let object = root as? [String: Any] else {
            throw .notATimeline("the file is JSON but not an OpenTimelineIO timeline (its top level is not an object)")
        }
        let schema = object["OTIO_SCHEMA"] as? String ?? "(none)"
        guard schema.hasPrefix("Timeline.") else {
            throw .notATimeline("the file is not an OpenTimelineIO timeline: its OTIO_SCHEMA is \(schema), not Timeline.1")
        }
        let name = object["name"] as? String ?? ""
        guard let stack = object["tracks"] as? [String: Any], (stack["OTIO_SCHEMA"] as? String)?.hasPrefix("Stack.") == true else {
            throw .malformed("the timeline has no \"tracks\" stack")
        }
        try refuseEffects(stack, label: "the timeline's top-level stack")
        let children = stack["children"] as? [Any] ?? []
        var tracks: [OTIOTimeline.Track] = []
        for (index, child) in children.enumerated() {
            guard let track = child as? [String: Any] else { throw .malformed("child \(index + 1) of the top-level stack is not an object") }
            tracks.append(try readTrack(track, position: index + 1))
        }
        return OTIOTimeline(name: name, tracks: tracks)
    }

    private static func readTrack(_ track: [String: Any], position: Int) throws(OTIOError) -> OTIOTimeline.Track {
        let schema = track["OTIO_SCHEMA"] as? String ?? "(none)"
        let name = track["name"] as? String ?? ""
        let shown = "track \(position) (\"\(name)\")"
        guard schema.hasPrefix("Track.") else {
            throw .unsupported("\(shown) of the top-level stack is a \(schemaName(schema)), not a track; slowpoke reads only tracks of clips and gaps")
        }
        let kindText = track["kind"] as? String ?? "(none)"
        let mediaType: MediaType
        switch kindText {
        case "Video": mediaType = .video
        case "Audio": mediaType = .audio
        default: throw .unsupported("\(shown) has kind \(kindText); slowpoke reads Video and Audio tracks")
        }
        let label = "\(kindText) track \"\(name)\""
        if let range = track["source_range"], !(range is NSNull) {
            throw .unsupported("\(label) is trimmed by a source_range; slowpoke cannot represent a trimmed track (trim its clips instead)")
        }
        try refuseEffects(track, label: label)
        var items: [OTIOTimeline.LabeledItem] = []
        for (index, child) in (track["children"] as? [Any] ?? []).enumerated() {
            guard let item = child as? [String: Any] else { throw .malformed("item \(index + 1) of \(label) is not an object") }
            items.append(try readItem(item, where: "item \(index + 1) of \(label)"))
        }
        return OTIOTimeline.Track(mediaType: mediaType, name: name, items: items)
    }

    private static func readItem(_ item: [String: Any], where place: String) throws(OTIOError) -> OTIOTimeline.LabeledItem {
        let schema = item["OTIO_SCHEMA"] as? String ?? "(none)"
        let name = item["name"] as? String ?? ""
        let isClip = schema.hasPrefix("Clip.")
        let isGap = schema.hasPrefix("Gap.")
        let label = isClip ? "clip \"\(name)\" (\(place))" : isGap ? "gap (\(place))" : "\(schemaName(schema)) \"\(name)\" (\(place))"
        guard isClip || isGap else {
            throw .unsupported("\(label): slowpoke timelines hold only clips and gaps, so a \(schemaName(schema)) cannot be imported")
        }
        if let enabled = item["enabled"] as? Bool, !enabled {
            throw .unsupported("\(label) is disabled; slowpoke has no disabled items (delete it, or enable it)")
        }
        let exact = (item["metadata"] as? [String: Any])?["slowpoke"] as? [String: Any]
        if isGap {
            try refuseEffects(item, label: label)
            guard let range = item["source_range"] as? [String: Any] else { throw .malformed("\(label) has no source_range") }
            var duration = try time(range["duration"], label: label, field: "source_range.duration")
            if let text = exact?["duration"] as? String, let written = try? Time(seconds: Rational(parsing: text)),
               agrees(written, duration) {
                duration = written
            }
            guard duration > .zero else { throw .unsupported("\(label) has no duration") }
            return .init(item: .gap(duration: duration), label: label, targetURL: nil)
        }

        // The media reference: Clip.2 keeps a dictionary and an active key, Clip.1 one reference.
        let reference: [String: Any]?
        if let references = item["media_references"] as? [String: Any] {
            let key = item["active_media_reference_key"] as? String ?? "DEFAULT_MEDIA"
            reference = references[key] as? [String: Any]
        } else {
            reference = item["media_reference"] as? [String: Any]
        }
        let referenceSchema = reference?["OTIO_SCHEMA"] as? String ?? "(none)"
        guard let reference, referenceSchema.hasPrefix("ExternalReference."), let url = reference["target_url"] as? String, !url.isEmpty else {
            throw .unsupported("\(label) has a \(schemaName(referenceSchema)) media reference; slowpoke needs an ExternalReference to the movie file")
        }

        let rangeObject: [String: Any]
        let field: String
        if let range = item["source_range"] as? [String: Any] {
            (rangeObject, field) = (range, "source_range")
        } else if let available = reference["available_range"] as? [String: Any] {
            (rangeObject, field) = (available, "media reference's available_range")
        } else {
            throw .malformed("\(label) has neither a source_range nor an available_range")
        }
        var start = try time(rangeObject["start_time"], label: label, field: "\(field).start_time")
        var duration = try time(rangeObject["duration"], label: label, field: "\(field).duration")
        guard duration > .zero else { throw .unsupported("\(label) has an empty or negative \(field)") }
        // Media time counts from the reference's available_range start (a camera's start
        // timecode, say); slowpoke's source time counts from the movie's first frame.
        if let available = reference["available_range"] as? [String: Any], available["start_time"] != nil {
            let origin = try time(available["start_time"], label: label, field: "media reference's available_range.start_time")
            do { start = try start - origin } catch {
                throw .unsupported("\(label): its \(field) cannot be placed in the movie: \(error.description)")
            }
        }

        // Time effects: LinearTimeWarp scalars multiply; anything else cannot be represented.
        var scalar = 1.0
        var warps = 0
        for (index, effect) in (item["effects"] as? [Any] ?? []).enumerated() {
            let effect = effect as? [String: Any] ?? [:]
            let effectSchema = effect["OTIO_SCHEMA"] as? String ?? "(none)"
            let effectName = effect["effect_name"] as? String ?? ""
            if effectSchema.hasPrefix("FreezeFrame.") {
                throw .unsupported("\(label) has a FreezeFrame effect; slowpoke plays every clip at a rate from 1/32 to 32 and cannot hold one frame (replace the freeze with a gap, or remove it)")
            }
            guard effectSchema.hasPrefix("LinearTimeWarp.") else {
                throw .unsupported("\(label) has effect \(index + 1), a \(schemaName(effectSchema))\(effectName.isEmpty ? "" : " \"\(effectName)\""), which slowpoke cannot represent; it reads only LinearTimeWarp")
            }
            guard let value = (effect["time_scalar"] as? NSNumber)?.doubleValue, value.isFinite else {
                throw .malformed("\(label) has a LinearTimeWarp without a numeric time_scalar")
            }
            scalar *= value
            warps += 1
        }
        if scalar == 0 {
            throw .unsupported("\(label) has time_scalar 0, a freeze frame; slowpoke plays every clip at a rate from 1/32 to 32 and cannot hold one frame")
        }
        if scalar < 0 {
            throw .unsupported("\(label) has time_scalar \(scalar) and would play backwards, which slowpoke cannot do")
        }
        var rate = warps == 0 ? Rational.one : simplestFraction(scalar)
        if let exact,
           let exactStart = (exact["source_start"] as? String).flatMap({ try? Time(seconds: Rational(parsing: $0)) }),
           let exactDuration = (exact["source_duration"] as? String).flatMap({ try? Time(seconds: Rational(parsing: $0)) }),
           let written = (exact["rate"] as? String).flatMap({ try? Rational(parsing: $0) }),
           agrees(exactStart, start), agrees(exactDuration, duration),
           abs(written.doubleValue - scalar) <= 1e-9 * max(1, scalar) {
            (start, duration, rate) = (exactStart, exactDuration, written)
        }
        let source: TimeRange
        do { source = try TimeRange(start: start, duration: duration) } catch {
            throw .unsupported("\(label): its \(field) \(error.description)")
        }
        do { try PlaybackRate.validate(rate) } catch {
            throw .unsupported("\(label): \(error.description)")
        }
        return .init(item: .clip(source: source, rate: rate), label: label, targetURL: url)
    }

    private static func refuseEffects(_ object: [String: Any], label: String) throws(OTIOError) {
        guard let effects = object["effects"] as? [Any], let first = effects.first as? [String: Any] else { return }
        let schema = first["OTIO_SCHEMA"] as? String ?? "(none)"
        throw .unsupported("\(label) has a \(schemaName(schema)) effect; slowpoke reads time warps only on clips")
    }

    /// `FreezeFrame` for `FreezeFrame.1`.
    private static func schemaName(_ schema: String) -> String {
        schema.split(separator: ".").first.map(String.init) ?? schema
    }

    /// Whether an exact value from metadata still describes the OTIO field (to 1 µs).
    private static func agrees(_ exact: Time, _ field: Time) -> Bool {
        abs(exact.seconds - field.seconds) <= 1e-6
    }

    private static func timeRange(_ object: [String: Any], label: String, field: String) throws(OTIOError) -> TimeRange {
        let start = try time(object["start_time"], label: label, field: "\(field).start_time")
        let duration = try time(object["duration"], label: label, field: "\(field).duration")
        guard duration >= .zero else { throw .malformed("\(label) has a negative \(field).duration") }
        do { return try TimeRange(start: start, duration: duration) } catch {
            throw .malformed("\(label): \(field) \(error.description)")
        }
    }

    /// A `RationalTime.1` as an exact time: whole values over whole rates exactly, other doubles
    /// as their simplest fraction within 1e-9.
    private static func time(_ any: Any?, label: String, field: String) throws(OTIOError) -> Time {
        guard let object = any as? [String: Any],
              let value = (object["value"] as? NSNumber)?.doubleValue,
              let rate = (object["rate"] as? NSNumber)?.doubleValue, value.isFinite, rate.isFinite, rate > 0
        else { throw .malformed("\(label) has no valid RationalTime for \(field)") }
        do {
            let seconds = try simplestFraction(value) / simplestFraction(rate)
            return try Time(seconds: seconds)
        } catch {
            throw .unsupported("\(label): \(field) (\(value) at rate \(rate)) cannot be an exact time: \(error.description)")
        }
    }

    /// The exact value of a whole double, or the first continued-fraction convergent within
    /// 1e-9 (relative) of it.
    static func simplestFraction(_ x: Double) -> Rational {
        if x == x.rounded(), abs(x) < 9.0e18, let whole = try? Rational(Int64(x)) { return whole }
        var h0: Int128 = 0, h1: Int128 = 1, k0: Int128 = 1, k1: Int128 = 0
        var remainder = x
        var best = Rational.zero
        for _ in 0..<40 {
            let a = remainder.rounded(.down)
            guard abs(a) < 1e15 else { break }
            let ai = Int128(a)
            (h0, h1) = (h1, ai * h1 + h0)
            (k0, k1) = (k1, ai * k1 + k0)
            guard let r = try? Rational.reduce(h1, k1) else { break }
            best = r
            if abs(r.doubleValue - x) <= 1e-9 * max(1, abs(x)) { break }
            let fraction = remainder - a
            guard fraction > 0 else { break }
            remainder = 1 / fraction
        }
        return best
    }

    // MARK: From an OTIO timeline to slowpoke edits

    /// The items a composition track plays, in order, as OTIO would hold them.
    public static func items(of track: CompositionTrack) -> [OTIOTimeline.Item] {
        track.segments.map { segment in
            if let source = segment.source, let rate = segment.rate { .clip(source: source, rate: rate) } else { .gap(duration: segment.target.duration) }
        }
    }

    /// The slowpoke edits that turn the whole movie, `[0, movieDuration)` at 1x, into `track`:
    /// remove what the clips skip, scale each clip to its rate, insert the gaps. Throws, naming
    /// the clip, when clips are out of source order, overlap or repeat source (slowpoke plays a
    /// movie in order, each part at most once) or reach beyond the movie.
    public static func edits(toPlay track: OTIOTimeline.Track, movieDuration: Time) throws(OTIOError) -> [Edit] {
        do { return try forwardEdits(toPlay: track, movieDuration: movieDuration) } catch let error as OTIOError {
            throw error
        } catch {
            throw .unsupported("\(track.label): \(error)")
        }
    }

    /// ``edits(toPlay:movieDuration:)``, letting arithmetic errors through as they are.
    static func forwardEdits(toPlay track: OTIOTimeline.Track, movieDuration: Time) throws -> [Edit] {
        var edits: [Edit] = []
        var t = Time.zero  // where the untouched rest of the movie starts on the timeline
        var s = Time.zero  // the source time it starts with
        func range(_ start: Time, _ duration: Time) throws(CompositionError) -> TimeRange {
            try TimeRange(start: start, duration: duration)
        }
        for labeled in track.items {
            do {
                switch labeled.item {
                case .gap(let duration):
                    edits.append(.insertGap(range: try range(t, duration)))
                    t = try t + duration
                case .clip(let source, let rate):
                    guard source.start >= .zero, source.end <= movieDuration else {
                        throw OTIOError.unsupported("\(labeled.label) plays source \(source), beyond the movie's 0-\(movieDuration.secondsText) s")
                    }
                    guard source.start >= s else {
                        throw OTIOError.unsupported("\(labeled.label) plays source \(source), which starts before the end of the clip before it (\(s.secondsText) s); a slowpoke timeline plays the movie in order, each part at most once")
                    }
                    if source.start > s {
                        edits.append(.remove(range: try range(t, source.start - s)))
                    }
                    let target = try source.duration.multiplied(by: rate.reciprocal)
                    if rate != .one {
                        edits.append(.scale(range: try range(t, source.duration), toDuration: target))
                    }
                    t = try t + target
                    s = source.end
                }
            } catch let error as OTIOError {
                throw error
            } catch CompositionError.overflow(let what) {
                throw CompositionError.overflow(what)
            } catch {
                throw OTIOError.unsupported("\(labeled.label): \(error)")
            }
        }
        if s < movieDuration {
            edits.append(.remove(range: try range(t, movieDuration - s)))
        }
        return edits
    }

    /// The same edits derived from the end of the movie backwards: the part before the
    /// current clip is still the untouched movie, so every edit is placed at source times.
    /// Some timelines whose forward edits pass through unrepresentable intermediate times
    /// (mixes of 1001/30000 s and 1/1000 s grids, say) replay exactly this way.
    static func editsBackward(toPlay track: OTIOTimeline.Track, movieDuration: Time) throws(CompositionError) -> [Edit] {
        var edits: [Edit] = []
        var p = movieDuration  // [0, p) is still the untouched movie
        for labeled in track.items.reversed() {
            switch labeled.item {
            case .gap(let duration):
                edits.append(.insertGap(range: try TimeRange(start: p, duration: duration)))
            case .clip(let source, let rate):
                if source.end < p { edits.append(.remove(range: try TimeRange(start: source.end, end: p))) }
                if rate != .one {
                    edits.append(.scale(range: source, toDuration: try source.duration.multiplied(by: rate.reciprocal)))
                }
                p = source.start
            }
        }
        if p > .zero { edits.append(.remove(range: try TimeRange(start: .zero, end: p))) }
        return edits
    }

    /// The same edits grouped by kind: the unused source removed (from the end, in source
    /// times), then each clip scaled (from the last, so earlier positions stay put), then the
    /// gaps inserted at their final times.
    static func editsByKind(toPlay track: OTIOTimeline.Track, movieDuration: Time) throws(CompositionError) -> [Edit] {
        let clips: [(source: TimeRange, rate: Rational)] = track.items.compactMap {
            if case .clip(let source, let rate) = $0.item { (source, rate) } else { nil }
        }
        var edits: [Edit] = []
        var p = movieDuration
        for clip in clips.reversed() {
            if clip.source.end < p { edits.append(.remove(range: try TimeRange(start: clip.source.end, end: p))) }
            p = clip.source.start
        }
        if p > .zero { edits.append(.remove(range: try TimeRange(start: .zero, end: p))) }
        var starts: [Time] = []
        var position = Time.zero
        for clip in clips {
            starts.append(position)
            position = try position + clip.source.duration
        }
        for (clip, start) in zip(clips, starts).reversed() where clip.rate != .one {
            edits.append(.scale(range: try TimeRange(start: start, duration: clip.source.duration),
                                toDuration: try clip.source.duration.multiplied(by: clip.rate.reciprocal)))
        }
        var t = Time.zero
        for labeled in track.items {
            switch labeled.item {
            case .gap(let duration):
                edits.append(.insertGap(range: try TimeRange(start: t, duration: duration)))
                t = try t + duration
            case .clip(let source, let rate):
                t = try t + source.duration.multiplied(by: rate.reciprocal)
            }
        }
        return edits
    }

    /// The edits that make `original` (the whole movie) play `timeline`, and the result, checked
    /// against every track. Tries the edits in timeline order, then from the end, then grouped by kind; throws
    /// naming the item when the timeline cannot be represented.
    public static func replay(_ timeline: OTIOTimeline, on original: Composition) throws(OTIOError) -> (edits: [Edit], composition: Composition) {
        let track = try primaryTrack(of: timeline)
        let movieDuration = original.duration
        var failure: CompositionError?
        for attempt in 0..<3 {
            var composition = original
            do {
                let list = switch attempt {
                case 0: try forwardEdits(toPlay: track, movieDuration: movieDuration)
                case 1: try editsBackward(toPlay: track, movieDuration: movieDuration)
                default: try editsByKind(toPlay: track, movieDuration: movieDuration)
                }
                for edit in list { try edit.apply(to: &composition) }
                try check(timeline, against: composition)
                return (list, composition)
            } catch let error as OTIOError {
                throw error
            } catch let error as CompositionError {
                guard case .overflow = error else { throw .unsupported("\(track.label) cannot be played by slowpoke: \(error.description)") }
                failure = error
            } catch {
                throw .unsupported("\(track.label): \(error)")
            }
        }
        throw .unsupported("\(track.label) cannot be replayed as slowpoke edits with exact times: \(failure?.description ?? "overflow")")
    }

    /// The track an import follows: the first Video track with items, else the first Audio
    /// track with items.
    public static func primaryTrack(of timeline: OTIOTimeline) throws(OTIOError) -> OTIOTimeline.Track {
        let candidates = timeline.tracks.filter { !$0.items.isEmpty }
        guard let track = candidates.first(where: { $0.mediaType == .video }) ?? candidates.first else {
            throw .unsupported("the timeline has no clips or gaps")
        }
        return track
    }

    /// Checks that every track of `timeline` with items plays what `composition`'s track of the
    /// same kind plays (adjacent gaps, and clips that continue each other at the same rate,
    /// count as one). slowpoke edits all tracks together, so an audio track cut differently from
    /// the video cannot be represented.
    public static func check(_ timeline: OTIOTimeline, against composition: Composition) throws(OTIOError) {
        for track in timeline.tracks where !track.items.isEmpty {
            guard let ours = composition.tracks(withMediaType: track.mediaType).first else {
                throw .unsupported("\(track.label) has no counterpart: the movie has no \(track.mediaType.rawValue)")
            }
            let expected = items(of: ours)
            let (given, labels) = merged(track.items)
            for index in 0..<max(given.count, expected.count) {
                let a = index < given.count ? given[index] : nil
                let b = index < expected.count ? expected[index] : nil
                guard a != b else { continue }
                let label = index < labels.count ? labels[index] : "the end of \(track.label)"
                throw .unsupported("\(label) does not line up with the timeline the first track describes (\(describe(b)) there, \(describe(a)) here); slowpoke edits every track together, so all tracks must be cut and retimed alike")
            }
        }
    }

    private static func describe(_ item: OTIOTimeline.Item?) -> String {
        switch item {
        case nil: "nothing"
        case .gap(let duration): "a \(duration.secondsText) s gap"
        case .clip(let source, let rate): "source \(source) at \(rate.readable)x"
        }
    }

    /// Merges neighbours the way slowpoke's timelines are always merged.
    static func merged(_ items: [OTIOTimeline.LabeledItem]) -> ([OTIOTimeline.Item], [String]) {
        var result: [OTIOTimeline.Item] = []
        var labels: [String] = []
        for labeled in items {
            switch (result.last, labeled.item) {
            case let (.gap(a)?, .gap(b)):
                if let sum = try? a + b { result[result.count - 1] = .gap(duration: sum); continue }
            case let (.clip(sa, ra)?, .clip(sb, rb)) where ra == rb && sa.end == sb.start:
                if let joined = try? TimeRange(start: sa.start, end: sb.end) {
                    result[result.count - 1] = .clip(source: joined, rate: ra)
                    continue
                }
            default: break
            }
            result.append(labeled.item)
            labels.append(labeled.label)
        }
        return (result, labels)
    }
}
