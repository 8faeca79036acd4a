import Foundation
public import Composition

extension OTIO {
    /// Reads an OTIO file's JSON. Throws, naming the item, for anything slowpoke cannot
    /// represent: transitions, nested stacks, trimmed tracks, disabled items, time effects
    /// other than LinearTimeWarp and FreezeFrame, other effects, and references that are neither
    /// external files nor missing (generators, image sequences).
    ///
    /// A warped clip's `source_range` is read as OpenTimelineIO reads it: `start_time` is the
    /// media's in-point, `duration` the clip's length in the track, and a `LinearTimeWarp` of
    /// scalar s makes it consume `duration × s` of media. Files slowpoke wrote before that
    /// convention (timeline `metadata.slowpoke.version` 1) held the media span there instead.
    /// A clip with a `FreezeFrame` effect (or warps whose scalars multiply to 0) is a hold:
    /// the frame at `start_time` stays on screen for `duration`.
    public static func read(_ data: Data) throws(OTIOError) -> OTIOTimeline {
        let root: Any
        do { root = try JSONTreeParser.parse(data) } catch {
            throw .notATimeline("the file is not JSON (\(error)), so it is not an OpenTimelineIO timeline")
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
        let slowpoke = (object["metadata"] as? [String: Any])?["slowpoke"] as? [String: Any]
        let version = slowpoke?["version"] as? NSNumber
        // Exactly 1: `intValue` reads 1.5 as 1 (and 1e300 as Int.min).
        let spans: SourceRangeConvention = version.flatMap { Int(exactly: $0) } == 1 ? .mediaSpan : .trackLength
        let children = stack["children"] as? [Any] ?? []
        var tracks: [OTIOTimeline.Track] = []
        for (index, child) in children.enumerated() {
            guard let track = child as? [String: Any] else { throw .malformed("child \(index + 1) of the top-level stack is not an object") }
            tracks.append(try readTrack(track, position: index + 1, spans: spans))
        }
        return OTIOTimeline(name: name, tracks: tracks, edits: readEdits(slowpoke))
    }

    /// What a warped clip's `source_range.duration` measures.
    enum SourceRangeConvention {
        /// The clip's length in the track (OpenTimelineIO, its adapters, slowpoke from version 2).
        case trackLength
        /// The media it consumes (slowpoke's version 1 files).
        case mediaSpan
    }

    private static func readTrack(_ track: [String: Any], position: Int, spans: SourceRangeConvention) throws(OTIOError) -> OTIOTimeline.Track {
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
            items.append(try readItem(item, where: "item \(index + 1) of \(label)", spans: spans))
        }
        return OTIOTimeline.Track(mediaType: mediaType, name: name, items: items)
    }

