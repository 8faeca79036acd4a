import CFFmpeg
import Composition
@testable import Export
import Foundation
import SafeFiles
import TestSupport
import Testing
import TimePitch
import Media


@Suite struct WAVFileWriterTests {
    /// A signal that exercises the conversions: full-scale noise past ±1, exact halfway points
    /// between 16-bit and 24-bit steps (rounding to even), and the extremes. (Not NaN,
    /// infinities or |x| >= 65536: libav's SIMD and C conversions disagree there, so which
    /// one it uses depends on the channel count.)
    func signal(frames: Int, channel: Int) -> [Float] {
        var g = SplitMix64(state: UInt64(channel + 1))
        let special: [Float] = [0, -0, 1, -1, 1.5, -1.5, 2, -2, 0.5 / 32768, 1.5 / 32768, -0.5 / 32768, -2.5 / 32768,
                                32767.5 / 32768, -32768.5 / 32768, 0.5 / 8_388_608, 2.5 / 8_388_608, -1.5 / 8_388_608,
                                1 - 1 / 16_777_216, Float.leastNonzeroMagnitude, 1000, -1000]
        return (0..<frames).map { i in i < special.count ? special[i] : Float(g.unit() * 2.4 - 1.2) }
    }

    /// Writes `frames` of the test signal with `makeWriter`'s writer, in uneven blocks.
    func write(frames: Int, channels: Int, through write: ([[Float]], Int) throws -> Void, finish: () throws -> Void) throws {
        let planes = (0..<channels).map { signal(frames: frames, channel: $0) }
        var position = 0, step = 0
        while position < frames {
            let n = min([1000, 1, 4096, 77_777][step % 4], frames - position)
            step += 1
            try write(planes.map { Array($0[position..<(position + n)]) }, n)
            position += n
        }
        try finish()
    }

    /// What ffprobe says of the stream, in the fields that matter.
    func probe(_ url: URL) throws -> [String: String] {
        let json = try TestSupport.ffprobe(url, ["-show_streams"])
        let stream = try #require((json["streams"] as? [[String: Any]])?.first)
        var fields: [String: String] = [:]
        for key in ["codec_name", "sample_fmt", "sample_rate", "channels", "channel_layout", "bits_per_sample",
                    "bits_per_raw_sample", "duration_ts", "codec_tag"] {
            fields[key] = stream[key].map { "\($0)" } ?? "-"
        }
        return fields
    }

    /// The stream's samples as stored, copied out by ffmpeg.
    func raw(_ url: URL, depth: AudioFileWriter.Depth) throws -> Data {
        let out = url.deletingPathExtension().appendingPathExtension("raw")
        let muxer = switch depth { case .int16: "s16le"; case .int24: "s24le"; case .float32: "f32le" }
        let copied = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", url.path, "-c:a", "copy", "-f", muxer, "-y", out.path])
        guard copied.status == 0 else { throw WAVTestFailure(message: copied.stderr) }
        return try Data(contentsOf: out)
    }

    func writeBoth(_ folder: TemporaryFolder, rate: Int, channels: Int, depth: AudioFileWriter.Depth, frames: Int,
                   riffLimit: Int64 = WAVFileWriter.riffLimit) throws -> (native: URL, libav: URL) {
        let format = AudioFormat(sampleRate: rate, channels: channels)
        let native = folder.file("native.wav"), libav = folder.file("libav.wav")
        let w = try WAVFileWriter(output: try OutputFile(native, replacing: true), format: format, depth: depth, riffLimit: riffLimit)
        try write(frames: frames, channels: channels, through: w.write, finish: w.finish)
        let a = try AudioFileWriter(output: try OutputFile(libav, replacing: true), format: format, depth: depth)
        try write(frames: frames, channels: channels, through: a.write, finish: a.finish)
        return (native, libav)
    }

    static let layouts = [(48000, 1), (44100, 2), (96000, 2), (48000, 3), (48000, 6), (44100, 8), (48000, 9), (48000, 16)]

