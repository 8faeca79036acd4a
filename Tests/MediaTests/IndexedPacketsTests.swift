import CFFmpeg
import Composition
import Foundation
import TestSupport
import Testing
@testable import Media

/// An mp4's facts from its index (``IndexedPackets``) are those of reading every packet: the
/// prober's media facts (what `open` stores and `info --json` prints) and smart audio's packet
/// list, on files with B-frames (composition offsets, negative ones too), AAC priming (an edit
/// list), variable frame rates, Opus and PCM audio, and joined recordings. Fragmented and
/// truncated files have no index the prober trusts: they are read packet by packet.
@Suite(.serialized) struct IndexedPacketsTests {
    /// (name, ffmpeg arguments after the inputs, whether the index is trusted).
    static let shapes: [(String, [String], Bool)] = [
        ("bframes.mp4", ["-c:v", "libx264", "-bf", "3", "-g", "25", "-c:a", "aac"], true),
        ("negative.mp4", ["-c:v", "libx264", "-bf", "2", "-c:a", "aac", "-movflags", "+negative_cts_offsets"], true),
        ("vfr.mp4", ["-vf", "select='not(between(n\\,10\\,30))'", "-fps_mode", "vfr", "-c:v", "libx264", "-c:a", "aac"], true),
        ("opus.mp4", ["-c:v", "libx264", "-c:a", "libopus"], true),
        ("pcm.mov", ["-c:v", "libx264", "-c:a", "pcm_s16le"], true),
        ("timecode.mov", ["-c:v", "libx264", "-c:a", "aac", "-timecode", "01:00:00:00"], true),
        ("fragmented.mp4", ["-c:v", "libx264", "-c:a", "aac", "-movflags", "frag_keyframe+empty_moov"], false),
    ]

    private func make(_ name: String, _ arguments: [String], in folder: TemporaryFolder) throws -> URL {
        let url = folder.file(name)
        let result = try TestSupport.tool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=8",
                                                      "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=8"]
                                                     + arguments + [url.path])
        #expect(result.status == 0, "\(result.stderr)")
        return url
    }

    /// The media facts and audio packets of `url` both ways; returns whether the index was used.
    private func compare(_ url: URL) throws -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let indexed = try encoder.encode(Prober.probe(url, readingIndex: true))
        let read = try encoder.encode(Prober.probe(url, readingIndex: false))
        #expect(String(decoding: indexed, as: UTF8.self) == String(decoding: read, as: UTF8.self), "\(url.lastPathComponent)")
        let input = try InputFormatContext(path: url.path)
        var moved = false
        let used = IndexedPackets(input, streams: Array(0..<input.streamCount), moved: &moved) != nil
        for stream in 0..<input.streamCount where input.stream(stream).parameters.pointee.codec_type == AVMEDIA_TYPE_AUDIO {
            let fromIndex = try AudioPacketScan(path: url.path, stream: stream, readingIndex: true)
            let fromPackets = try AudioPacketScan(path: url.path, stream: stream, readingIndex: false)
            #expect(fromIndex?.packets == fromPackets?.packets, "\(url.lastPathComponent) stream \(stream)")
            #expect(fromIndex?.bitRate == fromPackets?.bitRate)
            #expect(fromIndex?.frame == fromPackets?.frame)
        }
        return used
    }

    @Test func theIndexGivesWhatThePacketsGive() throws {
        let folder = try TemporaryFolder("indexed")
        var indexed = 0
        for (name, arguments, trusted) in Self.shapes {
            let url = try make(name, arguments, in: folder)
            let used = try compare(url)
            #expect(used == trusted, "\(name): index used \(used)")
            if used { indexed += 1 }
        }
        for clip in ["clip60.mp4", "clip240.mp4", "rotated.mp4", "ntsc2997.mp4", "noaudio.mp4"] {
            #expect(try compare(TestSupport.media(clip)), "\(clip): index not used")
            indexed += 1
        }
        #expect(indexed >= 11)
    }

    /// A recording looped with `-stream_loop -c copy` (its audio clock steps at each join),
    /// and the same file cut short: the cut one's index lists samples past its end.
    @Test func joinedAndTruncatedRecordings() throws {
        let folder = try TemporaryFolder("indexed-joined")
        let piece = try make("piece.mp4", ["-c:v", "libx264", "-g", "50", "-c:a", "aac", "-ar", "16000", "-ac", "1", "-movflags", "+faststart"], in: folder)
        let joined = folder.file("joined.mp4")
        let loop = try TestSupport.tool("ffmpeg", ["-v", "error", "-y", "-stream_loop", "3", "-i", piece.path, "-c", "copy", "-movflags", "+faststart", joined.path])
        #expect(loop.status == 0, "\(loop.stderr)")
        #expect(try compare(joined))
        let data = try Data(contentsOf: joined)
        let truncated = folder.file("truncated.mp4")
        try data.prefix(data.count * 7 / 10).write(to: truncated)
        #expect(try !compare(truncated))
    }

    /// An mp4 with chapters (a text track the demuxer reads for itself) and subtitles: where the
    /// index check gives up, every packet is read from the start, not from where the check
    /// stopped (the prober found no video frames at all: `open` refused the file).
    @Test func chaptersAndSubtitles() throws {
        let folder = try TemporaryFolder("indexed-chapters")
        let clip = try make("clip.mp4", ["-c:v", "libx264", "-c:a", "aac"], in: folder)
        try Data("1\n00:00:01,000 --> 00:00:03,000\nhello\n".utf8).write(to: folder.file("cues.srt"))
        try Data(";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=2500\ntitle=one\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=2500\nEND=8000\ntitle=two\n".utf8)
            .write(to: folder.file("chapters.txt"))
        let chapters = folder.file("chapters.mp4")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-y", "-i", clip.path, "-i", folder.file("cues.srt").path,
                                                   "-i", folder.file("chapters.txt").path, "-map", "0", "-map", "1", "-map_chapters", "2",
                                                   "-c", "copy", "-c:s", "mov_text", chapters.path])
        try #require(made.status == 0, "\(made.stderr)")
        _ = try compare(chapters)
        let facts = try Prober.probe(chapters, readingIndex: true)
        #expect(facts.primaryVideo?.frameCount == 200, "\(String(describing: facts.primaryVideo?.frameCount))")
    }
}