    private static func readItem(_ item: [String: Any], where place: String, spans: SourceRangeConvention) throws(OTIOError) -> OTIOTimeline.LabeledItem {
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
        if isGap { return try readGap(item, label: label, exact: exact) }

        let (media, reference) = try mediaReference(of: item, label: label)
        let reel = ((item["metadata"] as? [String: Any])?["cmx_3600"] as? [String: Any])?["reel"] as? String

        let (rangeStart, rangeDuration, field) = try clipRange(of: item, reference: reference, label: label)
        var (start, duration) = (rangeStart, rangeDuration)

        let (scalar, warps, frozen) = try timeEffects(of: item, label: label)
        if frozen || scalar == 0 {
            // slowpoke's exact held time and length, when they still describe the fields.
            if let exact,
               let held = (exact["held"] as? String).flatMap({ try? Time(seconds: Rational(parsing: $0)) }),
               let length = (exact["duration"] as? String).flatMap({ try? Time(seconds: Rational(parsing: $0)) }),
               agrees(held, start), agrees(length, duration) {
                (start, duration) = (held, length)
            }
            guard start >= .zero else { throw .unsupported("\(label) freezes media time \(start.readable), before the movie's first frame") }
            return .init(item: .hold(frame: start, duration: duration), label: label, media: media, reel: reel)
        }
        var rate = warps == 0 ? Rational.one : simplestFraction(scalar)
        // Backwards, `start_time` is the first frame shown: the media ends a frame after it (a
        // frame of the rate its time is written in, or slowpoke's own below).
        let backwards = scalar < 0
        if backwards {
            let timeRate = (((item["source_range"] as? [String: Any])?["start_time"] as? [String: Any])?["rate"] as? NSNumber)?.doubleValue ?? 0
            if timeRate > 0, let frame = try? Time(seconds: ntscRate(timeRate).reciprocal), let end = try? start + frame { start = end }
        }
        // The media the clip consumes: its length in the track times its scalar.
        // (Worked out only when slowpoke's own exact fields below do not apply: a span they
        // state exactly may not fit a timescale when recomputed from the rounded scalar.)
        func mediaSpan() throws(OTIOError) -> Time {
            guard spans == .trackLength else { return duration }
            do { return try duration.multiplied(by: backwards ? rate.negated : rate) } catch {
                throw .unsupported("\(label): its \(field).duration \(duration.readable) at time_scalar \(scalar) is no exact media span: \(error.description)")
            }
        }
        var span: Time?
        if let exact,
           let exactStart = (exact["source_start"] as? String).flatMap({ try? Time(seconds: Rational(parsing: $0)) }),
           let exactSpan = (exact["source_duration"] as? String).flatMap({ try? Time(seconds: Rational(parsing: $0)) }),
           let written = (exact["rate"] as? String).flatMap({ try? Rational(parsing: $0) }), written != .zero,
           (written < .zero) == backwards, let speed = Optional(backwards ? written.negated : written),
           let exactLength = spans == .mediaSpan ? exactSpan : (try? exactSpan.multiplied(by: speed.reciprocal)),
           agrees(backwards ? firstShown(exactStart, exactSpan, exact) : exactStart, backwards ? rangeStart : start), agrees(exactLength, duration),
           abs(written.doubleValue - scalar) <= 1e-9 * max(1, abs(scalar)) {
            (start, span, rate) = (backwards ? (try? exactStart + exactSpan) ?? exactStart : exactStart, exactSpan, written)
        }
        let length: Time
        if let span { length = span } else { length = try mediaSpan() }
        let source: TimeRange
        do {
            // Backwards, `start` stands at the media's end.
            source = backwards ? try TimeRange(start: start - length, duration: length) : try TimeRange(start: start, duration: length)
        } catch {
            throw .unsupported("\(label): its \(field) \(error.description)")
        }
        do { try PlaybackRate.validate(backwards ? rate.negated : rate) } catch {
            throw .unsupported("\(label): \(error.description)")
        }
        return .init(item: .clip(source: source, rate: rate), label: label, media: media, reel: reel)
    }

    /// Where slowpoke wrote a reversed clip's `start_time`: its media's end less the frame it
    /// recorded (`metadata.slowpoke.frame`).
    private static func firstShown(_ start: Time, _ span: Time, _ exact: [String: Any]) -> Time {
        let frame = (exact["frame"] as? String).flatMap { try? Time(seconds: Rational(parsing: $0)) } ?? .zero
        guard let end = try? start + span, let shown = try? end - frame else { return start }
        return max(start, shown)
    }

    /// A gap: its length, slowpoke's exact one when it still describes the field.
    private static func readGap(_ item: [String: Any], label: String, exact: [String: Any]?) throws(OTIOError) -> OTIOTimeline.LabeledItem {
        try refuseEffects(item, label: label)
        guard let range = item["source_range"] as? [String: Any] else { throw .malformed("\(label) has no source_range") }
        var duration = try time(range["duration"], label: label, field: "source_range.duration")
        if let text = exact?["duration"] as? String, let written = try? Time(seconds: Rational(parsing: text)),
           agrees(written, duration) {
            duration = written
        }
        guard duration > .zero else { throw .unsupported("\(label) has no duration") }
        return .init(item: .gap(duration: duration), label: label, media: nil)
    }

