import Foundation
import Testing
import TestSupport

/// A transport stream with two programs (issue 51): program A (H.264, MP2 in German and
/// English) and program B (other H.264, AC-3 in French). A document plays one program, with all
/// of its streams and none of the other's; `info` lists both.
@Suite struct TransportProgramTests {
    func slowpoke(_ arguments: [String], in folder: TemporaryFolder) throws -> TestSupport.Result {
        try TestSupport.run(TestSupport.slowpoke, arguments, in: folder.url)
    }

    func twoPrograms(_ folder: TemporaryFolder) throws {
        let made = try TestSupport.tool("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=160x120:r=25:d=3", "-f", "lavfi", "-i", "sine=f=300:d=3",
            "-f", "lavfi", "-i", "sine=f=500:d=3", "-f", "lavfi", "-i", "smptebars=s=160x120:r=25:d=3", "-f", "lavfi", "-i", "sine=f=800:d=3",
            "-map", "0:v", "-map", "1:a", "-map", "2:a", "-map", "3:v", "-map", "4:a", "-c:v", "libx264", "-preset", "ultrafast", "-g", "25",
            "-c:a:0", "mp2", "-c:a:1", "mp2", "-c:a:2", "ac3", "-metadata:s:a:0", "language=deu", "-metadata:s:a:1", "language=eng",
            "-metadata:s:a:2", "language=fra", "-program", "title=A:program_num=1:st=0:st=1:st=2",
            "-program", "title=B:program_num=2:st=3:st=4", folder.file("two.ts").path])
        #expect(made.status == 0, "\(made.stderr)")
    }

    /// The output's streams as `kind/language` (edited audio is encoded anew, in a codec of
    /// the container's choosing).
    func streams(_ file: URL) throws -> [String] {
        let probe = try TestSupport.ffprobe(file, ["-show_entries", "stream=codec_type,codec_name:stream_tags=language"])
        return (probe["streams"] as? [[String: Any]] ?? []).map {
            "\($0["codec_type"] ?? "")/\(($0["tags"] as? [String: Any])?["language"] ?? "")"
        }
    }

    func pictures(_ file: URL, map: String) throws -> [String] {
        let result = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", file.path, "-map", map, "-fps_mode", "passthrough", "-f", "framemd5", "-"])
        return result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    @Test(arguments: [(nil, ["video/", "audio/deu", "audio/eng"], "0:0"), (2, ["video/", "audio/fra"], "0:3")] as [(Int?, [String], String)])
    func anExportTakesOneProgramWhole(program: Int?, expected: [String], sourceVideo: String) throws {
        let folder = try TemporaryFolder("ts-programs")
        try twoPrograms(folder)
        #expect(try slowpoke(["open", "two.ts"] + (program.map { ["--program", String($0)] } ?? []), in: folder).status == 0)
        let info = try slowpoke(["info"], in: folder)
        #expect(info.stdout.contains("program 1 (A): streams 0, 1, 2") && info.stdout.contains("program 2 (B): streams 3, 4"), "\(info.stdout)")
        #expect(info.stdout.contains("program \(program ?? 1) (\(program == 2 ? "B" : "A")): streams \(program == 2 ? "3, 4" : "0, 1, 2"): the document plays it"))
        #expect(info.stdout.contains("program \(program == 2 ? 1 : 2) (\(program == 2 ? "A" : "B")): streams \(program == 2 ? "0, 1, 2" : "3, 4") (`export --program \(program == 2 ? 1 : 2)` exports it)"), "\(info.stdout)")
        #expect(try slowpoke(["scale", "--range", "1-2", "--rate", "0.5"], in: folder).status == 0)
        let export = try slowpoke(["export", "-o", "out.mkv", "--progress", "none"], in: folder)
        #expect(export.status == 0, "\(export.stderr)")
        #expect(try streams(folder.file("out.mkv")) == expected)
        // Every output picture is one of the chosen program's.
        let source = Set(try pictures(folder.file("two.ts"), map: sourceVideo))
        let output = try pictures(folder.file("out.mkv"), map: "0:v")
        #expect(output.count == 75 && output.allSatisfy(source.contains), "\(output.count) frames")
        #expect(export.stderr.contains("is not in the export: in program"), "\(export.stderr)")
    }

    /// `export --program N` takes program N whole, the document's edits applied to it, whichever
    /// program the document plays; passthrough and `--fps` alike.
    @Test(arguments: [[], ["--fps", "25", "--preset", "ultrafast"]])
    func exportProgramTakesThatProgram(extra: [String]) throws {
        let folder = try TemporaryFolder("ts-export-program")
        try twoPrograms(folder)
        #expect(try slowpoke(["open", "two.ts"], in: folder).status == 0)
        #expect(try slowpoke(["scale", "--range", "1-2", "--rate", "0.5"], in: folder).status == 0)
        let export = try slowpoke(["export", "--program", "2", "-o", "b.mkv", "--progress", "none"] + extra, in: folder)
        #expect(export.status == 0, "\(export.stderr)")
        #expect(try streams(folder.file("b.mkv")) == ["video/", "audio/fra"])
        let output = try pictures(folder.file("b.mkv"), map: "0:v")
        // Passthrough keeps the 75 source frames; 4 s at 25 fps are 100.
        #expect(output.count == (extra.isEmpty ? 75 : 100), "\(output.count) frames")
        if extra.isEmpty {
            // Passthrough: every picture is one of program B's, none of A's.
            let b = Set(try pictures(folder.file("two.ts"), map: "0:3")), a = Set(try pictures(folder.file("two.ts"), map: "0:0"))
            #expect(output.allSatisfy(b.contains) && !output.contains(where: a.contains))
        }
        // The document still plays program 1: a plain export takes A.
        let plain = try slowpoke(["export", "-o", "a.mkv", "--progress", "none"] + extra, in: folder)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(try streams(folder.file("a.mkv")) == ["video/", "audio/deu", "audio/eng"])
        let missing = try slowpoke(["export", "--program", "7", "-o", "c.mkv", "--progress", "none"], in: folder)
        #expect(missing.status == 1 && missing.stderr.contains("--program 7: two.ts has no program 7: its programs are 1, 2"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("c.mkv").path))
    }

    /// Edits made on program A that program B (1.5 s long) cannot hold are refused, naming both.
    @Test func editsPastAShorterProgramAreRefused() throws {
        let folder = try TemporaryFolder("ts-export-program-short")
        let made = try TestSupport.tool("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=160x120:r=25:d=3", "-f", "lavfi", "-i", "sine=f=300:d=3",
            "-f", "lavfi", "-i", "smptebars=s=160x120:r=25:d=1.5", "-f", "lavfi", "-i", "sine=f=800:d=1.5",
            "-map", "0:v", "-map", "1:a", "-map", "2:v", "-map", "3:a", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "mp2",
            "-program", "title=A:program_num=1:st=0:st=1", "-program", "title=B:program_num=2:st=2:st=3", folder.file("two.ts").path])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try slowpoke(["open", "two.ts"], in: folder).status == 0)
        #expect(try slowpoke(["remove", "--range", "2-2.9"], in: folder).status == 0)
        let export = try slowpoke(["export", "--program", "2", "-o", "b.mkv", "--progress", "none"], in: folder)
        #expect(export.status == 1 && export.stderr.contains("--program 2: the edits of two.slowpoke cannot be replayed on program 2: range 2-2.9 goes beyond the end of the timeline"),
                "\(export.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("b.mkv").path))
    }

    /// A batch recipe's `program` picks the program; without it, the first with video.
    @Test func batchRecipeTakesProgram() throws {
        let folder = try TemporaryFolder("ts-batch-program")
        try twoPrograms(folder)
        try FileManager.default.copyItem(at: folder.file("two.ts"), to: folder.file("other.ts"))
        let recipe = #"{"export": {"container": "mkv"}, "edits": [{"scale": {"range": "1-2", "rate": "1/2"}}], "#
            + #""movies": [{"path": "two.ts", "export": {"program": 2}}, "other.ts", {"path": "other.ts", "output": "bad.mkv", "export": {"program": 9}}]}"#
        try Data(recipe.utf8).write(to: folder.file("recipe.json"))
        let batch = try slowpoke(["batch", "recipe.json"], in: folder)
        #expect(try streams(folder.file("two-slowpoke.mkv")) == ["video/", "audio/fra"], "\(batch.stdout) \(batch.stderr)")
        #expect(try streams(folder.file("other-slowpoke.mkv")) == ["video/", "audio/deu", "audio/eng"])
        #expect(batch.stdout.contains("\"program\": other.ts has no program 9: its programs are 1, 2") || batch.stderr.contains("\"program\": other.ts has no program 9: its programs are 1, 2"),
                "\(batch.stdout) \(batch.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("bad.mkv").path))
    }

    @Test func aProgramTheFileLacksIsRefused() throws {
        let folder = try TemporaryFolder("ts-programs-refused")
        try twoPrograms(folder)
        let result = try slowpoke(["open", "two.ts", "--program", "7"], in: folder)
        #expect(result.status == 1 && result.stderr.contains("two.ts has no program 7: its programs are 1, 2"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("two.slowpoke").path))
    }
}
