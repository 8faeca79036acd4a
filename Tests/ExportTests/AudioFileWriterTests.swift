import Export
import Foundation
import SafeFiles
import TestSupport
import Testing
import TimePitch

@Suite struct AudioFileWriterTests {
    @Test(arguments: [("wav", AudioFileWriter.Depth.int16, "pcm_s16le"), ("wav", .float32, "pcm_f32le"),
                      ("wav", .int24, "pcm_s24le"), ("flac", .int16, "flac"), ("flac", .int24, "flac")])
    func writesWhatFFprobeReads(ext: String, depth: AudioFileWriter.Depth, codec: String) throws {
        let folder = try TemporaryFolder("writer")
        let url = folder.file("out.\(ext)")
        let output = try OutputFile(url, replacing: false)
        let writer = try AudioFileWriter(output: output, format: AudioFormat(sampleRate: 44100, channels: 2), depth: depth)
        let tone = Signals.tone(1000, seconds: 1.5, sampleRate: 44100)
        for start in stride(from: 0, to: tone.count, by: 10000) {
            let n = min(10000, tone.count - start)
            try writer.write([Array(tone[start..<(start + n)]), Array(tone[start..<(start + n)])], count: n)
        }
        #expect(try folder.listing().count == 1 && !FileManager.default.fileExists(atPath: url.path), "only the temporary file exists until finish")
        try writer.finish()
        #expect(try folder.listing() == ["out.\(ext)"])
        let probe = try TestSupport.ffprobe(url, ["-count_packets", "-show_streams"])
        let stream = try #require((probe["streams"] as? [[String: Any]])?.first)
        #expect(stream["codec_name"] as? String == codec)
        #expect(stream["sample_rate"] as? String == "44100")
        #expect(stream["channels"] as? Int == 2)
        #expect(stream["duration_ts"] as? Int == tone.count)
    }

    @Test func anAbandonedWriterLeavesNothing() throws {
        let folder = try TemporaryFolder("writer")
        do {
            let output = try OutputFile(folder.file("gone.wav"), replacing: false)
            let writer = try AudioFileWriter(output: output, format: AudioFormat(sampleRate: 48000, channels: 1), depth: .int16)
            try writer.write([[Float](repeating: 0.1, count: 1000)], count: 1000)
        }
        #expect(try folder.listing() == [])
    }
}
