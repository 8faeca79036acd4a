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

    @Test func aProgramTheFileLacksIsRefused() throws {
        let folder = try TemporaryFolder("ts-programs-refused")
        try twoPrograms(folder)
        let result = try slowpoke(["open", "two.ts", "--program", "7"], in: folder)
        #expect(result.status == 1 && result.stderr.contains("two.ts has no program 7: its programs are 1, 2"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("two.slowpoke").path))
    }
}
