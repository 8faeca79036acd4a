import Foundation
import Testing
import TestSupport

/// `info` plans the export its flags choose (issue 51 item 1): with `--fps N`, `--codec`, `-o`
/// it says, word for word, each warning that `export` with the same flags gives before any
/// work (PQ or 10 bits into 8-bit H.264, HDR10+ that H.264 drops, a stream left out), and the
/// line `export --dry-run` prints; `info --json` carries the same warnings. Checked against
/// what both commands print, on clips made here with ffmpeg.
@Suite struct InfoExportModeTests {
    func slowpoke(_ arguments: [String], in folder: TemporaryFolder) throws -> TestSupport.Result {
        try TestSupport.run(TestSupport.slowpoke, arguments, in: folder.url)
    }

    /// The clips, each in a folder of its own with its document: name → folder.
    func clips() throws -> [String: TemporaryFolder] {
        var made: [String: TemporaryFolder] = [:]
        let size = "testsrc2=s=320x240:r=30:d=1", sound = ["-f", "lavfi", "-i", "sine=r=48000:d=1", "-c:a", "aac", "-shortest"]
        let recipes: [(String, [String])] = [
            ("hdr10.mp4", ["-f", "lavfi", "-i", size] + sound + ["-vf", "format=yuv420p10le", "-c:v", "libx265", "-preset", "ultrafast",
                            "-x265-params", "log-level=error:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc:master-display=\(HDRReencodeTests.masterDisplay):max-cll=1000,400",
                            "-tag:v", "hvc1"]),
            ("tenbit.mp4", ["-f", "lavfi", "-i", size] + sound + ["-vf", "format=yuv420p10le", "-c:v", "libx264", "-preset", "ultrafast"]),
            ("sdr.mp4", ["-f", "lavfi", "-i", size] + sound + ["-vf", "format=yuv420p", "-c:v", "libx264", "-preset", "ultrafast"]),
        ]
        for (name, arguments) in recipes {
            let folder = try TemporaryFolder("info-export-mode")
            let result = try TestSupport.tool("ffmpeg", ["-v", "error"] + arguments + [folder.file(name).path])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            made[name] = folder
        }
        // A Matroska movie with an attachment, which an .mp4 export leaves out (and says so).
        let attached = try TemporaryFolder("info-export-mode")
        try "notes".write(to: attached.file("notes.txt"), atomically: true, encoding: .utf8)
        let result = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", size, "-c:v", "libx264", "-preset", "ultrafast",
                                                     "-attach", attached.file("notes.txt").path, "-metadata:s:t", "mimetype=text/plain",
                                                     attached.file("attached.mkv").path])
        #expect(result.status == 0, "\(result.stderr)")
        made["attached.mkv"] = attached
        let plus = try TemporaryFolder("info-export-mode")
        _ = try HDR10PlusTests().hdr10PlusMovie(plus, audio: false)
        made["hdr10plus.mp4"] = plus
        for (name, folder) in made {
            #expect(try slowpoke(["open", name], in: folder).status == 0)
            #expect(try slowpoke(["scale", "--range", "0.2-0.5", "--rate", "0.5"], in: folder).status == 0)
        }
        return made
    }

    /// The warning lines of `info`'s text, `info --json`, `export --dry-run` and `export`, and
    /// the `would write` lines of `info` and `export --dry-run`.
    struct Said {
        var info: [String] = [], json: [String] = [], dryRun: [String] = [], export: [String] = []
        var infoWouldWrite: String?, dryRunWouldWrite: String?
    }

    func said(_ flags: [String], in folder: TemporaryFolder) throws -> Said {
        var said = Said()
        let info = try slowpoke(["info"] + flags, in: folder)
        #expect(info.status == 0, "info \(flags): \(info.stderr)")
        let lines = info.stdout.split(separator: "\n").map(String.init)
        said.info = lines.filter { $0.hasPrefix("  export will say: ") }.map { String($0.dropFirst("  export will say: ".count)) }
        said.infoWouldWrite = lines.first { $0.hasPrefix("  would write ") }.map { String($0.dropFirst(2)) }
        let json = try slowpoke(["info", "--json"] + flags, in: folder)
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let plan = object?["exportConstantRate"] as? [String: Any]
        #expect(plan != nil && object?["exportPlan"] == nil, "info --json \(flags): \(json.stdout.prefix(300))")
        said.json = (plan?["warnings"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
        let dry = try slowpoke(["export", "--dry-run", "--progress", "none"] + flags, in: folder)
        #expect(dry.status == 0, "export --dry-run \(flags): \(dry.stderr)")
        said.dryRun = Self.warnings(dry.stderr)
        said.dryRunWouldWrite = dry.stdout.split(separator: "\n").first.map(String.init)
        let export = try slowpoke(["export", "--progress", "none"] + flags, in: folder)
        #expect(export.status == 0, "export \(flags): \(export.stderr)")
        said.export = Self.warnings(export.stderr)
        return said
    }

    static func warnings(_ stderr: String) -> [String] {
        stderr.split(separator: "\n").map { String($0.hasPrefix("slowpoke: warning: ") ? $0.dropFirst("slowpoke: warning: ".count) : $0) }
    }

    @Test func infoSaysTheConstantRateExportsWarnings() throws {
        let clips = try clips()
        // (clip, flags, warnings expected: the start of each line, in order).
        let cases: [(String, [String], [String])] = [
            ("hdr10.mp4", ["--fps", "30"], ["hdr10.mp4's video is 10-bit", "hdr10.mp4's video is HDR (PQ), and H.264 here is 8-bit"]),
            ("hdr10.mp4", ["--fps", "30", "--codec", "hevc"], []),
            ("hdr10.mp4", ["--fps", "25", "--codec", "h264", "-o", "out.mkv"], ["hdr10.mp4's video is 10-bit", "hdr10.mp4's video is HDR (PQ)"]),
            ("tenbit.mp4", ["--fps", "30"], ["tenbit.mp4's video is 10-bit, and H.264 here is written at 8 bits"]),
            ("tenbit.mp4", ["--fps", "30", "--codec", "hevc"], []),
            ("hdr10plus.mp4", ["--fps", "25"], ["hdr10plus.mp4's video is 10-bit", "hdr10plus.mp4's video is HDR (PQ)",
                                                "hdr10plus.mp4's video carries HDR10+ dynamic metadata (SMPTE ST 2094-40), which H.264 here does not"]),
            ("hdr10plus.mp4", ["--fps", "25", "--codec", "hevc"], []),
            ("sdr.mp4", ["--fps", "30"], []),
            ("sdr.mp4", ["--fps", "24", "--codec", "hevc"], []),
            ("attached.mkv", ["--fps", "30", "-o", "out.mp4"], ["attached.mkv stream 1 (attachment"]),
        ]
        var withWarnings = 0, checked = 0
        for (clip, options, expected) in cases {
            let folder = try #require(clips[clip])
            let output = options.contains("-o") ? [] : ["-o", "out-\(checked).mp4"]
            let flags = options + output + ["--preset", "ultrafast"]
            let said = try said(flags, in: folder)
            #expect(said.info.count == expected.count && zip(said.info, expected).allSatisfy { $0.hasPrefix($1) },
                    "\(clip) \(flags): info says \(said.info)")
            #expect(said.json == said.info, "\(clip) \(flags): info --json says \(said.json), info \(said.info)")
            #expect(said.dryRun == said.info, "\(clip) \(flags): export --dry-run says \(said.dryRun), info \(said.info)")
            #expect(said.export == said.info, "\(clip) \(flags): export says \(said.export), info \(said.info)")
            #expect(said.infoWouldWrite != nil && said.infoWouldWrite == said.dryRunWouldWrite,
                    "\(clip) \(flags): info \(said.infoWouldWrite ?? "nil"), export --dry-run \(said.dryRunWouldWrite ?? "nil")")
            if !said.info.isEmpty { withWarnings += 1 }
            checked += 1
            try? FileManager.default.removeItem(at: folder.file("out.mkv"))
            try? FileManager.default.removeItem(at: folder.file("out.mp4"))
        }
        #expect(checked == cases.count && withWarnings >= 5, "\(withWarnings) of \(checked) cases warned")
    }

    /// Without export flags `info` shows the passthrough plan, as before; a codec the output
    /// cannot hold is the export's own refusal, in `info` before any work.
    @Test func withoutFlagsThePassthroughPlanAndARefusalIsSaid() throws {
        let folder = try TemporaryFolder("info-export-mode-refusal")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=1", "-c:v", "libx264",
                                                   "-preset", "ultrafast", folder.file("sdr.mp4").path])
        #expect(made.status == 0)
        #expect(try slowpoke(["open", "sdr.mp4"], in: folder).status == 0)
        let plain = try slowpoke(["info"], in: folder)
        #expect(plain.stdout.contains("Export (passthrough, to .mp4;") && !plain.stdout.contains("--fps 30"), "\(plain.stdout)")
        let refused = try slowpoke(["info", "--fps", "30", "--codec", "prores", "-o", "x.mp4"], in: folder)
        let export = try slowpoke(["export", "--fps", "30", "--codec", "prores", "-o", "x.mp4"], in: folder)
        #expect(export.status != 0)
        let message = export.stderr.replacingOccurrences(of: "slowpoke: error: ", with: "").trimmingCharacters(in: .newlines)
        #expect(refused.status == 0 && refused.stdout.contains("  export --fps refuses: \(message)\n"), "info: \(refused.stdout)\nexport: \(export.stderr)")
        let misused = try slowpoke(["info", "--codec", "hevc"], in: folder)
        #expect(misused.status != 0 && misused.stderr.contains("add --fps N"), "\(misused.stderr)")
    }

    /// A transport stream's second program: `info --fps 25 --program 2` plans program B alone
    /// (program A's streams "not in the export", in the table and in the warnings `export`
    /// gives), and its words are `export --program 2`'s; the streams written are B's.
    @Test func infoPlansTheProgramAnExportTakes() throws {
        let folder = try TemporaryFolder("info-export-mode-program")
        try TransportProgramTests().twoPrograms(folder)
        #expect(try slowpoke(["open", "two.ts"], in: folder).status == 0)
        let flags = ["--fps", "25", "--program", "2", "-o", "b.mkv", "--preset", "ultrafast"]
        let said = try said(flags, in: folder)
        #expect(said.info.count >= 3 && said.info.allSatisfy { $0.hasPrefix("two.ts stream ") && $0.contains("is not in the export") }, "\(said.info)")
        #expect(said.json == said.info && said.dryRun == said.info && said.export == said.info,
                "info \(said.info), --json \(said.json), --dry-run \(said.dryRun), export \(said.export)")
        #expect(said.infoWouldWrite != nil && said.infoWouldWrite == said.dryRunWouldWrite)
        let kinds = try TestSupport.ffprobe(folder.file("b.mkv"), ["-show_entries", "stream=codec_type"])["streams"] as? [[String: Any]] ?? []
        #expect(kinds.count == 2, "\(kinds)")
    }
}
