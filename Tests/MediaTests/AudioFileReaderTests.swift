import Composition
import Foundation
import TestSupport
import Testing
import TimePitch
@testable import Media

@Suite struct AudioFileReaderTests {
    /// Reads every frame in order, in blocks.
    func sequential(_ reader: AudioFileReader, frames: Int) throws -> [[Float]] {
        var out = [[Float]](repeating: [], count: reader.format.channels)
        var block = [[Float]](repeating: [Float](repeating: 0, count: 4096), count: reader.format.channels)
        var position = 0
        while position < frames {
            let n = min(4096, frames - position)
            try reader.read(at: Int64(position), count: n, into: &block)
            for c in out.indices { out[c] += block[c][0..<n] }
            position += n
        }
        return out
    }

    /// Random reads, forwards and backwards, give exactly the samples of a sequential pass:
    /// for PCM, and for AAC, where a seek lands on a packet boundary, drops the first frame (it
    /// lacks its MDCT overlap) and decodes forward. The AAC is encoded here without perceptual
    /// noise substitution, whose random noise depends on where decoding started; with it
    /// (ffmpeg's default, as in clip60.mp4) the difference stays at the noise's level.
    @Test(arguments: [("music.wav", Float(0)), ("music-nopns.m4a", 0), ("clip60.mp4", 0.03)])
    func randomAccessMatchesSequentialDecoding(clip: String, tolerance: Float) throws {
        let folder = try TemporaryFolder("reader")
        var url = TestSupport.media(clip)
        if clip == "music-nopns.m4a" {
            url = folder.file(clip)
            let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", TestSupport.media("music.wav").path,
                                                        "-c:a", "aac", "-aac_pns", "0", "-b:a", "128k", url.path])
            #expect(made.status == 0, "\(made.stderr)")
        }
        let frames = Int(try AudioFileReader(url: url).exactLength())
        let reference = try sequential(try AudioFileReader(url: url), frames: frames)
        let reader = try AudioFileReader(url: url)
        var g = SystemRandomNumberGenerator()
        var block = [[Float]](repeating: [Float](repeating: 0, count: 3000), count: reader.format.channels)
        for _ in 0..<150 {
            let at = Int.random(in: -1000..<(frames - 1000), using: &g)
            try reader.read(at: Int64(at), count: 3000, into: &block)
            var worst: Float = 0
            for c in 0..<reader.format.channels {
                for i in 0..<3000 {
                    let expected: Float = at + i >= 0 && at + i < frames ? reference[c][at + i] : 0
                    worst = max(worst, abs(block[c][i] - expected))
                }
            }
            #expect(worst <= tolerance, "\(clip): reading 3000 frames at \(at) differs by \(worst)")
            if worst > tolerance { return }
        }
    }

    /// Reads the same frames as `reads` lists from `source`, comparing each with `reference`
    /// (silence outside it); returns the largest difference.
    func worstDifference(_ source: AudioSource, reads: [(at: Int, count: Int)], reference: [[Float]]) throws -> Float {
        var worst: Float = 0
        for (at, count) in reads {
            var block = [[Float]](repeating: [Float](repeating: .nan, count: count), count: source.format.channels)
            try source.read(at: Int64(at), count: count, into: &block)
            for c in block.indices {
                for i in 0..<count {
                    let expected: Float = at + i >= 0 && at + i < reference[c].count ? reference[c][at + i] : 0
                    worst = max(worst, abs(block[c][i] - expected))
                    if block[c][i].isNaN { return .infinity }
                }
            }
        }
        return worst
    }

    /// Regression: reading block after block well past the end of the stream crashed (the
    /// reader tried to forget more of its buffer than it held).
    @Test func readingFarPastTheEndGivesSilence() throws {
        let url = TestSupport.media("music.wav")
        let reference = try sequential(try AudioFileReader(url: url), frames: 192_000)
        let reads = stride(from: 0, to: 192_000 + 48_000 * 20, by: 16_384).map { (at: $0, count: 16_384) }
        #expect(try worstDifference(try AudioFileReader(url: url), reads: reads, reference: reference) == 0)
    }

    /// The read-ahead serves exactly the reader's samples: reads that follow on from each
    /// other in sizes that straddle its blocks, starting before the stream, running past its
    /// end, and jumps back and forward that restart it.
    @Test func readAheadGivesTheReadersSamples() throws {
        let url = TestSupport.media("music.wav")
        let frames = 192_000
        let reference = try sequential(try AudioFileReader(url: url), frames: frames)
        var reads: [(at: Int, count: Int)] = []
        var position = -700
        while position < frames + 3000 {
            let count = [1, 999, 4096, 5000, 12_345][reads.count % 5]
            reads.append((position, count))
            position += count
        }
        reads += [(100, 3000), (3100, 10), (150_000, 7000), (frames - 10, 5000), (0, 40_000)]
        let source = PrefetchingAudioSource(try AudioFileReader(url: url), blockFrames: 5000, depth: 2)
        #expect(try worstDifference(source, reads: reads, reference: reference) == 0)
    }

    @Test func lengthsComeFromTheContainerWhenStated() throws {
        #expect(try AudioFileReader(url: TestSupport.media("music.wav")).exactLength() == 192_000)
        // The mp4's edit list hides AAC priming and padding: exactly 10 s, not 10.0053.
        #expect(try AudioFileReader(url: TestSupport.media("clip60.mp4")).exactLength() == 480_000)
    }

    @Test func theBeepsAreWhereTheClipSaysTheyAre() throws {
        // An independent check that decoding places audio at its presentation time.
        let reader = try AudioFileReader(url: TestSupport.media("clip60.mp4"))
        let mono = try sequential(reader, frames: 480_000)[0]
        let onsets = Signals.onsets(mono, threshold: 0.05, quiet: 4800)
        #expect(onsets.count == 10)
        for (second, onset) in onsets.enumerated() {
            #expect(abs(onset - second * 48000) <= 3, "beep \(second) at frame \(onset)")
        }
    }

    @Test func aFileWithoutAudioIsRefused() {
        #expect(throws: MediaError.notMedia(path: TestSupport.media("noaudio.mp4").path, reason: "it has no audio stream")) {
            try AudioFileReader(url: TestSupport.media("noaudio.mp4"))
        }
    }
}
