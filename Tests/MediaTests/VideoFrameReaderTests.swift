import Composition
import Foundation
import TestSupport
import Testing
@testable import Media

@Suite struct VideoFrameReaderTests {
    /// The frame index the picture code of media/make-media.sh carries, read from the Y plane.
    func codedIndex(_ reader: VideoFrameReader) throws -> Int? {
        try reader.withPlanes { planes, linesizes in
            let block = reader.width / 16
            var index = 0
            for bit in 0..<16 where planes[0][(block / 2) * linesizes[0] + block * bit + block / 2] > 128 { index |= 1 << bit }
            return index
        }
    }

    @Test(arguments: [(3.5, 210), (0.0, 0), (1.0 / 120, 0), (1.0, 60), (9.999, 599), (5.01, 300)] as [(Double, Int)])
    func showsTheFrameOnScreenAtATime(seconds: Double, frame: Int) throws {
        let reader = try VideoFrameReader(url: TestSupport.media("clip60.mp4"))
        #expect(reader.width == 1280 && reader.height == 720)
        let t = Time(value: Int64((seconds * 48000).rounded()), timescale: 48000)
        try reader.show(at: t)
        #expect(try codedIndex(reader) == frame)
        #expect(reader.currentTime == Time(value: Int64(frame), timescale: 60), "\(String(describing: reader.currentTime))")
    }

    @Test func playsForwardWithoutSeekingAndSeeksBack() throws {
        let reader = try VideoFrameReader(url: TestSupport.media("clip60.mp4"))
        for n in 0..<90 {
            try reader.show(at: Time(value: Int64(n), timescale: 60))
            #expect(try codedIndex(reader) == n)
        }
        #expect(reader.seeks == 0)
        #expect(reader.decodedFrames <= 92)
        try reader.show(at: Time(value: 1, timescale: 2))
        #expect(try codedIndex(reader) == 30)
        #expect(reader.seeks == 1)
    }

    @Test func keyframesOnlyDecodesFewerFrames() throws {
        let reader = try VideoFrameReader(url: TestSupport.media("clip60.mp4"))
        reader.skipping = .keyframesOnly
        for n in stride(from: 0, to: 600, by: 10) { try reader.show(at: Time(value: Int64(n), timescale: 60)) }
        // Keyframes every 60 frames: the frame shown is the last keyframe at or before the time.
        #expect(try codedIndex(reader) == 540)
        #expect(reader.decodedFrames <= 12, "decoded \(reader.decodedFrames)")
    }

    @Test func refusesMissingFilesAndAudioOnlyFiles() {
        #expect(throws: MediaError.self) { try VideoFrameReader(url: URL(fileURLWithPath: "/nonexistent.mp4")) }
        #expect(throws: MediaError.self) { try VideoFrameReader(url: TestSupport.media("music.wav")) }
    }
}
