import Foundation
import SafeFiles
public import Composition
public import TimePitch
internal import CFFmpeg
import Media

/// `slowpoke export` of a document whose movie has no video (a song, a voice memo): the
/// timeline's audio track, rendered through TimePitch with the same algorithm, renderer and
/// encoder as a movie's audio, written as an audio file. The container comes from the output's
/// extension, and each holds one codec:
///
/// | extension | muxer | codec |
/// |---|---|---|
/// | `.m4a` | ipod (mp4) | AAC |
/// | `.wav` | wav (RF64 past 4 GiB) | PCM: 16-bit, 24-bit or 32-bit float, as the source |
/// | `.flac` | flac | FLAC: 16 or 24 bits, as the source |
/// | `.mp3` | mp3 | MP3 (libmp3lame) |
/// | `.opus` | opus (Ogg) | Opus (libopus; 48, 24, 16, 12 or 8 kHz sources) |
///
/// Lossy codecs keep the source's bit rate when the source is that codec, else use
/// ``audioBitRate``. The output is exactly the timeline's length: WAV and FLAC to the sample,
/// AAC, MP3 and Opus once their decoders drop the priming the container states. When the
/// timeline plays the source untouched and the container holds its codec, the packets are
/// copied instead. The file appears only when complete (``OutputFile``).
public struct AudioExporter {
    public let source: ExportSource
    public let output: URL
    public let settings: TimePitchSettings
    public let force: Bool
    /// Bit rate for AAC, MP3 and Opus made from another codec (as a movie's AAC is).
    public var audioBitRate = 192_000
    /// Keeps the timeline exactly as the document has it (see ``TimelineFitting``).
    public var exactTimeline = false

    /// What an export did.
    public struct Result: Sendable {
        public let output: URL
        public let duration: Time
        public let sampleRate: Int
        /// The channel layout's name, such as `stereo`.
        public let channels: String
        /// libavcodec's name of the output codec, such as `aac` or `pcm_s16le`.
        public let codec: String
        public let audio: AudioHandling
        /// How the timeline was fitted to the copied audio's frames; nil when it was not.
        public let fit: FrameGridFit.Summary?
    }

    /// Prepares to export `source` (a movie with no video) to `output`. Refuses an extension
    /// it does not write before any work.
    public init(source: ExportSource, output: URL, settings: TimePitchSettings, force: Bool) throws(ExportError) {
        guard source.media.primaryVideo == nil else {
            throw .unsupported("\(source.name) has video; export it as a movie (.mp4, .mov, .mkv or .webm)")
        }
        guard Container(audioFile: output.pathExtension) != nil else {
            throw .unsupported("cannot write \(output.lastPathComponent): \(source.name) has no video, so slowpoke exports its audio, as "
                               + Self.extensionList(Container.audioExtensions) + "; give -o a name ending in one of those")
        }
        self.source = source
        self.output = output
        self.settings = settings
        self.force = force
    }

