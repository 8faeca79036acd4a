import CFFmpeg
import Composition
import Foundation
import TestSupport
import Testing
import TimePitch
@testable import Media

@Suite struct WAVFileReaderTests {
    /// Checks that the native reader and libav's give the same stream for `url`: format,
    /// length, sample format, and every sample bit for bit.
    func expectSameAsLibav(_ url: URL, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let native = try #require(try WAVFileReader.open(url: url), "\(label): not opened natively", sourceLocation: sourceLocation)
        let libav = try AudioFileReader(url: url)
        #expect(native.format == libav.format, "\(label)", sourceLocation: sourceLocation)
        let frames = try libav.exactLength()
        #expect(native.exactLength() == frames, "\(label)", sourceLocation: sourceLocation)
        #expect(native.sampleFormatName == libav.sampleFormatName, "\(label)", sourceLocation: sourceLocation)
        #expect(native.hasCoarseQuantisation == libav.hasCoarseQuantisation, "\(label)", sourceLocation: sourceLocation)
        let mine = try WAVTestFiles.readAll(native, frames: Int(frames))
        let theirs = try WAVTestFiles.readAll(libav, frames: Int(frames))
        #expect(WAVTestFiles.bits(mine) == WAVTestFiles.bits(theirs), "\(label): samples differ", sourceLocation: sourceLocation)
    }

    /// ffmpeg writes a plain WAVEFORMAT for 8 and 16 bits in mono and stereo, and
    /// WAVE_FORMAT_EXTENSIBLE for more channels or bits.
    @Test(arguments: ["pcm_u8", "pcm_s16le", "pcm_s24le", "pcm_s32le", "pcm_f32le", "pcm_f64le"], [1, 2, 6])
    func eachFormatReadsAsLibavReadsIt(codec: String, channels: Int) throws {
        let folder = try TemporaryFolder("wav-read")
        let url = folder.file("\(codec)-\(channels).wav")
        try WAVTestFiles.noise(codec, channels: channels, to: url)
        try expectSameAsLibav(url, "\(codec), \(channels) channels")
    }

    /// Random reads, forwards and backwards and across the ends, repeat the sequential samples.
    @Test func readsAreRandomAccessAndRepeatable() throws {
        let folder = try TemporaryFolder("wav-read")
        let url = folder.file("noise.wav")
        try WAVTestFiles.noise("pcm_s24le", channels: 2, seconds: 1, to: url)
        let reader = try #require(try WAVFileReader.open(url: url))
        let frames = Int(reader.exactLength())
        let reference = try WAVTestFiles.readAll(reader, frames: frames)
        var g = SystemRandomNumberGenerator()
        for _ in 0..<100 {
            let at = Int.random(in: -2000..<(frames + 1000), using: &g), count = Int.random(in: 1...5000, using: &g)
            var block = [[Float]](repeating: [Float](repeating: .nan, count: count), count: 2)
            try reader.read(at: Int64(at), count: count, into: &block)
            for c in 0..<2 {
                let expected = (at..<(at + count)).map { $0 >= 0 && $0 < frames ? reference[c][$0] : 0 }
                #expect(block[c].map(\.bitPattern) == expected.map(\.bitPattern), "\(count) frames at \(at)")
            }
        }
    }

    /// A hand-made 16-bit stereo file: `chunks` go between `fmt ` and `data`.
    func handMade(samples: [Int16], chunks: [UInt8], dataSize: UInt32? = nil) -> [UInt8] {
        let fmt = WAVTestFiles.le16(1) + WAVTestFiles.le16(2) + WAVTestFiles.le32(8000) + WAVTestFiles.le32(32000)
            + WAVTestFiles.le16(4) + WAVTestFiles.le16(16)
        let pcm = samples.flatMap { WAVTestFiles.le16(UInt16(bitPattern: $0)) }
        let body = Array("WAVE".utf8) + Array("fmt ".utf8) + WAVTestFiles.le32(16) + fmt + chunks
            + Array("data".utf8) + WAVTestFiles.le32(dataSize ?? UInt32(pcm.count)) + pcm
        return Array("RIFF".utf8) + WAVTestFiles.le32(UInt32(body.count)) + body
    }

