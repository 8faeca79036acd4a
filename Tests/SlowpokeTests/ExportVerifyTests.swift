import Foundation
import TestSupport
import Testing

/// `export --verify` end to end (issue 50, item 6): H.264 and HEVC clips that ffmpeg makes at
/// test time, open and closed GOPs with B-frames, cut frame-exactly, slowed and reversed; the
/// proof line's numbers are checked against ffprobe's own counts: frames by `-count_packets`,
/// copied packets by `-show_data_hash` (an output packet whose MD5 is a source packet's).
@Suite struct ExportVerifyTests {
    func slowpoke(_ arguments: String..., in folder: TemporaryFolder) throws -> TestSupport.Result {
        try TestSupport.run(TestSupport.slowpoke, arguments, in: folder.url)
    }

    /// 8 s of 320x240 25 fps testsrc2 and a 1 kHz tone, encoded as `args` say.
    static let shapes: [(name: String, args: [String], reverse: Bool)] = [
        ("h264-closed", ["-c:v", "libx264", "-bf", "3", "-g", "50"], true),
        ("h264-open", ["-c:v", "libx264", "-bf", "3", "-x264-params", "open-gop=1:keyint=30"], true),
        ("hevc-closed", ["-c:v", "libx265", "-x265-params", "log-level=error:keyint=30:bframes=3"], false),
        ("hevc-open", ["-c:v", "libx265", "-x265-params", "log-level=error:keyint=30:bframes=3:open-gop=1"], false),
    ]

    func make(_ shape: (name: String, args: [String], reverse: Bool), in folder: TemporaryFolder) throws {
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=8",
                                                   "-f", "lavfi", "-i", "sine=f=1000:d=8:r=48000"] + shape.args
                                        + ["-pix_fmt", "yuv420p", "-c:a", "aac", folder.file("clip.mp4").path])
        try #require(made.status == 0, "\(made.stderr)")
        #expect(try slowpoke("open", "clip.mp4", in: folder).status == 0)
        #expect(try slowpoke("remove", "--range", "1.08-2.2", in: folder).status == 0)
        #expect(try slowpoke("scale", "--range", "4-5", "--rate", "0.5", in: folder).status == 0)
        if shape.reverse { #expect(try slowpoke("reverse", "--range", "6.2-6.8", in: folder).status == 0) }
    }

    /// The numbers of the proof line, by what they count ("copied byte-identical" → 125).
    func numbers(_ line: String) -> [String: Double] {
        var found: [String: Double] = [:]
        for part in line.dropFirst("verified: ".count).split(separator: ", ") {
            let words = part.split(separator: " ")
            guard let n = words.first.flatMap({ Double($0) }) else { continue }
            found[words.dropFirst().first.map(String.init) ?? ""] = n
            if let at = words.firstIndex(of: "at"), at + 1 < words.count { found["dB"] = Double(words[at + 1]) }
        }
        return found
    }

    /// The MD5 of every video packet of `file`.
    func packetHashes(_ file: URL) throws -> [String] {
        let json = try TestSupport.ffprobe(file, ["-select_streams", "v:0", "-show_data_hash", "MD5", "-show_entries", "packet=data_hash"])
        return (json["packets"] as? [[String: Any]] ?? []).compactMap { $0["data_hash"] as? String }
    }

    @Test(arguments: shapes)
    func verifiedExportProvesWhatFfprobeCounts(_ shape: (name: String, args: [String], reverse: Bool)) throws {
        let folder = try TemporaryFolder("verify")
        try make(shape, in: folder)
        let result = try slowpoke("export", "--verify", "--progress", "none", in: folder)
        #expect(result.status == 0, "\(shape.name): \(result.stderr)")
        let line = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("verified: ") }.map(String.init), "\(result.stdout)")
        let n = numbers(line)
        let output = folder.file("clip-slowpoke.mp4")
        let counted = try TestSupport.ffprobe(output, ["-select_streams", "v:0", "-count_packets", "-show_entries", "stream=nb_read_packets"])
        let packets = ((counted["streams"] as? [[String: Any]])?.first?["nb_read_packets"] as? String).flatMap(Int.init)
        #expect(n["frames"].map(Int.init) == packets, "\(shape.name): \(line)")
        // Copied byte-identical: the output packets whose bytes are a source packet's.
        let source = Set(try packetHashes(folder.file("clip.mp4")))
        let copied = try packetHashes(output).filter(source.contains).count
        #expect(n["copied"].map(Int.init) == copied, "\(shape.name): \(line)")
        let streams = try TestSupport.ffprobe(output, ["-show_entries", "stream=index"])["streams"] as? [[String: Any]]
        #expect(n["streams"].map(Int.init) == streams?.count)
        // Every frame is accounted for, and some of each kind were checked.
        let reencoded = n["re-encoded"] ?? 0, rewritten = n["rewritten"] ?? 0
        #expect(Int((n["copied"] ?? 0) + reencoded + rewritten) == packets, "\(shape.name): \(line)")
        #expect(reencoded >= 3 && (n["copied"] ?? 0) + rewritten >= 50 && (n["copied"] ?? 0) >= 20, "\(shape.name): \(line)")
        #expect((n["dB"] ?? 0) >= 45, "\(shape.name): \(line)")
        if shape.name == "h264-open" { #expect(rewritten >= 1, "\(line)") }
        #expect(line.contains("sync within"))
    }

    @Test func verifyIsRefusedWhereThereIsNoPlanToCheck() throws {
        let folder = try TemporaryFolder("verify")
        let result = try slowpoke("export", "--verify", "--fps", "30", in: folder)
        #expect(result.status != 0)
        #expect(result.stderr.contains("--verify checks a passthrough export against its plan; --fps re-encodes every frame, so no packet is copied to compare (leave out --fps to verify)"), "\(result.stderr)")
    }

    @Test func batchVerifiesWhenTheRecipeSaysSo() throws {
        let folder = try TemporaryFolder("verify")
        try make(Self.shapes[0], in: folder)
        let recipe = #"{"output_dir": "out", "export": {"verify": true}, "edits": [{"remove": {"range": "1.08-2.2"}}], "movies": ["clip.mp4"]}"#
        try Data(recipe.utf8).write(to: folder.file("recipe.json"))
        let result = try slowpoke("batch", "recipe.json", in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("verified: "), "\(result.stdout)")
        let refused = #"{"export": {"verify": true, "fps": 30}, "movies": ["clip.mp4"]}"#
        try Data(refused.utf8).write(to: folder.file("fps.json"))
        let failed = try slowpoke("batch", "fps.json", in: folder)
        #expect(failed.status != 0)
        #expect(failed.stdout.contains("\"verify\" checks a passthrough export against its plan"), "\(failed.stdout)")
    }
}
