import Foundation
import SafeFiles
public import Composition
public import TimePitch
import Media

/// `slowpoke stretch`: one audio file played at a rate (and optionally shifted in pitch),
/// written as WAV or FLAC.
public struct StretchJob: Sendable {
    public let input: URL
    public let output: URL
    public let rate: Rational
    public let settings: TimePitchSettings
    public let force: Bool

    /// What a finished job did.
    public struct Result: Sendable {
        public let inputFrames: Int64
        public let outputFrames: Int64
        public let format: AudioFormat
        public let output: URL
    }

    /// Checks the rate and the output's type before anything is opened or created.
    public init(input: URL, output: URL, rate: Rational, settings: TimePitchSettings, force: Bool) throws {
        try PlaybackRate.validate(rate)
        try ExportError.requireExtension(of: output, in: AudioFileWriter.extensions, "slowpoke stretch writes")
        self.input = input
        self.output = output
        self.rate = rate
        self.settings = settings
        self.force = force
    }

    /// Runs the job. `progress` gets the fraction done and may throw to stop it (for an
    /// interrupt); `warning` hears about damaged input. No output file exists unless this
    /// returns.
    public func run(started: (_ inputSeconds: Double) -> Void = { _ in },
                    progress: @escaping (Double) throws -> Void = { _ in },
                    warning: @escaping (String) -> Void = { _ in }) throws -> Result {
        let container = Container(audioFile: output.pathExtension)!  // checked by init
        let destination = try OutputFile.claim(output, force: force, inputs: [input])
        // A plain PCM or float WAV is read natively, so that libav's codec libraries never load;
        // anything else goes through libav.
        let reader: any AudioFileSource = try WAVFileReader.open(url: input) ?? AudioFileReader(url: input)
        reader.onWarning = warning
        if let line = (reader as? AudioFileReader)?.formatChangeWarning { warning(line) }
        let frames = try reader.exactLength()
        guard frames > 0 else { throw ExportError.notMedia(path: input.path, reason: "its audio stream is empty") }
        started(Double(frames) / Double(reader.format.sampleRate))
        let depth: AudioFileWriter.Depth = switch reader.sampleFormatName {
        case "u8", "u8p", "s16", "s16p": .int16
        case "s32", "s32p": .int24
        default: container.isWAV ? .float32 : .int24
        }
        // WAV is written natively too; FLAC through libav.
        let write: ([[Float]], Int) throws -> Void, finish: () throws -> Void
        if container.isWAV {
            let writer = try WAVFileWriter(output: destination, format: reader.format, depth: depth)
            (write, finish) = (writer.write, writer.finish)
        } else {
            let writer = try AudioFileWriter(output: destination, format: reader.format, depth: depth)
            (write, finish) = (writer.write, writer.finish)
        }
        let length = Time(value: frames, timescale: Int32(reader.format.sampleRate))
        let segment = try CompositionTrackSegment(
            source: TimeRange(start: .zero, duration: length),
            target: TimeRange(start: .zero, duration: length.multiplied(by: rate.reciprocal)))
        let renderer = TimelineRenderer(format: reader.format, settings: settings)
        renderer.ditherTimeDomainInput = !reader.hasCoarseQuantisation
        renderer.onWarning = { [input] in warning("\(input.path): \($0)") }
        // Sample conversion and writing run on a second core, leaving this one to Rubber Band.
        let output = BackgroundConsumer<(samples: [[Float]], count: Int)>(
            name: "slowpoke stretch writer", consume: { try write($0.samples, $0.count) },
            finished: finish)
        // The renderer hands over whatever Rubber Band returned, often a few hundred frames; they
        // go to the writer in batches of at least 8192, so its thread wakes rarely.
        var batch = [[Float]](repeating: [], count: reader.format.channels)
        func send() throws {
            guard !batch[0].isEmpty else { return }
            try output.push((batch, batch[0].count))
            batch = [[Float]](repeating: [], count: reader.format.channels)
        }
        // Decoding runs ahead on another core: Rubber Band's study pass leaves that core idle.
        let source = PrefetchingAudioSource(reader, warning: warning)
        let written = try renderer.render([segment], from: source, to: { samples, count in
            if batch[0].isEmpty && count >= 8192 {
                try output.push((samples, count))
                return
            }
            for c in batch.indices {
                if batch[c].isEmpty { batch[c].reserveCapacity(max(16_384, count)) }
                batch[c].append(contentsOf: samples[c][0..<count])
            }
            if batch[0].count >= 8192 { try send() }
        }, progress: progress)
        try send()
        try output.finish()
        return Result(inputFrames: frames, outputFrames: written, format: reader.format, output: destination.destination)
    }
}