    /// The same audio through libav's writer and the native one: ffprobe sees the same stream,
    /// and the stored samples are identical.
    @Test(arguments: [AudioFileWriter.Depth.int16, .int24, .float32], layouts)
    func writesWhatLibavWrites(depth: AudioFileWriter.Depth, layout: (rate: Int, channels: Int)) throws {
        let folder = try TemporaryFolder("wav-write")
        let frames = layout.rate / 5 + 1
        let (native, libav) = try writeBoth(folder, rate: layout.rate, channels: layout.channels, depth: depth, frames: frames)
        #expect(try folder.listing() == ["libav.wav", "native.wav"])
        let probed = try probe(native)
        #expect(probed == (try probe(libav)))
        #expect(probed["duration_ts"] == "\(frames)")
        #expect(try raw(native, depth: depth) == (try raw(libav, depth: depth)))
        // libav's reader, which slowpoke uses on a FLAC, and the native one agree on it too.
        let a = try WAVTestFiles.readAll(try AudioFileReader(url: native), frames: frames)
        let b = try WAVTestFiles.readAll(try #require(try WAVFileReader.open(url: native)), frames: frames)
        #expect(WAVTestFiles.bits(a) == WAVTestFiles.bits(b))
    }

    /// The fmt chunk's fields are libav's, byte for byte.
    @Test(arguments: [AudioFileWriter.Depth.int16, .int24, .float32], layouts)
    func theFormatChunkIsLibavs(depth: AudioFileWriter.Depth, layout: (rate: Int, channels: Int)) throws {
        let folder = try TemporaryFolder("wav-write")
        let (native, libav) = try writeBoth(folder, rate: layout.rate, channels: layout.channels, depth: depth, frames: 10)
        func fmt(_ url: URL) throws -> [UInt8] {
            let bytes = try WAVTestFiles.data(url)
            let at = try #require(WAVTestFiles.chunk("fmt ", in: bytes))
            let size = Int(bytes[at + 4]) | Int(bytes[at + 5]) << 8
            return Array(bytes[at..<(at + 8 + size)])
        }
        #expect(try fmt(native) == (try fmt(libav)))
    }

    /// Where libav disagrees with itself, samples clip and NaN is silence.
    @Test func nonFiniteSamplesClipAndNaNIsSilence() {
        #expect(WAVFileWriter.int16(.nan) == 0 && WAVFileWriter.int32(.nan) == 0)
        #expect(WAVFileWriter.int16(.infinity) == .max && WAVFileWriter.int32(.infinity) == .max)
        #expect(WAVFileWriter.int16(-.infinity) == .min && WAVFileWriter.int32(-.infinity) == .min)
        #expect(WAVFileWriter.int16(1e30) == .max && WAVFileWriter.int32(-1e30) == .min)
    }

    /// The channel masks written are those of libav's default layouts, checked against
    /// `av_channel_layout_default`.
    @Test func channelMasksAreLibavsDefaults() {
        for n in 1...32 {
            var layout = AVChannelLayout()
            av_channel_layout_default(&layout, Int32(n))
            let native = layout.order == AV_CHANNEL_ORDER_NATIVE
            let mask = native && layout.u.mask < 0x40000 ? UInt32(layout.u.mask) : 0
            let mine = WAVFileWriter.defaultChannelMask(n)
            #expect(mine.native == native && mine.mask == mask, "\(n) channels")
            av_channel_layout_uninit(&layout)
        }
    }

    /// Past the RIFF size limit (lowered here) the file becomes RF64, which ffmpeg decodes to
    /// the same samples as the plain file. 24-bit mono with an odd frame count has a pad byte.
    @Test(arguments: [(AudioFileWriter.Depth.int16, 2), (.int24, 1), (.float32, 2)])
    func pastTheLimitTheFileIsRF64(depth: AudioFileWriter.Depth, channels: Int) throws {
        let folder = try TemporaryFolder("wav-rf64")
        let frames = 48001
        let (native, libav) = try writeBoth(folder, rate: 48000, channels: channels, depth: depth, frames: frames, riffLimit: 100_000)
        let bytes = try WAVTestFiles.data(native)
        #expect(String(decoding: bytes[0..<4], as: UTF8.self) == "RF64")
        #expect(String(decoding: bytes[12..<16], as: UTF8.self) == "ds64")
        var expected = try probe(libav)
        expected["codec_tag"] = nil
        var probed = try probe(native)
        probed["codec_tag"] = nil
        #expect(probed == expected)
        #expect(try raw(native, depth: depth) == (try raw(libav, depth: depth)))
        #expect(try TestSupport.decodeAudio(native).map(\.bitPattern) == (try TestSupport.decodeAudio(libav)).map(\.bitPattern))
        // The native reader understands it as well.
        let reader = try #require(try WAVFileReader.open(url: native))
        #expect(reader.exactLength() == Int64(frames))
        let a = try WAVTestFiles.readAll(try AudioFileReader(url: libav), frames: frames)
        #expect(WAVTestFiles.bits(try WAVTestFiles.readAll(reader, frames: frames)) == WAVTestFiles.bits(a))
        // Under the limit, the same writer writes RIFF with the pad byte counted.
        let other = try TemporaryFolder("wav-rf64")
        let plain = try WAVTestFiles.data(try writeBoth(other, rate: 48000, channels: channels, depth: depth, frames: frames).native)
        #expect(String(decoding: plain[0..<4], as: UTF8.self) == "RIFF")
        #expect(plain.count % 2 == 0 && Int(plain[4]) | Int(plain[5]) << 8 | Int(plain[6]) << 16 == plain.count - 8)
    }

    /// A write that fails (a full disk) says which output, and leaves no file behind.
    @Test func aFullDiskIsAnErrorAndLeavesNothing() throws {
        let folder = try TemporaryFolder("wav-write")
        let destination = folder.file("out.wav")
        do {
            let output = try OutputFile(destination, replacing: false)
            // The temporary file's descriptor becomes /dev/full, where every write fails with ENOSPC.
            let full = open("/dev/full", O_WRONLY)
            #expect(full >= 0 && dup2(full, output.descriptor) == output.descriptor)
            close(full)
            let writer = try WAVFileWriter(output: output, format: AudioFormat(sampleRate: 48000, channels: 2), depth: .int16)
            let second = [[Float]](repeating: [Float](repeating: 0.25, count: 48000), count: 2)
            #expect(throws: ExportError.cannotWrite(path: destination.path, reason: "No space left on device")) {
                for _ in 0..<20 { try writer.write(second, count: 48000) }
                try writer.finish()
            }
        }
        #expect(try folder.listing() == [])
        // A temporary file that cannot be created (its folder is gone) fails at once.
        let nowhere = folder.file("gone/out.wav")
        #expect(throws: SafeFileError.folderMissing(path: nowhere.path, folder: folder.file("gone").path)) {
            try OutputFile(nowhere, replacing: false)
        }
        #expect(try folder.listing() == [])
    }

    @Test func anAbandonedWriterLeavesNothing() throws {
        let folder = try TemporaryFolder("wav-write")
        do {
            let output = try OutputFile(folder.file("gone.wav"), replacing: false)
            let writer = try WAVFileWriter(output: output, format: AudioFormat(sampleRate: 48000, channels: 1), depth: .int16)
            try writer.write([[Float](repeating: 0.1, count: 1000)], count: 1000)
            #expect(try folder.listing().count == 1)
        }
        #expect(try folder.listing() == [])
    }
}

