import Foundation
import Testing
import TestSupport

/// A movie whose sound starts after its picture (a camera's audio that begins 0.3 s in, an
/// `-itsoffset` remux) still has sound to its last moment: audio is placed by its timestamps,
/// so it ends its start plus its duration after time 0, not its duration. (An export once
/// stopped reading at the duration and filled the last 0.3 s with silence.)
@Suite struct LateAudioTests {
    /// 10 s of picture; a full-scale 440 Hz tone from 0.3 s to the end, in `container`: made
    /// once per test process for each container and audio (``GeneratedMedia``; three cases
    /// start from the same .mp4), copied into `folder`.
    func lateMovie(_ folder: TemporaryFolder, container: String, audio: [String]) throws -> URL {
        try GeneratedMedia.copy(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=10",
                                 "-itsoffset", "0.3", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=12,volume=4",
                                 "-c:v", "libx264", "-g", "30", "-pix_fmt", "yuv420p"] + audio + ["-shortest"],
                                as: "late.\(container)", in: folder)
    }

    /// The first and last sample louder than a tenth of the tone, in seconds of presentation time.
    func loudSpan(_ file: URL) throws -> (first: Double, last: Double) {
        let start = try TestSupport.tool("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=start_time",
                                                     "-of", "csv=p=0", file.path]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let offset = Double(start) ?? 0
        let samples = try TestSupport.decodeAudio(file)
        let loud = samples.indices.filter { abs(samples[$0]) > 0.05 }
        guard let first = loud.first, let last = loud.last else { return (-1, -1) }
        return (offset + Double(first) / 48000, offset + Double(last) / 48000)
    }

    @Test(arguments: [("mp4", ["-c:a", "aac", "-b:a", "128k"], [] as [String]),
                      ("mp4", ["-c:a", "aac", "-b:a", "128k"], ["--semitones", "2"]),
                      ("mp4", ["-c:a", "aac", "-b:a", "128k"], ["--fps", "30", "--preset", "ultrafast"]),
                      ("mkv", ["-c:a", "libopus", "-b:a", "96k"], [] as [String]),
                      ("mov", ["-c:a", "pcm_s16le"], [] as [String])])
    func soundLastsToTheEnd(container: String, audio: [String], options: [String]) throws {
        let folder = try TemporaryFolder("late-audio")
        let movie = try lateMovie(folder, container: container, audio: audio)
        let source = try loudSpan(movie)
        #expect(abs(source.first - 0.3) < 0.03 && source.last > 9.97, "the source's tone spans \(source)")
        #expect(try TestSupport.run(TestSupport.slowpoke, ["open", movie.lastPathComponent], in: folder.url).status == 0)
        #expect(try TestSupport.run(TestSupport.slowpoke, ["scale", "--range", "2-3", "--rate", "0.5"], in: folder.url).status == 0)
        let result = try TestSupport.run(TestSupport.slowpoke, ["export", "--progress", "none"] + options, in: folder.url)
        #expect(result.status == 0, "\(result.stderr)")
        // 1 s longer: the tone starts at 0.3 s and sounds to 11 s.
        let (first, last) = try loudSpan(folder.file(options.contains("--fps") ? "late-30fps.\(container)" : "late-slowpoke.\(container)"))
        #expect(abs(first - 0.3) < 0.03, "the tone starts at \(first) s")
        #expect(last > 10.97 && last < 11.03, "the tone ends at \(last) s, not 11 s")
    }

    /// Audio that sounds after the last video frame (a track 2 s longer than the picture) or
    /// before the first (sound that starts 0.5 s earlier) is outside the timeline, which is the
    /// video's: the export and `info` say how much of it is left out.
    @Test func audioOutsideTheVideoIsNamed() throws {
        let folder = try TemporaryFolder("overhang")
        let longer = folder.file("longer.mp4"), earlier = folder.file("earlier.mkv")
        let tone = ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=12"]
        var made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=10"] + tone
                                        + ["-c:v", "libx264", "-c:a", "aac", "-y", longer.path])
        #expect(made.status == 0, "\(made.stderr)")
        made = try TestSupport.tool("ffmpeg", ["-v", "error", "-itsoffset", "0.5", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=10"] + tone
                                    + ["-c:v", "libx264", "-c:a", "aac", "-t", "10", "-y", earlier.path])
        #expect(made.status == 0, "\(made.stderr)")
        // (Matroska starts the video 21 ms later still, for the AAC priming.)
        for (movie, said) in [(longer, "its last 2.0 s, after the last video frame, are not in the export"),
                              (earlier, "its first 0.52 s, before the first video frame, are not in the export")] {
            let document = movie.deletingPathExtension().lastPathComponent + ".slowpoke"
            #expect(try TestSupport.run(TestSupport.slowpoke, ["open", movie.lastPathComponent], in: folder.url).status == 0)
            let info = try TestSupport.run(TestSupport.slowpoke, ["info", document], in: folder.url)
            #expect(info.stdout.contains(said), "\(info.stdout)")
            let result = try TestSupport.run(TestSupport.slowpoke, ["export", document, "--progress", "none"], in: folder.url)
            #expect(result.status == 0 && result.stderr.contains("\(movie.lastPathComponent) audio stream 1: \(said)"), "\(result.stderr)")
        }
        // Audio inside the video says nothing.
        let inside = try lateMovie(folder, container: "mp4", audio: ["-c:a", "aac"])
        #expect(try TestSupport.run(TestSupport.slowpoke, ["open", inside.lastPathComponent], in: folder.url).status == 0)
        let quiet = try TestSupport.run(TestSupport.slowpoke, ["export", "late.slowpoke", "--progress", "none"], in: folder.url)
        #expect(quiet.status == 0 && !quiet.stderr.contains("not in the export"), "\(quiet.stderr)")
    }
}