    /// An odd-sized chunk is followed by a pad byte, which is not part of the next chunk.
    @Test func anOddSizedChunkBeforeTheDataIsSkipped() throws {
        let folder = try TemporaryFolder("wav-read")
        let url = folder.file("odd.wav")
        let samples: [Int16] = [1, -1, 32767, -32768, 1000, -1000, 0, 12345]
        // "odd " of 3 bytes, its pad byte, then a LIST of 5 bytes and its pad.
        let chunks = Array("odd ".utf8) + WAVTestFiles.le32(3) + [7, 7, 7, 0]
            + Array("LIST".utf8) + WAVTestFiles.le32(5) + [1, 2, 3, 4, 5, 0]
        try WAVTestFiles.write(handMade(samples: samples, chunks: chunks), to: url)
        let reader = try #require(try WAVFileReader.open(url: url))
        #expect(reader.format == AudioFormat(sampleRate: 8000, channels: 2))
        #expect(reader.exactLength() == 4)
        let read = try WAVTestFiles.readAll(reader, frames: 4)
        #expect(read[0] == [1, 32767, 1000, 0].map { Float($0) / 32768 })
        #expect(read[1] == [-1, -32768, -1000, 12345].map { Float($0) / 32768 })
        try expectSameAsLibav(url, "odd chunk")
    }

    /// A data size of 0xFFFFFFFF (a writer that never filled it in), or one past the end of the
    /// file, reads to the end of the file.
    @Test(arguments: [UInt32.max, 1_000_000])
    func aDataSizeThatCannotBeRightMeansToTheEnd(size: UInt32) throws {
        let folder = try TemporaryFolder("wav-read")
        let original = folder.file("original.wav"), patched = folder.file("patched.wav")
        try WAVTestFiles.noise("pcm_s16le", channels: 2, seconds: 0.25, to: original)
        var bytes = try WAVTestFiles.data(original)
        let data = try #require(WAVTestFiles.chunk("data", in: bytes))
        bytes.replaceSubrange((data + 4)..<(data + 8), with: WAVTestFiles.le32(size))
        try WAVTestFiles.write(bytes, to: patched)
        let reader = try #require(try WAVFileReader.open(url: patched))
        #expect(reader.exactLength() == 11025)
        let expected = try WAVTestFiles.readAll(try AudioFileReader(url: original), frames: 11025)
        #expect(WAVTestFiles.bits(try WAVTestFiles.readAll(reader, frames: 11025)) == WAVTestFiles.bits(expected))
        try expectSameAsLibav(patched, "data size \(size)")
    }

    /// A file cut off in the middle of its last frame: that frame is left out.
    @Test func aTruncatedLastFrameIsIgnored() throws {
        let folder = try TemporaryFolder("wav-read")
        let original = folder.file("original.wav"), cut = folder.file("cut.wav")
        try WAVTestFiles.noise("pcm_s24le", channels: 2, seconds: 0.25, to: original)
        let bytes = try WAVTestFiles.data(original)
        // ffmpeg puts nothing after the data; 4 bytes of the last 6-byte frame go.
        #expect(WAVTestFiles.chunk("data", in: bytes).map { bytes.count - $0 - 8 } == 11025 * 6)
        try WAVTestFiles.write(Array(bytes.dropLast(4)), to: cut)
        let reader = try #require(try WAVFileReader.open(url: cut))
        #expect(reader.exactLength() == 11024)
        let expected = try WAVTestFiles.readAll(try AudioFileReader(url: original), frames: 11025).map { Array($0.dropLast()) }
        #expect(WAVTestFiles.bits(try WAVTestFiles.readAll(reader, frames: 11024)) == WAVTestFiles.bits(expected))
        try expectSameAsLibav(cut, "truncated")
    }

