import Foundation
import TestSupport
import Testing

/// An iPhone movie's QuickTime metadata (location, make, model, software, the playback intent)
/// survives every export (issue 36): mp4 and mov keep it as `mdta` keys, mkv as tags, and `info`
/// lists it. ffprobe reads the output's global tags.
@Suite struct QuickTimeMetadataTests {
    static let keys = [
        "com.apple.quicktime.location.ISO6709": "+48.8583+002.2945+035.000/",
        "com.apple.quicktime.make": "Apple",
        "com.apple.quicktime.model": "iPhone 15 Pro",
        "com.apple.quicktime.software": "17.4",
        "com.apple.quicktime.full-frame-rate-playback-intent": "1",
    ]

    @Test(arguments: [("mov", [] as [String]), ("mp4", []), ("mkv", []), ("mp4", ["--fps", "25", "--preset", "ultrafast"])])
    func appleMetadataIsKept(container: String, options: [String]) throws {
        let folder = try TemporaryFolder("qt-metadata")
        let movie = folder.file("IMG_0001.mov")
        let tags = Self.keys.sorted { $0.key < $1.key }.flatMap { ["-metadata", "\($0.key)=\($0.value)"] }
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=1",
                                                   "-c:v", "libx264", "-preset", "ultrafast"] + tags
                                                  + ["-metadata", "creation_time=2024-05-01T10:00:00Z", "-movflags", "use_metadata_tags", movie.path])
        try #require(made.status == 0, "\(made.stderr)")
        try #require(try TestSupport.run(TestSupport.slowpoke, ["open", movie.path]).status == 0)
        let document = folder.file("IMG_0001.slowpoke")
        let info = try TestSupport.run(TestSupport.slowpoke, ["info", document.path])
        let output = folder.file("out.\(container)")
        let export = try TestSupport.run(TestSupport.slowpoke, ["export", document.path, "-o", output.path] + options)
        try #require(export.status == 0, "\(export.stderr)")
        let format = try TestSupport.ffprobe(output, ["-show_entries", "format_tags"])["format"] as? [String: Any]
        // Matroska's tag names are upper case.
        let written = Dictionary(((format?["tags"] as? [String: String]) ?? [:]).map { ($0.key.lowercased(), $0.value) }) { a, _ in a }
        var checked = 0
        for (key, value) in Self.keys {
            #expect(written[key.lowercased()] == value, ".\(container) \(options): \(key) is \(written[key.lowercased()] ?? "missing")")
            #expect(info.stdout.contains("\(key) = \(value)"), "info: \(info.stdout)")
            checked += 1
        }
        #expect(written["creation_time"]?.hasPrefix("2024-05-01T10:00:00") == true, "\(written)")
        #expect(checked == 5)
    }
}
