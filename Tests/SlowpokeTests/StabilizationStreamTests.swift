import Foundation
import TestSupport
import Testing

/// The stabilization analysis is made of the document's primary video stream (its program's),
/// by export and preview alike, and kept per stream (issue 56): on a transport stream whose two
/// programs have different video (program 1 a still mandelbrot, 240x180, stream 0; program 2 a
/// shaky testsrc2, 320x240, stream 1), each stream's kept analysis is, after slowpoke's seal
/// line, byte for byte what ffmpeg's own vidstabdetect writes for that stream (and not the
/// other's), and an analysis made for the other stream is made again.
@Suite struct StabilizationStreamTests {
    static let frames = 25

    /// `two.ts`, and `two.slowpoke` opened on program 2 (the shaky stream 1).
    static func twoVideoPrograms(in folder: TemporaryFolder) throws {
        let made = try TestSupport.tool("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "mandelbrot=s=240x180:r=25,trim=end_frame=\(frames)",
            "-f", "lavfi", "-i", "testsrc2=s=400x300:r=25,crop=320:240:x='40+30*sin(n*1.7)':y='30+20*cos(n*2.3)',trim=end_frame=\(frames)",
            "-map", "0:v", "-map", "1:v", "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-pix_fmt", "yuv420p",
            "-program", "title=A:program_num=1:st=0", "-program", "title=B:program_num=2:st=1", folder.file("two.ts").path])
        try #require(made.status == 0, "\(made.stderr)")
        let opened = try TestSupport.run(TestSupport.slowpoke, ["open", "two.ts", "--program", "2"], in: folder.url)
        try #require(opened.status == 0 && opened.stdout.contains("320x240"), "\(opened.stdout)\(opened.stderr)")
    }

    /// ffmpeg's vidstabdetect of stream `index` of `two.ts`, at slowpoke's settings.
    static func detected(_ index: Int, in folder: TemporaryFolder) throws -> [UInt8] {
        let name = "ref\(index).trf"
        let run = try TestSupport.tool("ffmpeg", ["-v", "error", "-y", "-i", "two.ts", "-map", "0:\(index)",
                                                  "-vf", "vidstabdetect=shakiness=5:accuracy=15:result=\(name)", "-f", "null", "-"],
                                       in: folder.url)
        try #require(run.status == 0, "\(run.stderr)")
        return [UInt8](try Data(contentsOf: folder.file(name)))
    }

    /// The kept analyses by file name.
    static func kept(in folder: TemporaryFolder) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.file("two.slowpoke-stab").path)) ?? []).filter { $0.hasSuffix(".trf") }.sorted()
    }

    /// The kept analysis of stream `index`: its seal (second) line, and the rest (libvidstab's).
    static func analysis(ofStream index: Int, in folder: TemporaryFolder) throws -> (seal: String, detected: [UInt8]) {
        let name = try #require(kept(in: folder).first { $0.contains("-stream\(index)-") }, "\(kept(in: folder))")
        var lines = try String(contentsOf: folder.file("two.slowpoke-stab/\(name)"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        try #require(lines.count > 2)
        let seal = lines.remove(at: 1)
        return (seal, Array(lines.joined(separator: "\n").utf8))
    }

    /// Checks that stream `index`'s kept analysis is sealed for it and is ffmpeg's of it, not
    /// of the other stream.
    static func expectAnalysis(ofStream index: Int, in folder: TemporaryFolder, reference: [[UInt8]]) throws {
        let (seal, detected) = try analysis(ofStream: index, in: folder)
        #expect(seal.hasPrefix("# slowpoke movie=") && seal.contains(" stream=\(index) crc32="), "\(seal)")
        #expect(detected == reference[index], "stream \(index)'s analysis is not ffmpeg's of stream \(index)")
        #expect(detected != reference[1 - index], "stream \(index)'s analysis is ffmpeg's of stream \(1 - index)")
    }

    func export(_ flags: [String], _ output: String, in folder: TemporaryFolder) throws -> String {
        let run = try TestSupport.run(TestSupport.slowpoke, ["export", "--fps", "25", "--stabilize"] + flags + ["-o", output, "--progress", "none"],
                                      in: folder.url)
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout
    }

    @Test func eachProgramsVideoHasItsOwnAnalysis() throws {
        let folder = try TemporaryFolder("stabilize-streams")
        try Self.twoVideoPrograms(in: folder)
        let reference = [try Self.detected(0, in: folder), try Self.detected(1, in: folder)]
        try #require(reference[0] != reference[1] && reference.allSatisfy { $0.count > 100 })

        // The document plays program 2: stream 1 is analysed and steadied.
        let second = try export([], "b.mp4", in: folder)
        #expect(second.contains("analysis made and kept in two.slowpoke-stab"), "\(second)")
        #expect(Self.kept(in: folder).count == 1 && Self.kept(in: folder)[0].contains("-stream1-"), "\(Self.kept(in: folder))")
        try Self.expectAnalysis(ofStream: 1, in: folder, reference: reference)
        let probe = try TestSupport.ffprobe(folder.file("b.mp4"), ["-show_entries", "stream=width,height"])
        let size = (probe["streams"] as? [[String: Any]])?.first.map { "\($0["width"] ?? "")x\($0["height"] ?? "")" }
        #expect(size.map { $0 != "240x180" && $0 != "0x0" } ?? false, "exported \(String(describing: size))")

        // Program 1 exported: stream 0's analysis is made, not stream 1's reused.
        let first = try export(["--program", "1"], "a.mp4", in: folder)
        #expect(first.contains("analysis made and kept in two.slowpoke-stab"), "\(first)")
        #expect(Self.kept(in: folder).count == 2, "\(Self.kept(in: folder))")
        try Self.expectAnalysis(ofStream: 0, in: folder, reference: reference)
        #expect(try export([], "c.mp4", in: folder).contains("analysis reused"))

        // Stream 0's analysis put where stream 1's is kept is made again for stream 1.
        let names = Self.kept(in: folder)
        let (zero, one) = (folder.file("two.slowpoke-stab/\(names[0])"), folder.file("two.slowpoke-stab/\(names[1])"))
        try FileManager.default.removeItem(at: one)
        try FileManager.default.copyItem(at: zero, to: one)
        let redone = try export([], "d.mp4", in: folder)
        #expect(redone.contains("analysis made again, as the kept one was made from another of the movie's video streams, not stream 1,"), "\(redone)")
        try Self.expectAnalysis(ofStream: 1, in: folder, reference: reference)
        try Self.expectAnalysis(ofStream: 0, in: folder, reference: reference)
    }
}

/// `preview --stabilize` on the document playing program 2 steadies stream 1, as export does:
/// export's analysis of it is reused and the pictures shown are stream 1's (320x240); one of
/// stream 0 where stream 1's belongs is made again, and export then reuses the preview's.
extension PreviewScreenTests {
    @Test func stabilizedPreviewAnalysesTheDocumentsVideoStream() throws {
        let folder = try TemporaryFolder("preview-stabilize-streams")
        try StabilizationStreamTests.twoVideoPrograms(in: folder)
        let reference = [try StabilizationStreamTests.detected(0, in: folder), try StabilizationStreamTests.detected(1, in: folder)]
        func preview(dump: String) throws -> String {
            // A display of its own: on a shared one, 1 in 6 second sessions (started at once
            // after the first quit) exited 0 before its window was found, as if q were still down.
            let display = try VirtualDisplay()
            let dumped = folder.file(dump)
            try FileManager.default.createDirectory(at: dumped, withIntermediateDirectories: true)
            let session = try PreviewSession(["two.slowpoke", "--play", "--stabilize"], in: folder.url, display: display,
                                             environment: ["SLOWPOKE_PREVIEW_PICTURE_DUMP": dumped.path])
            try session.waitUntilReady()
            session.waitForClock(0.8, timeout: 20)
            usleep(300_000)
            #expect(session.quit() == 0, "\(session.stderr())")
            let pictures = try Self.dumped(dumped, prefix: "steadied-")
            #expect(pictures.count >= 5 && pictures.values.allSatisfy { $0.count == 320 * 240 },
                    "\(pictures.count) steadied pictures, of \(Set(pictures.values.map(\.count))) bytes")
            return session.stderr()
        }
        for (flags, output) in [(["--program", "1"], "a.mp4"), ([], "b.mp4")] {
            let made = try TestSupport.run(TestSupport.slowpoke, ["export", "--fps", "25", "--stabilize"] + flags + ["-o", output, "--progress", "none"],
                                           in: folder.url)
            #expect(made.status == 0 && made.stdout.contains("analysis made"), "\(made.stdout)\(made.stderr)")
        }
        let reused = try preview(dump: "reused")
        #expect(reused.contains("analysis reused"), "\(reused)")

        let names = StabilizationStreamTests.kept(in: folder)
        try #require(names.count == 2 && names[1].contains("-stream1-"), "\(names)")
        let (zero, one) = (folder.file("two.slowpoke-stab/\(names[0])"), folder.file("two.slowpoke-stab/\(names[1])"))
        try FileManager.default.removeItem(at: one)
        try FileManager.default.copyItem(at: zero, to: one)
        let redone = try preview(dump: "redone")
        #expect(redone.contains("analysis made again, as the kept one was made from another of the movie's video streams, not stream 1,"), "\(redone)")
        try StabilizationStreamTests.expectAnalysis(ofStream: 1, in: folder, reference: reference)
        let again = try TestSupport.run(TestSupport.slowpoke, ["export", "--fps", "25", "--stabilize", "-o", "c.mp4", "--progress", "none"], in: folder.url)
        #expect(again.stdout.contains("analysis reused"), "\(again.stdout)\(again.stderr)")
    }
}
