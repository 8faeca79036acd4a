import Foundation
import TestSupport
import Testing

/// Passthrough keeps the source's four-character code wherever the container takes it (issue
/// 36): every ProRes profile (`apco` … `ap4x`) in .mov and .mkv, HEVC's `hvc1` and `hev1` in .mp4
/// and .mov. ffprobe reads the tag; a 4444 or XQ stream must still decode at 12 bits with alpha,
/// which ffmpeg does only under its own tag.
@Suite struct CodecTagTests {
    static func probe(_ file: URL) throws -> (tag: String, pixelFormat: String, frames: Int) {
        let streams = try TestSupport.ffprobe(file, ["-count_frames", "-select_streams", "v",
                                                     "-show_entries", "stream=codec_tag_string,pix_fmt,nb_read_frames"])["streams"] as? [[String: Any]]
        let s = streams?.first ?? [:]
        return (s["codec_tag_string"] as? String ?? "", s["pix_fmt"] as? String ?? "", Int(s["nb_read_frames"] as? String ?? "") ?? 0)
    }

    @Test(arguments: [(0, "apco"), (1, "apcs"), (2, "apcn"), (3, "apch"), (4, "ap4h"), (5, "ap4x")])
    func proResProfilesKeepTheirFourCC(profile: Int, fourCC: String) throws {
        let folder = try TemporaryFolder("prores\(profile)")
        let movie = folder.file("clip.mov")
        let alpha = profile >= 4 ? ["-pix_fmt", "yuva444p10le"] : []
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=1"]
                                        + alpha + ["-c:v", "prores_ks", "-profile:v", "\(profile)", movie.path])
        try #require(made.status == 0, "\(made.stderr)")
        let source = try Self.probe(movie)
        try #require(source.tag == fourCC, "ffmpeg wrote \(source.tag)")
        try #require(try TestSupport.run(TestSupport.slowpoke, ["open", movie.path]).status == 0)
        var checked = 0
        for ext in ["mov", "mkv"] {
            let output = folder.file("out.\(ext)")
            let export = try TestSupport.run(TestSupport.slowpoke, ["export", folder.file("clip.slowpoke").path, "-o", output.path])
            try #require(export.status == 0, "\(export.stderr)")
            let copied = try Self.probe(output)
            #expect(copied.tag == fourCC, ".\(ext): \(copied.tag) for \(fourCC)")
            #expect(copied.pixelFormat == source.pixelFormat, ".\(ext): decodes as \(copied.pixelFormat), the source as \(source.pixelFormat)")
            #expect(copied.frames == 25, ".\(ext): \(copied.frames) frames")
            if profile >= 4 { #expect(copied.pixelFormat == "yuva444p12le", ".\(ext): \(copied.pixelFormat)") }
            checked += 1
        }
        #expect(checked == 2)
    }

    @Test(arguments: ["hvc1", "hev1"])
    func hevcKeepsItsSampleEntry(fourCC: String) throws {
        let folder = try TemporaryFolder("hevc-\(fourCC)")
        let movie = folder.file("clip.mp4")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=1",
                                                   "-c:v", "libx265", "-x265-params", "log-level=none", "-tag:v", fourCC, movie.path])
        try #require(made.status == 0, "\(made.stderr)")
        try #require(try TestSupport.run(TestSupport.slowpoke, ["open", movie.path]).status == 0)
        var checked = 0
        for ext in ["mp4", "mov"] {
            let output = folder.file("out.\(ext)")
            let export = try TestSupport.run(TestSupport.slowpoke, ["export", folder.file("clip.slowpoke").path, "-o", output.path])
            try #require(export.status == 0, "\(export.stderr)")
            #expect(try Self.probe(output).tag == fourCC, ".\(ext)")
            checked += 1
        }
        #expect(checked == 2)
    }
}
