/// Facts about a movie, read once by `slowpoke open` (through libavformat, in `Export`) and
/// kept in the project document. Plain data: no C types.
public struct MediaInfo: Sendable, Hashable, Codable {
    /// Short container name, as libavformat calls it (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`, `wav`).
    public var container: String
    /// Human name of the container (`QuickTime / MOV`).
    public var containerLongName: String?
    /// The container's duration, when it states one.
    public var duration: Time?
    public var bitRate: Int64?
    public var fileSize: Int64
    public var streams: [StreamInfo]
    /// The movie's `com.apple.quicktime.full-frame-rate-playback-intent` metadata, when it has
    /// it: iPhone high-frame-rate movies carry it (1: play every frame, 0: play the slow-motion
    /// adjustment). Nil when the movie has no such key.
    public var fullFrameRatePlaybackIntent: String?

    /// The movie's vendor metadata keys (Apple's `com.apple.quicktime.location.ISO6709`, `make`,
    /// `model`, `software`, `content.identifier` …; Android's `com.android.capture.fps`,
    /// `com.android.version`) with their values, as libavformat reads them; nil when it has none.
    /// Exports keep them (see `MovieWriter`).
    public var quickTimeMetadata: [String: String]?

    /// The prefixes of the keys ``quickTimeMetadata`` holds.
    public static let vendorKeyPrefixes = ["com.apple.quicktime.", "com.android."]

    /// The frame rate the camera captured at, where the movie says (Android's
    /// `com.android.capture.fps`): a 240 fps capture stored for 30 fps playback plays at 1/8 speed.
    public var captureFrameRate: Double? {
        // Matroska keeps tag names in capitals (COM.ANDROID.CAPTURE.FPS, after a remux to mkv).
        quickTimeMetadata?.first { $0.key.lowercased() == "com.android.capture.fps" }
            .flatMap { Double($0.value) }.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
    }

    /// Where the file's clock starts again (two transport-stream recordings joined with `cat`),
    /// as times into the movie on the one running clock every frame is placed by; nil when it
    /// runs on.
    public var clockRestarts: [Time]?

    /// Where packets whose timestamp alone jumped far away and back (a damaged timestamp: one
    /// flipped bit put a frame of a 2 s recording 2982 s later) would have been, as times into
    /// the movie; every reader reads them there, from their neighbours' times. Nil when there
    /// are none.
    public var damagedTimestamps: [Time]?

    public static let fullFrameRatePlaybackIntentKey = "com.apple.quicktime.full-frame-rate-playback-intent"

    public init(container: String, containerLongName: String?, duration: Time?, bitRate: Int64?,
                fileSize: Int64, streams: [StreamInfo]) {
        self.container = container
        self.containerLongName = containerLongName
        self.duration = duration
        self.bitRate = bitRate
        self.fileSize = fileSize
        self.streams = streams
    }

    /// A transport stream's programs (broadcast services), in file order; nil for a file with
    /// fewer than two.
    public var programs: [Program]?
    /// The program the document plays (``Program/id``): only its streams are read and exported.
    /// Nil: every stream of the file.
    public var program: Int?

    /// One program of a transport stream: its id (program_number), service name and streams.
    public struct Program: Sendable, Hashable, Codable {
        public let id: Int
        public let name: String?
        public let streams: [Int]

        public init(id: Int, name: String?, streams: [Int]) {
            self.id = id
            self.name = name
            self.streams = streams
        }

        /// `program 1 (ZDF)`.
        public var label: String { "program \(id)" + (name.map { " (\($0))" } ?? "") }
    }

    /// Whether stream `index` belongs to the program the document plays (every stream does
    /// when it plays the whole file).
    public func isInProgram(_ index: Int) -> Bool {
        guard let program, let chosen = programs?.first(where: { $0.id == program }) else { return true }
        return chosen.streams.contains(index)
    }

    /// These facts with program `id` played instead; nil when the movie has no such program.
    public func playing(program id: Int) -> MediaInfo? {
        guard programs?.contains(where: { $0.id == id }) ?? false else { return nil }
        var chosen = self
        chosen.program = id
        return chosen
    }

