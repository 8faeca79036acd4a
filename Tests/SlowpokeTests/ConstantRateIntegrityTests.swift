import Composition
import Foundation
import Project
import TestSupport
import Testing

/// The `--fps` oracle: the same generated footage and seeded random edits as
/// ``FrameIntegrityTests``, exported near-losslessly (crf 1) at 30 fps; every output frame must be the
/// source frame that sample and hold predicts from the exact time map (PSNR above 35 dB against
/// it, where a neighbouring frame of the moving pattern scores under 30), and a gap black.
@Suite struct ConstantRateIntegrityTests {
    /// Presentation timestamps (sorted) and the time base's denominator of the first video stream.
    static func frameTimes(_ file: URL) throws -> (ticks: [Int64], timescale: Int32) {
        let json = try TestSupport.ffprobe(file, ["-select_streams", "v:0", "-show_entries", "packet=pts:stream=time_base"])
        let ticks = (json["packets"] as? [[String: Any]] ?? []).compactMap { $0["pts"] as? Int }.map(Int64.init).sorted()
        let base = ((json["streams"] as? [[String: Any]])?.first?["time_base"] as? String) ?? "1/1"
        let parts = base.split(separator: "/").compactMap { Int32($0) }
        try #require(parts.count == 2 && parts[0] == 1, "time base \(base)")
        return (ticks, parts[1])
    }

    /// Every decoded frame as 8-bit luma, in presentation order.
    static func lumaFrames(_ file: URL, width: Int, height: Int) throws -> [[UInt8]] {
        let raw = FileManager.default.temporaryDirectory.appendingPathComponent("slowpoke-luma-\(UUID().uuidString).y")
        defer { try? FileManager.default.removeItem(at: raw) }
        let run = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", file.path, "-map", "0:v:0", "-fps_mode", "passthrough",
                                                  "-pix_fmt", "gray", "-f", "rawvideo", "-y", raw.path])
        try #require(run.status == 0, "\(run.stderr)")
        let data = [UInt8](try Data(contentsOf: raw))
        let size = width * height
        return stride(from: 0, to: data.count - size + 1, by: size).map { Array(data[$0..<($0 + size)]) }
    }

    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        var sum = 0.0
        for i in a.indices { let d = Double(a[i]) - Double(b[i]); sum += d * d }
        let mse = sum / Double(a.count)
        return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
    }

    @Test(arguments: FrameIntegrityTests.shapes.map(\.name)) func everyFrameIsTheOneSampleAndHoldPredicts(shape name: String) throws {
        let folder = try TemporaryFolder("cfr-integrity")
        let source = try FrameIntegrityTests.make(name, in: folder)
        let (ticks, timescale) = try Self.frameTimes(source)
        let sourceFrames = try Self.lumaFrames(source, width: 320, height: 180)
        try #require(sourceFrames.count == ticks.count, "\(sourceFrames.count) decoded frames, \(ticks.count) packets")
        let times = ticks.map { Time(value: $0 - ticks[0], timescale: timescale) }

        var checked = 0, exported = 0
        for seed in FrameIntegrityTests.seeds {
            let (document, context) = try FrameIntegrityTests.editedCopy(of: source, seed: seed, in: folder)
            let track = try #require(try DocumentStore.read(document).timeline.track(withID: 0))
            // Long slow-motion timelines cost encoding time, not coverage.
            guard track.duration <= .seconds(40) else { continue }
            let output = document.deletingLastPathComponent().appendingPathComponent("out.mkv")
            let export = try TestSupport.run(TestSupport.slowpoke, ["export", document.path, "--fps", "30", "--crf", "1",
                                                                     "--preset", "ultrafast", "-o", output.path])
            #expect(export.status == 0, "\(context)\n\(export.stderr)")
            guard export.status == 0 else { continue }
            exported += 1
            let outputFrames = try Self.lumaFrames(output, width: 320, height: 180)
            let expectedCount = Int((track.duration.seconds * 30).rounded())
            #expect(abs(outputFrames.count - expectedCount) <= 1, "\(context): \(outputFrames.count) frames for \(track.duration.seconds) s")
            for (k, frame) in outputFrames.enumerated() {
                let t = try Time(value: Int64(k), timescale: 1).multiplied(by: Rational(1, 30))
                guard let p = try track.presentation(at: t) else { continue }
                guard let s = p.sourceTime else {
                    #expect(frame.max() ?? 0 <= 20, "\(context): output frame \(k) in a gap is not black")
                    continue
                }
                let index = times.lastIndex { $0 <= s } ?? 0
                let score = Self.psnr(frame, sourceFrames[index])
                if score < 35 {
                    Issue.record("\(context): output frame \(k) at \(t) shows source \(s) with \(score) dB against frame \(index)")
                    break
                }
                checked += 1
            }
        }
        #expect(exported >= 1 && checked >= 30 * exported, "checked \(checked) frames in \(exported) exports")
    }
}
