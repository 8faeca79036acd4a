@testable import Media
import CFFmpeg
import Foundation
import TestSupport
import Testing

/// An mp4's later openings take their stream information from the first one's probe
/// (``StreamInfoCache``), and mp4 streams read alone are read sample by sample where their
/// samples lie far apart (``InputFormatContext/readOnly(stream:)``): either way, every field a
/// reader asks of a stream and every packet it reads must be what a fresh probe gives.
@Suite struct StreamInfoCacheTests {
    /// Shapes whose probing decodes something: B-frames (the decoding delay), HEVC 10-bit (the
    /// pixel format), two audio tracks, an edit list, a timed-text track, a mov.
    static let shapes: [(name: String, arguments: [String])] = [
        ("bframes.mp4", ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=2", "-f", "lavfi", "-i", "sine=frequency=440:duration=2",
                         "-c:v", "libx264", "-bf", "3", "-g", "15", "-pix_fmt", "yuv420p", "-c:a", "aac"]),
        ("hevc10.mp4", ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-c:v", "libx265", "-pix_fmt", "yuv420p10le",
                        "-x265-params", "log-level=error", "-tag:v", "hvc1"]),
        ("two-audio.mov", ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=24:duration=2", "-f", "lavfi", "-i", "sine=frequency=300:duration=2",
                           "-f", "lavfi", "-i", "sine=frequency=900:duration=2:sample_rate=44100", "-map", "0", "-map", "1", "-map", "2",
                           "-c:v", "libx264", "-c:a", "aac"]),
        ("edit-list.mp4", ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=2", "-f", "lavfi", "-i", "sine=duration=2",
                           "-c:v", "libx264", "-bf", "2", "-c:a", "aac", "-output_ts_offset", "0.5"]),
        ("subtitles.mp4", ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=2", "-f", "lavfi", "-i", "sine=duration=2",
                           "-i", "@SRT", "-map", "0", "-map", "1", "-map", "2", "-c:v", "libx264", "-c:a", "aac", "-c:s", "mov_text"]),
    ]

    func make(_ name: String, _ arguments: [String], in folder: TemporaryFolder) throws -> URL {
        let srt = folder.file("cues.srt")
        try "1\n00:00:00,500 --> 00:00:01,000\nhello\n".write(to: srt, atomically: true, encoding: .utf8)
        let movie = folder.file(name)
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-y"] + arguments.map { $0 == "@SRT" ? srt.path : $0 } + [movie.path])
        try #require(made.status == 0, "\(made.stderr)")
        return movie
    }

    /// What a reader may ask of each stream, as text.
    func facts(_ input: InputFormatContext) -> [String] {
        (0..<input.streamCount).map { i in
            let st = input.stream(i).pointer.pointee, p = st.codecpar.pointee
            return "\(p.codec_type.rawValue) \(p.codec_id.rawValue) \(p.format) \(p.width)x\(p.height) \(p.profile) \(p.level) "
                + "\(p.video_delay) \(p.field_order.rawValue) \(p.color_range.rawValue) \(p.color_primaries.rawValue) \(p.color_trc.rawValue) "
                + "\(p.color_space.rawValue) \(p.chroma_location.rawValue) \(p.sample_rate) \(p.ch_layout.nb_channels) \(p.frame_size) "
                + "\(p.initial_padding) \(p.bit_rate) \(p.bits_per_raw_sample) \(p.extradata_size) "
                + "\(st.avg_frame_rate.num)/\(st.avg_frame_rate.den) \(st.r_frame_rate.num)/\(st.r_frame_rate.den) "
                + "\(st.sample_aspect_ratio.num)/\(st.sample_aspect_ratio.den) \(st.start_time) \(st.duration) \(st.time_base.num)/\(st.time_base.den)"
        } + ["\(input.pointer.pointee.start_time) \(input.pointer.pointee.duration) \(input.pointer.pointee.bit_rate)"]
    }

    /// Every packet of `stream` (all streams when nil): stream, times, flags, size and a digest.
    func packets(_ input: InputFormatContext, stream: Int? = nil) throws -> [String] {
        let packet = try Packet()
        var found: [String] = []
        while try input.read(into: packet) {
            let p = packet.pointer.pointee
            guard stream.map({ $0 == Int(p.stream_index) }) ?? true else { continue }
            var hash: UInt64 = 1469598103934665603
            for byte in UnsafeBufferPointer(start: p.data, count: Int(p.size)) { hash = (hash ^ UInt64(byte)) &* 1099511628211 }
            found.append("\(p.stream_index) \(p.pts) \(p.dts) \(p.duration) \(p.flags) \(p.size) \(hash)")
        }
        return found
    }

    @Test func laterOpeningsSeeWhatTheFirstProbed() throws {
        let folder = try TemporaryFolder("stream-info")
        var compared = 0
        for (name, arguments) in Self.shapes {
            let movie = try make(name, arguments, in: folder)
            let probed = try InputFormatContext(path: movie.path)
            let hits = StreamInfoCache.hits
            let cached = try InputFormatContext(path: movie.path)
            #expect(StreamInfoCache.hits > hits, "\(name): the second opening probed again")
            #expect(facts(cached) == facts(probed), "\(name)")
            #expect(cached.bestAudioStream == probed.bestAudioStream, "\(name)")
            let (a, b) = (try packets(probed), try packets(cached))
            #expect(a == b, "\(name)")
            compared += a.count
        }
        #expect(compared >= 500)
    }

    @Test func aChangedFileIsProbedAfresh() throws {
        let folder = try TemporaryFolder("stream-info-changed")
        let movie = try make("changed.mp4", Self.shapes[0].arguments, in: folder)
        _ = try InputFormatContext(path: movie.path)
        let replacement = try make("replacement.mp4", Self.shapes[1].arguments, in: folder)
        #expect(rename(replacement.path, movie.path) == 0)
        let hits = StreamInfoCache.hits
        let reopened = try InputFormatContext(path: movie.path)
        #expect(StreamInfoCache.hits == hits)
        #expect(reopened.stream(0).parameters.pointee.codec_id == AV_CODEC_ID_HEVC)
    }

    /// Audio beside large video frames is read sample by sample; beside small ones, through.
    @Test(arguments: [(true, true), (false, false)])
    func aStreamReadAloneGivesThePacketsOfAFullRead(lossless: Bool, direct: Bool) throws {
        let folder = try TemporaryFolder("read-only")
        // -qp 0 makes 720p frames of hundreds of kilobytes; 60 kb/s, frames of a few.
        let rate = lossless ? ["-qp", "0"] : ["-b:v", "60k"]
        let movie = try make("sparse.mp4", ["-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30:duration=2", "-f", "lavfi", "-i", "sine=duration=2",
                                            "-c:v", "libx264", "-preset", "ultrafast"] + rate + ["-c:a", "aac"], in: folder)
        let whole = try packets(try InputFormatContext(path: movie.path), stream: 1)
        let alone = try InputFormatContext(path: movie.path)
        alone.readOnly(stream: 1)
        #expect((alone.pointer.pointee.pb.pointee.direct != 0) == direct)
        #expect(try packets(alone) == whole)
        #expect(whole.count >= 85)
    }
}
