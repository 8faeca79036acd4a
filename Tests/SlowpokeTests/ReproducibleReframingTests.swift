import Foundation
import TestSupport
import Testing

/// The same command twice gives the same packets (as ``ReproducibleExportTests`` checks for
/// retimed exports) for the issue-56 paths: `export --fps 30 --stabilize` (the first run makes
/// the analysis, the later ones reuse it: both must give the same pictures) on the shaky clip
/// of ``StabilizeTests``, and a passthrough `--crop` on an x264 and an x265 source of
/// ``PassthroughCropTests``. Every packet's times, flags and data MD5 (ffprobe) are compared,
/// and the framemd5 of the decoded pictures. `make test` runs 2 exports of each, `make
/// test-long` 5 under load.
@Suite(.serialized) struct ReproducibleReframingTests {
    static let runs = TestTier.count(2, long: 5)

    /// Runs `arguments` (writing `output`) `runs` times in `folder`; each run's packets and
    /// decoded frames' MD5s.
    static func repeated(_ arguments: [String], output: String, in folder: TemporaryFolder) throws -> [(packets: [String], frames: [String])] {
        let load = TestTier.isLong ? ReproducibleExportTests.BusyLoad() : nil
        defer { load?.stop() }
        return try (0..<runs).map { run in
            let result = try TestSupport.run(TestSupport.slowpoke, arguments + ["-o", output, "--progress", "none"], in: folder.url)
            try #require(result.status == 0, "run \(run + 1): \(result.stderr)")
            defer { try? FileManager.default.removeItem(at: folder.file(output)) }
            let frames = try PassthroughCropTests.framemd5(["-flags", "unaligned", "-i", folder.file(output).path, "-map", "0:v", "-fps_mode", "passthrough"])
            return (try ReproducibleExportTests.packets(folder.file(output)), frames)
        }
    }

    static func compare(_ runs: [(packets: [String], frames: [String])], _ what: String, minimumPackets: Int) {
        let first = runs[0]
        #expect(runs.count >= 2 && first.packets.count >= minimumPackets && !first.frames.isEmpty, "\(what): \(first.packets.count) packets")
        for (k, run) in runs.enumerated().dropFirst() {
            if let at = (0..<min(first.packets.count, run.packets.count)).first(where: { first.packets[$0] != run.packets[$0] }) {
                Issue.record("\(what): run \(k + 1) differs from run 1 at packet line \(at): \(run.packets[at]) instead of \(first.packets[at])")
            }
            #expect(run.packets.count == first.packets.count && run.frames == first.frames, "\(what): run \(k + 1)")
        }
    }

    @Test func stabilizedExportsGiveTheSamePackets() throws {
        let folder = try TemporaryFolder("reproducible-stabilize")
        try StabilizeTests.shakyClip(in: folder)
        #expect(try TestSupport.run(TestSupport.slowpoke, ["open", "clip.mp4"], in: folder.url).status == 0)
        let runs = try Self.repeated(["export", "--fps", "30", "--stabilize"], output: "out.mp4", in: folder)
        Self.compare(runs, "--fps 30 --stabilize", minimumPackets: StabilizeTests.frames)
    }

    @Test(arguments: [0, 2]) func passthroughCropsGiveTheSamePackets(source index: Int) throws {
        let folder = try TemporaryFolder("reproducible-crop")
        let file = try PassthroughCropTests.make(PassthroughCropTests.sources[index], in: folder)
        let crop = "\(PassthroughCropTests.width):\(PassthroughCropTests.height):\(PassthroughCropTests.x):\(PassthroughCropTests.y)"
        let runs = try Self.repeated(["export", PassthroughCropTests.document(file), "--crop", crop], output: "out.\(file.pathExtension)", in: folder)
        Self.compare(runs, "--crop on \(file.lastPathComponent)", minimumPackets: PassthroughCropTests.frames)
    }
}