    /// Writes the file. `progress` gets the fraction done and may throw to stop (an interrupt);
    /// `warning` hears what the export leaves out and about damaged source audio. No output
    /// file exists unless this returns.
    public func run(progress: @escaping (Double) throws -> Void = { _ in },
                    warning: @escaping (String) -> Void = { _ in }) throws -> Result {
        try LibAV.load()
        let name = source.name
        guard let stream = source.media.primaryAudio, let edited = source.timeline.track(withID: Int32(stream.index)) else {
            throw ExportError.unsupported("the timeline of \(name) has no audio track")
        }
        let destination = try OutputFile.claim(output, force: force, inputs: source.inputs)
        let display = destination.destination.path
        let ext = output.pathExtension.lowercased()
        let container = Container(audioFile: ext)!
        let input = try InputFormatContext(path: source.movie.path)
        let parameters = input.stream(stream.index).parameters.pointee
        try checkEncoder(container: container, sampleRate: Int(parameters.sample_rate), channels: Int(parameters.ch_layout.nb_channels))
        let choice = AudioCodecChoice(audioFile: container, source: parameters, defaultBitRate: audioBitRate)
        // Audio whose format changes, or whose clock starts again (its recordings' packets
        // overlap at the join), is rendered whole (see AudioTracks).
        let changing = try AudioFormatScan.changes(path: source.movie.path, stream: stream.index) != nil || input.clock != nil
        let copy = ExportSession.playsSourceUntouched(edited.segments, settings: settings) && parameters.codec_id == choice.codec && !changing
        for line in StreamPlan(audioFileOf: input, source: source, container: ext).warnings(movieName: name, input: input) {
            warning(line)
        }

        // Source time 0 of the timeline is the audio's first presentation time.
        let origin = stream.startTime.flatMap { $0.isNumeric && $0 > .zero ? $0 : nil } ?? .zero
        var done = 0.0
        // Smart audio: a song slowed in one passage keeps the rest as it was (AAC into .m4a, PCM
        // into .wav); the file containers cannot drop samples inside a track, so one frame grid.
        let splice = !copy && !changing && settings.semitones == 0 && choice.splices(parameters, container: container)
        let (segments, fit) = TimelineFitting.fit(edited.segments, grid: splice ? TimelineFitting.grid(of: parameters) : nil, exact: exactTimeline, frames: nil)
        let track = try CompositionTrack(trackID: edited.trackID, mediaType: .audio, segments: segments)
        let setup = AudioSetup(movie: source.movie, name: name, segments: track.segments, origin: origin, end: track.duration,
                               settings: settings, bitRate: audioBitRate, container: container, display: display,
                               waiting: { try progress(done) }, warning: warning)
        let audio = try AudioTrackOutput(setup, stream: stream.index, mode: copy ? .copy : splice ? .splice : .render, choice: choice)
        let writer = try MovieWriter(path: destination.openablePath, display: display, container: container)
        try audio.attach(to: writer)
        let chapters = try ChapterList(input, segments: track.segments, origin: origin, display: display)
        if let line = chapters.removedWarning(movieName: name) { warning(line) }
        try chapters.write(into: writer.context)
        av_dict_copy(&writer.context.pointee.metadata, input.pointer.pointee.metadata, 0)
        try writer.writeHeader(videoTimescale: nil)

        // The audio arrives from the render and encode threads; it is written a quarter second
        // of output at a time, which is also how progress is counted.
        let quarters = max(1, Int64((track.duration.seconds * 4).rounded(.up)))
        for quarter in 1...quarters {
            try audio.pump(upTo: quarter, in: AVRational(num: 1, den: 4), writer: writer)
            done = Double(quarter) / Double(quarters)
            try progress(done)
        }
        try audio.finish(writer: writer)
        try writer.finish()
        try destination.commitExport()
        try progress(1)
        return Result(output: destination.destination, duration: track.duration, sampleRate: Int(parameters.sample_rate),
                      channels: Self.describe(parameters.ch_layout), codec: String(cString: LibAVCodec.codecName(choice.codec)),
                      audio: audio.handling, fit: fit)
    }

    /// Refuses a container whose encoder this FFmpeg lacks, or which cannot take the source's
    /// sample rate or channels, naming the extensions that can.
    private func checkEncoder(container: Container, sampleRate: Int, channels: Int) throws {
        let fit = AudioCodecChoice.fit(audioFile: container, sampleRate: sampleRate, channels: channels)
        guard fit != .fits else { return }
        let others = Container.audioExtensions.filter { other in
            other != container.fileExtension && AudioCodecChoice.fit(audioFile: Container(audioFile: other)!, sampleRate: sampleRate, channels: channels) == .fits
        }
        let codec = container.audioFileCodecName
        let source = self.source.name
        let why = switch fit {
        case .noEncoder: "this FFmpeg has no \(codec) encoder"
        case .sampleRate: "\(codec) cannot hold \(source)'s \(sampleRate) Hz audio"
        default: "\(codec) cannot hold \(source)'s \(channels) channels"
        }
        throw ExportError.unsupported("cannot write \(output.lastPathComponent): \(why); export to \(Self.extensionList(others)) instead")
    }

    /// `.m4a, .wav or .flac`.
    private static func extensionList(_ extensions: [String]) -> String {
        let names = extensions.map { "." + $0 }
        return names.count > 1 ? names.dropLast().joined(separator: ", ") + " or " + names.last! : names.joined()
    }

    /// A channel layout's name (`stereo`, `5.1`), or its channel count when it has none.
    private static func describe(_ layout: AVChannelLayout) -> String {
        var layout = layout
        if layout.order == AV_CHANNEL_ORDER_UNSPEC {
            let channels = layout.nb_channels
            layout = AVChannelLayout()
            av_channel_layout_default(&layout, channels)
        }
        var buffer = [UInt8](repeating: 0, count: 64)
        let written = buffer.withUnsafeMutableBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { av_channel_layout_describe(&layout, $0.baseAddress, $0.count) }
        }
        guard written >= 0 else { return "\(layout.nb_channels) channels" }
        return String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
    }
}
