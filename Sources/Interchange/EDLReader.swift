import Foundation
public import Composition

/// Reads a CMX 3600 edit decision list into the timeline an OTIO import replays: one track
/// of clips (unlinked media, as OpenTimelineIO's CMX 3600 adapter leaves them: name the movie
/// with `--movie`), with gaps where the record times leave room, time warps from `M2` lines
/// and freeze frames from `M2` at speed 0.
///
/// Read here rather than through OpenTimelineIO's adapter because the adapter drops a reverse
/// at normal speed (`M2 … -030.0 …` on an event whose source and record lengths agree) and
/// plays it forwards. A reversed event, as EDLs give it, starts at its source in (the first
/// frame shown) and runs backwards from there.
///
///     001  clip  V  C  00:00:02:00 00:00:04:00 01:00:02:00 01:00:04:00
///     M2   clip       -030.0      00:00:02:00          frame 60 down to frame 1, over 2 s
public enum EDL {
    /// The timeline of `text`, whose timecodes count frames of `frameRate` (the movie's rate:
    /// 30000/1001 counts 30 a second; `FCM: DROP FRAME` or `;` in a timecode drops frames).
    public static func read(_ text: String, frameRate: Rational) throws(OTIOError) -> OTIOTimeline {
        guard frameRate > .zero, frameRate.doubleValue <= 1000 else { throw .unsupported("the EDL needs a frame rate from 1 to 1000, not \(frameRate.readable)") }
        let counted = Int64(frameRate.doubleValue.rounded())
        var dropFrame = false
        var events: [Event] = []
        for (number, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard let first = fields.first else { continue }
            let place = "line \(number + 1) of the EDL"
            if first.uppercased() == "FCM:" { dropFrame = !line.uppercased().contains("NON-DROP"); continue }
            if first.uppercased() == "M2" {
                // M2 reel speed timecode: the reel name may hold spaces, so read from the end.
                guard fields.count >= 4, let speed = Double(fields[fields.count - 2]), speed.isFinite, abs(speed) < 1e6 else {
                    throw .malformed("\(place) is an M2 line without a speed and a timecode: \(line)")
                }
                guard let event = events.indices.last else { throw .malformed("\(place) is an M2 line before any event") }
                events[event].speed = speed
                continue
            }
            guard let index = Int(first), fields.count >= 8 else { continue }  // titles, comments
            let timecodes = fields.suffix(4)
            let transition = fields[3].uppercased()
            guard transition == "C" else {
                throw .unsupported("event \(index) (\(place)) is a \(transition == "D" ? "dissolve" : "\(transition) transition"); slowpoke reads cuts only")
            }
            var times: [Time] = []
            for code in timecodes { times.append(try time(code, counted: counted, rate: frameRate, dropFrame: dropFrame, place: place)) }
            let track = fields[2].uppercased()
            events.append(Event(number: index, reel: fields[1], isVideo: track.hasPrefix("V") || track == "B",
                                sourceIn: times[0], recordIn: times[2], recordOut: times[3], place: place))
        }
        let video = events.filter(\.isVideo)
        let chosen = (video.isEmpty ? events : video).sorted { $0.recordIn < $1.recordIn }
        guard let origin = chosen.first?.recordIn else { throw .notATimeline("the file has no CMX 3600 events (lines such as 001  reel  V  C  00:00:00:00 …)") }
        var items: [OTIOTimeline.LabeledItem] = []
        var position = origin
        let frame: Time
        do { frame = try Time(seconds: frameRate.reciprocal) } catch { throw .unsupported("the EDL's frame rate \(frameRate.readable): \(error.description)") }
        for event in chosen {
            let label = "event \(event.number) (\(event.place))"
            do {
                guard event.recordIn >= position else {
                    throw OTIOError.unsupported("\(label) starts at record \(event.recordIn.readable), inside the event before it; slowpoke reads one layer of cuts")
                }
                if event.recordIn > position {
                    items.append(.init(item: .gap(duration: try event.recordIn - position), label: "the gap before \(label)", media: nil))
                }
                let length = try event.recordOut - event.recordIn
                guard length > .zero else { throw OTIOError.unsupported("\(label) has no record length") }
                let scalar = try event.speed.map { speed throws(CompositionError) in try OTIO.simplestFraction(speed) / frameRate } ?? .one
                if scalar == .zero {
                    items.append(.init(item: .hold(frame: event.sourceIn, duration: length), label: label, media: .missing, reel: event.reel))
                } else {
                    let span = try length.multiplied(by: scalar < .zero ? scalar.negated : scalar)
                    // Backwards from the source in, the first frame shown.
                    let source = scalar < .zero ? try TimeRange(start: event.sourceIn + frame - span, duration: span)
                        : try TimeRange(start: event.sourceIn, duration: span)
                    items.append(.init(item: .clip(source: source, rate: scalar), label: label, media: .missing, reel: event.reel))
                }
                position = event.recordOut
            } catch let error as OTIOError {
                throw error
            } catch {
                throw .unsupported("\(label): \(error)")
            }
        }
        return OTIOTimeline(name: "EDL", tracks: [.init(mediaType: video.isEmpty ? .audio : .video, name: video.isEmpty ? "A1" : "V1", items: items)])
    }

    private struct Event {
        let number: Int
        let reel: String
        let isVideo: Bool
        let sourceIn: Time
        let recordIn: Time
        let recordOut: Time
        let place: String
        var speed: Double?
    }

    /// `HH:MM:SS:FF` (or `;` before the frames, drop frame) as the time of its frame.
    static func time(_ code: String, counted: Int64, rate: Rational, dropFrame: Bool, place: String) throws(OTIOError) -> Time {
        let parts = code.split(whereSeparator: { $0 == ":" || $0 == ";" || $0 == "." }).compactMap { Int64($0) }
        guard parts.count == 4, parts.allSatisfy({ $0 >= 0 }), parts[1] < 60, parts[2] < 60, parts[3] < counted, parts[0] < 100 else {
            throw .malformed("\(place) has \(code) where a timecode HH:MM:SS:FF (frames below \(counted)) belongs")
        }
        let (h, m, s, f) = (parts[0], parts[1], parts[2], parts[3])
        var frames = ((h * 60 + m) * 60 + s) * counted + f
        if dropFrame || code.contains(";") {
            // Drop-frame counting skips the first frame numbers of every minute but each tenth.
            let minutes = h * 60 + m
            frames -= (counted / 15) * (minutes - minutes / 10)
        }
        do { return try Time(seconds: Rational(frames) / rate) } catch {
            throw .unsupported("\(place): timecode \(code) is no exact time: \(error.description)")
        }
    }
}