/// `slowpoke stretch` from WAV to WAV now reads and writes natively: its output is what the
/// libav paths give for the same audio.
@Suite struct WAVStretchTests {
    func stretch(_ input: URL, _ output: URL, rate: Rational, algorithm: TimePitchAlgorithm) throws -> StretchJob.Result {
        let settings = try TimePitchSettings(algorithm: algorithm)
        return try StretchJob(input: input, output: output, rate: rate, settings: settings, force: false).run()
    }

    /// The same 16-bit audio in a WAV (read natively) and a FLAC (read by libav), stretched to a
    /// WAV (written natively) and a FLAC (written by libav): all four outputs hold the same
    /// samples, and ffprobe sees the WAV as the right length and format.
    @Test(arguments: [("varispeed", Int64(2), Int64(1)), ("timeDomain", 1, 2)])
    func wavToWavMatchesTheLibavPaths(algorithm: String, numerator: Int64, denominator: Int64) throws {
        let rate = try Rational(numerator, denominator)
        let folder = try TemporaryFolder("wav-stretch")
        let wav = folder.file("in.wav"), flac = folder.file("in.flac")
        try TestSupport.makeAudio("sine=frequency=440", seconds: 1, to: wav)
        let converted = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", wav.path, "-c:a", "flac", flac.path])
        #expect(converted.status == 0, "\(converted.stderr)")
        let kind = try #require(TimePitchAlgorithm(rawValue: algorithm))
        var outputs: [URL] = []
        for input in [wav, flac] {
            for ext in ["wav", "flac"] {
                let output = folder.file("\(input.pathExtension)-to.\(ext)")
                let result = try stretch(input, output, rate: rate, algorithm: kind)
                #expect(result.inputFrames == 48000)
                #expect(result.format == AudioFormat(sampleRate: 48000, channels: 2))
                outputs.append(output)
            }
        }
        let expectedFrames = Int((48000 / (Double(rate.numerator) / Double(rate.denominator))).rounded())
        for output in outputs where output.pathExtension == "wav" {
            let stream = try #require((try TestSupport.ffprobe(output, ["-show_streams"])["streams"] as? [[String: Any]])?.first)
            #expect(stream["codec_name"] as? String == "pcm_s16le")
            #expect(stream["duration_ts"] as? Int == expectedFrames)
            #expect(stream["channels"] as? Int == 2)
            #expect(stream["sample_rate"] as? String == "48000")
        }
        let reference = try TestSupport.decodeAudio(outputs[0], channel: 0)
        #expect(reference.count == expectedFrames)
        for output in outputs.dropFirst() {
            #expect(try TestSupport.decodeAudio(output, channel: 0) == reference, "\(output.lastPathComponent)")
        }
    }

    /// The output's depth follows the input's as it did through libav: 8 and 16 bits give
    /// 16-bit, 24 and 32 bits give 24-bit, float and double give float.
    @Test(arguments: [("pcm_s24le", "pcm_s24le"), ("pcm_f32le", "pcm_f32le"), ("pcm_u8", "pcm_s16le"), ("pcm_f64le", "pcm_f32le")])
    func theOutputDepthFollowsTheInput(codec: String, expected: String) throws {
        let folder = try TemporaryFolder("wav-stretch")
        let input = folder.file("in.wav"), output = folder.file("out.wav")
        try WAVTestFiles.noise(codec, channels: 2, seconds: 0.5, rate: 48000, to: input)
        let result = try stretch(input, output, rate: try Rational(1, 2), algorithm: .varispeed)
        #expect(result.outputFrames == 48000)
        let stream = try #require((try TestSupport.ffprobe(output, ["-show_streams"])["streams"] as? [[String: Any]])?.first)
        #expect(stream["codec_name"] as? String == expected)
        #expect(stream["duration_ts"] as? Int == 48000)
    }
}
