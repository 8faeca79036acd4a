import Composition
@testable import Export
import Foundation
import TestSupport
import Testing
import Media

/// ``ExportVerifier`` against outputs damaged after a clean export: a flipped byte in a copied
/// packet, in a re-encoded one, and a frame dropped; each failure names the frame.
@Suite struct ExportVerifierTests {
    /// 8 s of 320x240 25 fps H.264 (B-frames, closed GOPs of 50) with AAC, 1.08-2.2 s removed,
    /// exported without verifying; returns the plan and the output.
    func export(in folder: TemporaryFolder) throws -> (plan: PassthroughPlan, movie: URL, output: URL) {
        let movie = folder.file("clip.mp4")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=8",
                                                   "-f", "lavfi", "-i", "sine=f=1000:d=8:r=48000", "-c:v", "libx264", "-bf", "3",
                                                   "-g", "50", "-pix_fmt", "yuv420p", "-c:a", "aac", movie.path])
        try #require(made.status == 0, "\(made.stderr)")
        let media = try Prober.probe(movie)
        var timeline = try Composition(asset: media.asset(name: "clip.mp4"))
        try timeline.removeTimeRange(TimeRange(start: Time(value: 108, timescale: 100), end: Time(value: 22, timescale: 10)))
        let output = folder.file("out.mp4")
        let exporter = try PassthroughExporter(source: ExportSource(movie: movie, name: "clip.mp4", media: media, timeline: timeline),
                                               output: output, settings: .init(), force: false)
        _ = try exporter.run()
        return (try exporter.plan(), movie, output)
    }

    func verifier(_ plan: PassthroughPlan, movie: URL, output: URL) -> ExportVerifier {
        ExportVerifier(plan: plan, rewritten: [], movie: movie, stream: 0, output: output.path, plannedKinds: ["video", "audio"])
    }

    /// Flips bytes in the middle of the output's video packet shown at `seconds`.
    func damage(_ output: URL, packetAt seconds: Double) throws {
        let json = try TestSupport.ffprobe(output, ["-select_streams", "v:0", "-show_entries", "packet=pts_time,pos,size"])
        let packets = json["packets"] as? [[String: Any]] ?? []
        let packet = try #require(packets.first { ($0["pts_time"] as? String).flatMap(Double.init).map { abs($0 - seconds) < 1e-6 } ?? false })
        let pos = try #require((packet["pos"] as? String).flatMap(Int.init)), size = try #require((packet["size"] as? String).flatMap(Int.init))
        var bytes = try Data(contentsOf: output)
        for i in (pos + size / 2)..<(pos + size / 2 + 8) { bytes[i] ^= 0x5A }
        try bytes.write(to: output)
    }

    @Test func aCleanExportVerifies() throws {
        let folder = try TemporaryFolder("verifier")
        let (plan, movie, output) = try export(in: folder)
        let proof = try verifier(plan, movie: movie, output: output).verify()
        #expect(proof.frames == plan.videoFrames && proof.frames == 172)
        #expect(proof.copiedIdentical == plan.copiedFrames && proof.reencoded == plan.reencodedFrames && proof.reencoded > 0)
        #expect((proof.minimumPSNR ?? 0) >= 45)
        #expect(proof.streams == 2)
    }

    @Test func aFlippedByteInACopiedPacketNamesItsFrame() throws {
        let folder = try TemporaryFolder("verifier")
        let (plan, movie, output) = try export(in: folder)
        let frame = try #require(plan.frames.last { !$0.reencoded })
        let source = try #require(frame.source)
        try damage(output, packetAt: frame.time.seconds)
        #expect {
            try verifier(plan, movie: movie, output: output).verify()
        } throws: { error in
            let failure = error as? ExportVerification.Failure
            return failure?.differences.contains(.copiedBytes(time: frame.time, source: source)) == true
                && failure?.description.contains("the copied packet of the frame at \(frame.time.readable) differs from the source packet at \(source.readable)") == true
        }
    }

    @Test func aDamagedReencodedFrameIsNamed() throws {
        let folder = try TemporaryFolder("verifier")
        let (plan, movie, output) = try export(in: folder)
        let frame = try #require(plan.frames.first { $0.reencoded })
        try damage(output, packetAt: frame.time.seconds)
        #expect {
            try verifier(plan, movie: movie, output: output).verify()
        } throws: { error in
            (error as? ExportVerification.Failure)?.differences.contains { difference in
                switch difference {
                case .picture(let time, _, _, _), .undecodable(let time, _): time == frame.time
                default: false
                }
            } == true
        }
    }

    @Test func aDroppedFrameIsCounted() throws {
        let folder = try TemporaryFolder("verifier")
        let (plan, movie, output) = try export(in: folder)
        let short = folder.file("short.mp4")
        let cut = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", output.path, "-map", "0", "-c", "copy",
                                                  "-frames:v", "\(plan.videoFrames - 1)", short.path])
        try #require(cut.status == 0, "\(cut.stderr)")
        #expect {
            try verifier(plan, movie: movie, output: short).verify()
        } throws: { error in
            (error as? ExportVerification.Failure)?.differences.contains(.frameCount(planned: plan.videoFrames, found: plan.videoFrames - 1)) == true
        }
    }
}