    /// The clip's media and its reference object. The media reference: Clip.2 keeps a
    /// dictionary and an active key, Clip.1 one reference.
    private static func mediaReference(of item: [String: Any], label: String) throws(OTIOError)
        -> (media: OTIOTimeline.Media, reference: [String: Any]) {
        let linked: [String: Any]?
        if let references = item["media_references"] as? [String: Any] {
            let key = item["active_media_reference_key"] as? String ?? "DEFAULT_MEDIA"
            linked = references[key] as? [String: Any]
        } else {
            linked = item["media_reference"] as? [String: Any]
        }
        let referenceSchema = linked?["OTIO_SCHEMA"] as? String ?? "(none)"
        let media: OTIOTimeline.Media
        if referenceSchema.hasPrefix("MissingReference.") {
            media = .missing
        } else if referenceSchema.hasPrefix("ExternalReference."), let url = linked?["target_url"] as? String, !url.isEmpty {
            media = .file(url)
        } else {
            throw .unsupported("\(label) has a \(schemaName(referenceSchema)) media reference; slowpoke reads an ExternalReference to the movie file, or a MissingReference to a movie named on import")
        }
        return (media, linked ?? [:])
    }

    /// The clip's time effects: LinearTimeWarp scalars multiply (`warps` counts them), a
    /// FreezeFrame freezes; anything else cannot be represented.
    private static func timeEffects(of item: [String: Any], label: String) throws(OTIOError) -> (scalar: Double, warps: Int, frozen: Bool) {
        var scalar = 1.0
        var warps = 0
        var frozen = false
        for (index, effect) in (item["effects"] as? [Any] ?? []).enumerated() {
            let effect = effect as? [String: Any] ?? [:]
            let effectSchema = effect["OTIO_SCHEMA"] as? String ?? "(none)"
            let effectName = effect["effect_name"] as? String ?? ""
            if effectSchema.hasPrefix("FreezeFrame.") {
                frozen = true
                continue
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
        return (scalar, warps, frozen)
    }

    /// The clip's range in its media (`source_range`, else the reference's `available_range`),
    /// counted from the movie's first frame, and which field gave it.
    private static func clipRange(of item: [String: Any], reference: [String: Any], label: String) throws(OTIOError)
        -> (start: Time, duration: Time, field: String) {
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
        let duration = try time(rangeObject["duration"], label: label, field: "\(field).duration")
        guard duration > .zero else { throw .unsupported("\(label) has an empty or negative \(field)") }
        // Media time counts from the reference's available_range start (a camera's start
        // timecode, say); slowpoke's source time counts from the movie's first frame.
        if let available = reference["available_range"] as? [String: Any], available["start_time"] != nil {
            let origin = try time(available["start_time"], label: label, field: "media reference's available_range.start_time")
            do { start = try start - origin } catch {
                throw .unsupported("\(label): its \(field) cannot be placed in the movie: \(error.description)")
            }
        }
        return (start, duration, field)
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

    /// A `RationalTime.1` as an exact time: whole values over whole rates exactly, other doubles
    /// as their simplest fraction within 1e-9.
    private static func time(_ any: Any?, label: String, field: String) throws(OTIOError) -> Time {
        guard let object = any as? [String: Any],
              let value = (object["value"] as? NSNumber)?.doubleValue,
              let rate = (object["rate"] as? NSNumber)?.doubleValue, value.isFinite, rate.isFinite, rate > 0
        else { throw .malformed("\(label) has no valid RationalTime for \(field)") }
        do {
            let seconds = try simplestFraction(value) / ntscRate(rate)
            return try Time(seconds: seconds)
        } catch {
            throw .unsupported("\(label): \(field) (\(value) at rate \(rate)) cannot be an exact time: \(error.description)")
        }
    }

    /// A rate as a fraction, with the NTSC rates that tools write rounded (23.976, 29.97,
    /// 59.94, 119.88, 239.76, within 0.0005) read as the exact rates they stand for
    /// (24000/1001 …): a clip's last frame otherwise ends microseconds past the movie's end.
    static func ntscRate(_ rate: Double) -> Rational {
        for whole in [24, 30, 48, 60, 120, 240] {
            let ntsc = Double(whole) * 1000 / 1001
            if abs(rate - ntsc) < 0.0005 && rate != ntsc, let exact = try? Rational(Int64(whole) * 1000, 1001) { return exact }
        }
        return simplestFraction(rate)
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
}
