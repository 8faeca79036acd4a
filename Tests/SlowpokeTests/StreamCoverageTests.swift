import Foundation
import TestSupport
import Testing

/// Nothing of a movie is dropped without a word: streams the export does not carry yet are
/// named before any work, and a codec the chosen container cannot hold is refused before any
/// work, naming the containers that can (issue 21, items 1-4 in part).
@Suite struct StreamCoverageTests {
    @Test func streamsLeftOutAreNamed() throws {
        let folder = try TemporaryFolder("streams")
        let movie = folder.file("multi.mkv")
        try Data("1\n00:00:01,000 --> 00:00:02,000\nHello\n".utf8).write(to: folder.file("s.srt"))
        try Data(";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=1500\ntitle=One\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=1500\nEND=3000\ntitle=Two\n".utf8)
            .write(to: folder.file("chapters.txt"))
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=3",
                                                   "-f", "lavfi", "-i", "sine=f=440:d=3", "-f", "lavfi", "-i", "sine=f=660:d=3",
                                                   "-i", folder.file("s.srt").path, "-i", folder.file("chapters.txt").path, "-map_chapters", "4",
                                                   "-map", "0", "-map", "1", "-map", "2", "-map", "3",
                                                   "-c:v", "libx264", "-c:a", "aac", "-c:s", "srt",
                                                   "-metadata:s:a:1", "language=fra", "-metadata:s:a:1", "title=Commentaire", movie.path])
        try #require(made.status == 0, "\(made.stderr)")
        try #require(try TestSupport.run(TestSupport.slowpoke, ["open", movie.path]).status == 0)
        for extra in [[String](), ["--fps", "30"]] {
            let export = try TestSupport.run(TestSupport.slowpoke, ["export", folder.file("multi.slowpoke").path, "--force",
                                                                     "-o", folder.file("out.mkv").path] + extra)
            #expect(export.status == 0, "\(export.stderr)")
            #expect(export.stderr.contains("stream 2 (audio, aac, language fra, title Commentaire) is not in the export"), "\(export.stderr)")
            #expect(export.stderr.contains("stream 3 (subtitle, subrip) is not in the export"), "\(export.stderr)")
            #expect(export.stderr.contains("multi.mkv has 2 chapters, which the export does not carry"), "\(export.stderr)")
        }
    }

    @Test func aCodecTheContainerCannotHoldIsRefusedFirst() throws {
        let folder = try TemporaryFolder("prores")
        let movie = folder.file("pr.mov")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=2",
                                                   "-c:v", "prores_ks", movie.path])
        try #require(made.status == 0, "\(made.stderr)")
        try #require(try TestSupport.run(TestSupport.slowpoke, ["open", movie.path]).status == 0)
        let document = folder.file("pr.slowpoke").path
        let refused = try TestSupport.run(TestSupport.slowpoke, ["export", document, "-o", folder.file("pr.mp4").path])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains(".mp4 cannot hold pr.mov's prores video; export to .mov or .mkv, or with --fps"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("pr.mp4").path))
        #expect(try folder.listing().allSatisfy { !$0.hasPrefix(".") }, "no temporary file is left")
        let mov = try TestSupport.run(TestSupport.slowpoke, ["export", document, "-o", folder.file("out.mov").path])
        #expect(mov.status == 0, "\(mov.stderr)")
    }
}
