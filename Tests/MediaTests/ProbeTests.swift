import Composition
import Foundation
import TestSupport
import Testing
@testable import Media

/// The prober's facts, checked against ffprobe reading the same files.
@Suite struct ProbeTests {
    static let clips = ["clip60.mp4", "clip240.mp4", "rotated.mp4", "ntsc2997.mp4", "noaudio.mp4", "music.wav"]

    private func rational(_ text: Any?) -> Rational? {
        guard let text = text as? String, let value = try? Rational(parsing: text), value != .zero else { return nil }
        return value
    }

    @Test(arguments: clips)
    func streamFactsMatchFFprobe(clip: String) throws {
        let url = TestSupport.media(clip)
        let info = try Prober.probe(url)
        let oracle = try TestSupport.ffprobe(url, ["-count_packets", "-show_streams", "-show_format"])
        let streams = try #require(oracle["streams"] as? [[String: Any]])
        #expect(info.streams.count == streams.count)
        for (mine, theirs) in zip(info.streams, streams) {
            #expect(mine.index == theirs["index"] as? Int)
            #expect(mine.codec == theirs["codec_name"] as? String)
            #expect(mine.kind.rawValue == theirs["codec_type"] as? String)
            #expect(mine.profile == theirs["profile"] as? String)
            #expect(mine.frameCount == Int(theirs["nb_read_packets"] as? String ?? ""))
            #expect(mine.timeBase == rational(theirs["time_base"]))
            if mine.kind == .video {
                #expect(mine.width == theirs["width"] as? Int)
                #expect(mine.height == theirs["height"] as? Int)
                #expect(mine.pixelFormat == theirs["pix_fmt"] as? String)
                #expect(mine.averageFrameRate == rational(theirs["avg_frame_rate"]))
                #expect(mine.realFrameRate == rational(theirs["r_frame_rate"]))
                #expect(mine.colorPrimaries == theirs["color_primaries"] as? String)
                #expect(mine.colorTransfer == theirs["color_transfer"] as? String)
                #expect(mine.colorSpace == theirs["color_space"] as? String)
                #expect(mine.colorRange == theirs["color_range"] as? String)
                #expect(mine.frameRateMode == .constant)
            } else {
                #expect(mine.sampleRate == Int(theirs["sample_rate"] as? String ?? ""))
                #expect(mine.channels == theirs["channels"] as? Int)
                #expect(mine.channelLayout == theirs["channel_layout"] as? String)
            }
            let tags = theirs["tags"] as? [String: Any]
            #expect(mine.language == tags?["language"] as? String)
        }
        let format = try #require(oracle["format"] as? [String: Any])
        #expect(info.container == format["format_name"] as? String)
        #expect(info.fileSize == Int64(format["size"] as? String ?? ""))
    }

    /// The exact length is last presentation end minus first presentation start, from the
    /// packets ffprobe lists.
    @Test(arguments: ["clip60.mp4", "clip240.mp4", "rotated.mp4", "ntsc2997.mp4", "noaudio.mp4"])
    func videoLengthIsExact(clip: String) throws {
        let url = TestSupport.media(clip)
        let info = try Prober.probe(url)
        let video = try #require(info.primaryVideo)
        let oracle = try TestSupport.ffprobe(url, ["-select_streams", "v:0", "-show_entries", "packet=pts,duration:stream=time_base"])
        let packets = try #require(oracle["packets"] as? [[String: Any]])
        let starts = packets.compactMap { $0["pts"] as? Int }
        let ends = packets.compactMap { p in (p["pts"] as? Int).flatMap { pts in (p["duration"] as? Int).map { pts + $0 } } }
        let base = try #require(rational((oracle["streams"] as? [[String: Any]])?.first?["time_base"]))
        let ticks = Int64(try #require(ends.max()) - (try #require(starts.min())))
        #expect(video.presentationDuration == (try Time(value: ticks, timescale: 1).multiplied(by: base)))
    }

    @Test func theTestClipsHaveTheirDocumentedLengths() throws {
        #expect(try Prober.probe(TestSupport.media("clip60.mp4")).primaryVideo?.presentationDuration == .seconds(10))
        #expect(try Prober.probe(TestSupport.media("clip240.mp4")).primaryVideo?.presentationDuration == .seconds(2))
        #expect(try Prober.probe(TestSupport.media("ntsc2997.mp4")).primaryVideo?.presentationDuration == Time(value: 3003, timescale: 1000))
        #expect(try Prober.probe(TestSupport.media("music.wav")).primaryAudio?.presentationDuration == .seconds(4))
    }

    @Test func rotationMatchesTheDisplayMatrix() throws {
        let url = TestSupport.media("rotated.mp4")
        let oracle = try TestSupport.ffprobe(url, ["-select_streams", "v:0", "-show_streams"])
        let sideData = ((oracle["streams"] as? [[String: Any]])?.first?["side_data_list"] as? [[String: Any]]) ?? []
        let ffprobeRotation = try #require(sideData.compactMap { $0["rotation"] as? Int }.first)
        // ffprobe reports counter-clockwise degrees; slowpoke reports clockwise ones.
        #expect(ffprobeRotation == -90)
        #expect(try Prober.probe(url).primaryVideo?.rotation == 90)
        #expect(try Prober.probe(TestSupport.media("clip60.mp4")).primaryVideo?.rotation == nil)
    }

    @Test func assetsFollowThePrimaryStreams() throws {
        let movie = try Prober.probe(TestSupport.media("clip60.mp4")).asset(name: "clip60.mp4")
        #expect(movie.tracks.map(\.mediaType) == [.video, .audio])
        #expect(movie.timeRange == (try TimeRange(start: .zero, duration: .seconds(10))))
        let audioOnly = try Prober.probe(TestSupport.media("music.wav")).asset(name: "music.wav")
        #expect(audioOnly.tracks.map(\.mediaType) == [.audio])
        let silent = try Prober.probe(TestSupport.media("noaudio.mp4")).asset(name: "noaudio.mp4")
        #expect(silent.tracks.map(\.mediaType) == [.video])
    }

    @Test func badFilesGetClearErrors() throws {
        let folder = try TemporaryFolder("probe")
        let text = folder.file("notes.mp4")
        try Data("this is not a movie\n".utf8).write(to: text)
        #expect {
            try Prober.probe(text)
        } throws: { error in
            guard case .notMedia(let path, _)? = error as? MediaError else { return false }
            return path == text.path
                && (error as! MediaError).description.hasPrefix("\(text.path) is not a movie or audio file that slowpoke can read")
        }
        let empty = folder.file("empty.mov")
        try Data().write(to: empty)
        #expect(throws: MediaError.notMedia(path: empty.path, reason: "the file is empty")) { try Prober.probe(empty) }
        let missing = folder.file("missing.mp4")
        #expect(throws: MediaError.cannotOpen(path: missing.path, reason: "no such file")) { try Prober.probe(missing) }
    }

    @Test func aFileWithoutVideoOrAudioHasNoAsset() throws {
        let folder = try TemporaryFolder("probe")
        let subtitles = folder.file("captions.srt")
        try Data("1\n00:00:00,000 --> 00:00:01,000\nhello\n\n".utf8).write(to: subtitles)
        let info = try Prober.probe(subtitles)
        #expect(info.streams.map(\.kind) == [.subtitle])
        #expect(throws: CompositionError.noMediaTracks("captions.srt has neither a video nor an audio track")) {
            try info.asset(name: "captions.srt")
        }
    }
}