    /// Why program `id` cannot be played, after "<movie> has no program N: ", or nil when it can.
    public func missingProgram(_ id: Int) -> String? {
        guard let programs else { return "it has no programs (a transport stream with several broadcast services has)" }
        return programs.contains { $0.id == id } ? nil : "its programs are " + programs.map { String($0.id) }.joined(separator: ", ")
    }

    /// The program a document of this movie plays by default: the first with a video stream.
    public var defaultProgram: Int? {
        programs?.first { $0.streams.contains { index in streams.contains { $0.index == index && $0.kind == .video && !$0.isAttachedPicture } } }?.id
    }

    /// The stream that the composition's video track plays: the first video stream of the
    /// program that is not a cover picture.
    public var primaryVideo: StreamInfo? { streams.first { $0.kind == .video && !$0.isAttachedPicture && isInProgram($0.index) } }
    /// The stream that the composition's audio track plays: the first of the program that can be decoded.
    public var primaryAudio: StreamInfo? { streams.first { $0.isDecodableAudio && isInProgram($0.index) } }

    /// The source for a new composition: the primary video and audio streams, both over the
    /// movie's presentation range `[0, D)`, where D is the video's exact length (frame count ×
    /// frame durations), or the audio's for an audio-only file. Source time 0 is the primary
    /// stream's first presentation time. Track IDs are stream indexes.
    public func asset(name: String) throws(CompositionError) -> Asset {
        guard let main = primaryVideo ?? primaryAudio else {
            throw .noMediaTracks("\(name) has neither a video nor an audio track")
        }
        guard let length = main.presentationDuration, length.isNumeric, length > .zero else {
            throw .noMediaTracks("\(name) has a \(main.kind.rawValue) track with no frames")
        }
        let range = try TimeRange(start: .zero, duration: length)
        return Asset(tracks: [primaryVideo, primaryAudio].compactMap { stream in
            stream.map { Asset.Track(trackID: Int32(clamping: $0.index), mediaType: $0.kind == .video ? .video : .audio, timeRange: range) }
        })
    }

    /// The first number in these facts that no movie can have, as the field's path and what is
    /// wrong with it (`streams[0].index`, `is 4294967296; a stream index is 0 to 2147483647`),
    /// or nil. A document is read by strangers' tools and hand edits: its numbers are checked
    /// once, when it is read, so that no later conversion (a stream index to 32 bits) can trap.
    public func outOfRangeField() -> (field: String, problem: String)? {
        func check(_ value: Int?, _ range: ClosedRange<Int>, _ what: String) -> String? {
            guard let value, !range.contains(value) else { return nil }
            return "is \(value); \(what) is \(range.lowerBound) to \(range.upperBound)"
        }
        if fileSize < 0 { return ("fileSize", "is \(fileSize); a size is not negative") }
        if let bitRate, bitRate < 0 { return ("bitRate", "is \(bitRate); a bit rate is not negative") }
        let int32 = 0...Int(Int32.max)
        for (i, stream) in streams.enumerated() {
            let checks: [(String, String?)] = [("index", check(stream.index, int32, "a stream index"))]
                + StreamInfo.checkedCounts.map { ($0.field, check(stream[keyPath: $0.path], $0.range, $0.what)) }
                + [("bitRate", stream.bitRate.flatMap { $0 < 0 ? "is \($0); a bit rate is not negative" : nil }),
                   ("rotation", stream.rotation.flatMap { StreamInfo.isPossible(rotation: $0) ? nil : "is \($0); a rotation is -360 to 360 degrees" })]
            if case let (field, problem)? = checks.first(where: { $0.1 != nil }) { return ("streams[\(i)].\(field)", problem!) }
            if streams[..<i].contains(where: { $0.index == stream.index }) {
                return ("streams[\(i)].index", "is \(stream.index), the index of an earlier stream too")
            }
        }
        return nil
    }

