import Composition
import Foundation
import TestSupport
import Testing
@testable import Media

/// Subtitle cues as the preview reads them, and the streams it can switch between.
@Suite struct SubtitleCueTests {
    /// An mp4 (mov_text, as phones and ffmpeg write) with three cues and two audio tracks.
    static func movie(in folder: TemporaryFolder) throws -> URL {
        let srt = folder.file("cues.srt")
        try """
            1
            00:00:01,000 --> 00:00:02,000
            <i>first</i> cue

            2
            00:00:01,600 --> 00:00:02,400
            removed

            3
            00:00:03,000 --> 00:00:04,000
            two
            lines

            """.write(to: srt, atomically: true, encoding: .utf8)
        let movie = folder.file("cues.mp4")
        let made = try TestSupport.tool("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "color=size=64x64:rate=10:duration=6",
            "-f", "lavfi", "-i", "sine=duration=6", "-f", "lavfi", "-i", "sine=duration=6", "-i", srt.path,
            "-map", "0", "-map", "1", "-map", "2", "-map", "3", "-c:v", "libx264", "-c:a", "aac", "-c:s", "mov_text",
            "-metadata:s:a:1", "language=fra", "-y", movie.path])
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        return movie
    }

    func t(_ tenths: Int64) -> Time { Time(value: tenths, timescale: 10) }

    /// Source 1.5-2.5 s removed and 4-6 s slowed to half speed: a cue crossing the cut is
    /// clipped at it, one inside the removed range is gone, the rest move with the timeline.
    @Test func cuesFollowTheTimeline() throws {
        let folder = try TemporaryFolder("subtitle-cues")
        let movie = try Self.movie(in: folder)
        let segments = [
            try CompositionTrackSegment(source: try TimeRange(start: t(0), end: t(15)), target: try TimeRange(start: t(0), end: t(15))),
            try CompositionTrackSegment(source: try TimeRange(start: t(25), end: t(35)), target: try TimeRange(start: t(15), end: t(25))),
            try CompositionTrackSegment(source: try TimeRange(start: t(35), end: t(60)), target: try TimeRange(start: t(25), end: t(75))),
        ]
        let cues = try SubtitleCue.read(movie: movie, stream: 3, segments: segments, origin: .zero)
        // "two\nlines" at 3.0-4.0 s: 2.0-2.5 at 1x, then 3.5-4.0 of source at 0.5x → 2.5-3.5.
        let expected = [
            SubtitleCue(range: try TimeRange(start: t(10), end: t(15)), text: "first cue"),
            SubtitleCue(range: try TimeRange(start: t(20), end: t(35)), text: "two\nlines"),
        ]
        #expect(cues == expected, "\(cues)")
        // Not subtitles: a clear refusal.
        #expect(throws: MediaError.self) { try SubtitleCue.read(movie: movie, stream: 1, segments: segments, origin: .zero) }
    }

    @Test func streamsAreListedWithLanguageTitleAndDisposition() throws {
        let folder = try TemporaryFolder("playable-streams")
        let movie = try Self.movie(in: folder)
        let streams = try PlayableStreams.of(movie)
        #expect(streams.audio.map(\.index) == [1, 2])
        // mp4 keeps no title; "und" is no language.
        #expect(streams.audio[1].language == "fra" && streams.audio[0].language == nil, "\(streams.audio)")
        #expect(streams.audio[0].isDefault && !streams.audio[1].isDefault, "\(streams.audio)")
        #expect(streams.subtitles.map(\.index) == [3] && streams.subtitles[0].isText)
    }
}
