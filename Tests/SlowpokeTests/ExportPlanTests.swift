import Foundation
import Testing
import TestSupport

/// The plan is the contract (issue 50): what `info --json` and `export --dry-run` say the
/// default export writes is what it writes, frame by frame; the fit moves times only, never a
/// frame (the default export and `--exact` show the same source frames in the same order).
@Suite struct ExportPlanTests {
    func slowpoke(_ arguments: [String], in folder: TemporaryFolder) throws -> TestSupport.Result {
        try TestSupport.run(TestSupport.slowpoke, arguments, in: folder.url)
    }

    /// Each source frame's MD5 by its presentation time (seconds, to the microsecond).
    func sourceFrames(_ movie: URL) throws -> [String: String] {
        let result = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", movie.path, "-map", "0:v:0", "-fps_mode", "passthrough",
                                                     "-f", "framemd5", "-"])
        var byTime: [String: String] = [:]
        var timeBase = 1.0
        for line in result.stdout.split(separator: "\n") {
            if line.hasPrefix("#tb 0:"), let slash = line.split(separator: ":").last?.split(separator: "/"), slash.count == 2,
               let n = Double(slash[0].trimmingCharacters(in: .whitespaces)), let d = Double(slash[1]) { timeBase = n / d }
            guard !line.hasPrefix("#") else { continue }
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count == 6, let pts = Double(fields[2]) else { continue }
            byTime[String(format: "%.6f", pts * timeBase)] = fields[5]
        }
        return byTime
    }

    func seconds(_ text: String) -> Double {
        let parts = text.split(separator: "/").compactMap { Double($0) }
        return parts.count == 2 ? parts[0] / parts[1] : parts.first ?? .nan
    }

    /// The issue's cases: a 24 fps clip with two removals whose fitted end crossed source frame
    /// 24 (1.0 s), and a 60 fps clip with `remove 20.3-27.7` whose fit dropped source frame 1662
    /// (27.7 s). The plan (`info --json --frames`) lists the frames; `export` writes exactly
    /// those (framemd5 against the source frame each one names; re-encoded ones differ only
    /// where the plan says), the same source frames as `--exact`, and `--dry-run` and `info`
    /// count what `export` prints.
    @Test(arguments: [("24", "3", ["keyint=15:bframes=0"], [["remove", "--range", "13/24-17/24"], ["remove", "--range", "3/4-5/6"]]),
                      ("60", "30", ["keyint=60:bframes=3"], [["remove", "--range", "20.3-27.7"]])])
    func theExportWritesThePlan(fps: String, seconds length: String, x264: [String], edits: [[String]]) throws {
        let folder = try TemporaryFolder("export-plan")
        let movie = folder.file("clip.mp4")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=160x120:r=\(fps):d=\(length)",
                                                   "-f", "lavfi", "-i", "sine=f=440:d=\(length)", "-c:v", "libx264", "-preset", "veryfast",
                                                   "-x264-params", x264[0], "-c:a", "aac", movie.path])
        #expect(made.status == 0, "\(made.stderr)")
        for edit in [["open", "clip.mp4"]] + edits { #expect(try slowpoke(edit, in: folder).status == 0) }
        let info = try slowpoke(["info", "--json", "--frames"], in: folder)
        let plan = try #require((try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])?["exportPlan"] as? [String: Any])
        let frames = try #require(plan["frames"] as? [[String: Any]])
        let dryRun = try slowpoke(["export", "--dry-run"], in: folder)
        let export = try slowpoke(["export", "--progress", "none"], in: folder)
        #expect(export.status == 0, "\(export.stderr)")
        let wrote = try #require(export.stdout.split(separator: "\n").first.map(String.init))
        let counts = "\(plan["videoFrames"] as? Int ?? -1) frames"
        #expect(wrote.contains(counts) && dryRun.stdout.contains(counts), "plan \(counts); export: \(wrote); dry run: \(dryRun.stdout)")
        if let reencoded = plan["reencodedFrames"] as? Int, reencoded > 0 {
            #expect(wrote.contains("\(reencoded) frames re-encoded") && wrote.contains("\(plan["copiedFrames"] as? Int ?? -1) copied"), "\(wrote)")
        }
        // Every output frame is the source frame the plan names (copied ones exactly).
        let source = try sourceFrames(movie)
        let output = try TestSupport.frameMD5s(folder.file("clip-slowpoke.mp4"))
        #expect(output.errors.isEmpty, "\(output.errors)")
        #expect(output.md5s.count == frames.count, "\(output.md5s.count) frames written, \(frames.count) planned")
        var checked = 0
        for (md5, frame) in zip(output.md5s, frames) where frame["reencoded"] as? Bool == false {
            let time = String(format: "%.6f", seconds(frame["source"] as? String ?? ""))
            #expect(source[time] == md5, "the output frame planned as source \(time) is not that frame")
            checked += 1
        }
        #expect(checked >= frames.count / 2)
        // --exact shows the same source frames, in the same order.
        let exact = try slowpoke(["export", "--exact", "-o", "exact.mp4", "--progress", "none"], in: folder)
        #expect(exact.status == 0, "\(exact.stderr)")
        #expect(try TestSupport.frameMD5s(folder.file("exact.mp4")).md5s == output.md5s, "the fit changed which frames play")
    }
}