    /// WAVE_FORMAT_EXTENSIBLE with fewer valid bits than the container: the samples still fill
    /// the container. With 20 bits in 24, libav agrees; with 24 in 32 it misreads the file
    /// (as pcm_f24le), so the check there is against the same data marked as 32 valid bits.
    @Test func fewerValidBitsThanTheContainerReadTheContainer() throws {
        let folder = try TemporaryFolder("wav-read")
        for (codec, valid) in [("pcm_s24le", 20), ("pcm_s32le", 24)] {
            let original = folder.file("\(codec).wav"), marked = folder.file("\(codec)-\(valid).wav")
            try WAVTestFiles.noise(codec, channels: 2, seconds: 0.25, to: original)
            var bytes = try WAVTestFiles.data(original)
            let fmt = try #require(WAVTestFiles.chunk("fmt ", in: bytes))
            #expect(bytes[fmt + 8] == 0xFE && bytes[fmt + 9] == 0xFF, "extensible")
            bytes.replaceSubrange((fmt + 26)..<(fmt + 28), with: WAVTestFiles.le16(UInt16(valid)))
            try WAVTestFiles.write(bytes, to: marked)
            let reader = try #require(try WAVFileReader.open(url: marked))
            #expect(reader.sampleFormatName == "s32")
            let expected = try WAVTestFiles.readAll(try AudioFileReader(url: original), frames: 11025)
            #expect(WAVTestFiles.bits(try WAVTestFiles.readAll(reader, frames: 11025)) == WAVTestFiles.bits(expected), "\(valid) in \(codec)")
            if valid == 20 { try expectSameAsLibav(marked, "20 valid bits in 24") }
        }
    }

    /// Anything else is left to libav: another container, a compressed WAV, text.
    @Test func otherFilesAreLeftToLibav() throws {
        let folder = try TemporaryFolder("wav-read")
        let adpcm = folder.file("adpcm.wav"), text = folder.file("notes.wav")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=0.5",
                                                    "-c:a", "adpcm_ms", adpcm.path])
        #expect(made.status == 0, "\(made.stderr)")
        try Data("not audio at all\n".utf8).write(to: text)
        #expect(try WAVFileReader.open(url: adpcm) == nil)
        #expect(try AudioFileReader(url: adpcm).format == AudioFormat(sampleRate: 44100, channels: 1), "libav reads it instead")
        #expect(try WAVFileReader.open(url: text) == nil)
        #expect(try WAVFileReader.open(url: TestSupport.media("clip60.mp4")) == nil)
        // A folder (like a FIFO or a device) is refused before anything opens it.
        #expect(throws: MediaError.cannotOpen(path: folder.url.path, reason: "it is a folder, not a regular file")) {
            try WAVFileReader.open(url: folder.url)
        }
    }

    @Test func aMissingOrEmptyFileIsAnErrorAsWithLibav() throws {
        let folder = try TemporaryFolder("wav-read")
        let missing = folder.file("missing.wav"), empty = folder.file("empty.wav")
        try Data().write(to: empty)
        #expect(throws: MediaError.cannotOpen(path: missing.path, reason: "no such file")) { try WAVFileReader.open(url: missing) }
        #expect(throws: MediaError.notMedia(path: empty.path, reason: "the file is empty")) { try WAVFileReader.open(url: empty) }
        #expect(throws: MediaError.cannotOpen(path: missing.path, reason: "no such file")) { try AudioFileReader(url: missing) }
        #expect(throws: MediaError.notMedia(path: empty.path, reason: "the file is empty")) { try AudioFileReader(url: empty) }
    }

    /// The read-ahead serves the native reader's samples too.
    @Test func readAheadGivesTheWAVReadersSamples() throws {
        let url = TestSupport.media("music.wav")
        let reader = try #require(try WAVFileReader.open(url: url))
        let frames = Int(reader.exactLength())
        let reference = try WAVTestFiles.readAll(try AudioFileReader(url: url), frames: frames)
        let source = PrefetchingAudioSource(reader, blockFrames: 5000, depth: 2)
        #expect(WAVTestFiles.bits(try WAVTestFiles.readAll(source, frames: frames)) == WAVTestFiles.bits(reference))
    }
}