    /// These facts with every number that ``outOfRangeField()`` would refuse left out, as
    /// unknown: a damaged movie's headers may claim an audio stream of 0 Hz or no channels, and
    /// a document made from them must still be one slowpoke can read.
    public func withoutImpossibleNumbers() -> MediaInfo {
        var result = self
        result.fileSize = max(0, fileSize)
        if let bitRate, bitRate < 0 { result.bitRate = nil }
        for i in result.streams.indices {
            for count in StreamInfo.checkedCounts {
                if let value = result.streams[i][keyPath: count.path], !count.range.contains(value) { result.streams[i][keyPath: count.path] = nil }
            }
            if let bitRate = result.streams[i].bitRate, bitRate < 0 { result.streams[i].bitRate = nil }
            if let rotation = result.streams[i].rotation, !StreamInfo.isPossible(rotation: rotation) { result.streams[i].rotation = nil }
        }
        return result
    }
}

extension StreamInfo {
    /// Audio whose codec, sample rate and channel count are known: a damaged stream's header
    /// may name none of them (see ``MediaInfo/withoutImpossibleNumbers()``).
    public var isDecodableAudio: Bool { kind == .audio && codec != "none" && sampleRate != nil && channels != nil }

    /// The counts a document checks, each with the values a movie can have.
    static var checkedCounts: [(field: String, path: WritableKeyPath<StreamInfo, Int?>, range: ClosedRange<Int>, what: String)] {
        [("width", \.width, 0...65535, "a width"), ("height", \.height, 0...65535, "a height"),
         ("frameCount", \.frameCount, 0...Int(Int32.max), "a frame count"),
         ("sampleRate", \.sampleRate, 1...Int(Int32.max), "a sample rate"), ("channels", \.channels, 1...65535, "a channel count")]
    }

    static func isPossible(rotation: Double) -> Bool { rotation.isFinite && abs(rotation) <= 360 }
}

/// One stream of a movie.
public struct StreamInfo: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Codable {
        case video, audio, subtitle, data, attachment, unknown
    }

    public enum FrameRateMode: String, Sendable, Codable {
        /// Every frame lasts the same time.
        case constant
        /// Frame durations differ (phone footage often does).
        case variable
    }

    public var index: Int
    public var kind: Kind
    /// Codec short name (`h264`, `aac`).
    public var codec: String
    public var codecLongName: String?
    public var profile: String?
    /// The stream's tick, as an exact fraction of a second.
    public var timeBase: Rational
    /// The first presentation time, in seconds from the container's zero.
    public var startTime: Time?
    /// The stream's own duration as the container states it.
    public var duration: Time?
    /// The exact length measured from the packets: last presentation end minus first
    /// presentation start.
    public var presentationDuration: Time?
    public var bitRate: Int64?
    public var language: String?
    public var handlerName: String?

    // Video
    public var width: Int?
    public var height: Int?
    public var pixelFormat: String?
    /// Degrees of clockwise rotation that a player applies when showing the picture.
    public var rotation: Double?
    public var sampleAspectRatio: Rational?
    public var averageFrameRate: Rational?
    /// libavformat's `r_frame_rate`: the lowest rate that represents every timestamp.
    public var realFrameRate: Rational?
    public var frameCount: Int?
    public var frameRateMode: FrameRateMode?
    /// For interlaced video, which field comes first: `topFirst` or `bottomFirst`; nil for
    /// progressive or unknown.
    public var fieldOrder: String?
    /// When the picture size changes mid-file: every size with the time it starts (the first at
    /// the stream's start); nil when it keeps one.
    public var sizeChanges: [VideoSizeChange]?
    public var colorPrimaries: String?
    public var colorTransfer: String?
    public var colorSpace: String?
    public var colorRange: String?
    public var isAttachedPicture: Bool

    // Audio
    public var sampleRate: Int?
    public var channels: Int?
    public var channelLayout: String?
    public var sampleFormat: String?
    /// When the stream's format changes mid-file: every format with the time it starts (the
    /// first at the stream's start); nil when it keeps one format.
    public var formatChanges: [AudioFormatChange]?

    public init(index: Int, kind: Kind, codec: String, timeBase: Rational) {
        self.index = index
        self.kind = kind
        self.codec = codec
        self.timeBase = timeBase
        self.isAttachedPicture = false
    }
}
