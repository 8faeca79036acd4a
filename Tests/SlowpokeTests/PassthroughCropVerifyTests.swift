import Foundation
import TestSupport
import Testing

/// `export --crop --verify` (and `--zoom --verify`): the verifier decodes every picture of the
/// cropped output and compares it with the source's picture cut to the same region, on the
/// sources of ``PassthroughCropTests`` (x264 with B-pyramids, in-band parameter sets, x265,
/// Main 10), with a frame-exact cut so that some frames are re-encoded too.
@Suite(.serialized) struct PassthroughCropVerifyTests {
    @Test(arguments: PassthroughCropTests.sources.map(\.name)) func aVerifiedCropPasses(name: String) throws {
        let folder = try TemporaryFolder("passthrough-crop-verify")
        let source = try #require(PassthroughCropTests.sources.first { $0.name == name })
        let file = try PassthroughCropTests.make(source, in: folder)
        let document = PassthroughCropTests.document(file)
        let removed = try TestSupport.run(TestSupport.slowpoke, ["remove", document, "--range", "0.52-0.8"])
        try #require(removed.status == 0, "\(removed.stderr)")
        let out = folder.file("cropped.\(file.pathExtension)")
        let crop = "\(PassthroughCropTests.width):\(PassthroughCropTests.height):\(PassthroughCropTests.x):\(PassthroughCropTests.y)"
        let export = try TestSupport.run(TestSupport.slowpoke, ["export", document, "--crop", crop, "--verify", "-o", out.path, "--progress", "none"])
        try #require(export.status == 0, "\(export.stderr)")
        // 50 frames, 0.28 s (7 frames) removed: about 43 shown, some re-encoded after the cut.
        let line = try #require(export.stdout.split(separator: "\n").first { $0.hasPrefix("verified:") }, "\(export.stdout)")
        let copied = try #require(line.firstMatch(of: #/(\d+) decoded identical to the source's pictures cropped the same way/#).flatMap { Int($0.1) }, "\(line)")
        let reencoded = line.firstMatch(of: #/(\d+) re-encoded/#).flatMap { Int($0.1) } ?? 0
        let frames = try #require(line.firstMatch(of: #/^verified: (\d+) frames/#).flatMap { Int($0.1) })
        #expect((40...45).contains(frames), "\(line)")
        #expect(reencoded > 0 && copied + reencoded == frames, "\(line)")
    }

    @Test func aVerifiedZoomPasses() throws {
        let folder = try TemporaryFolder("passthrough-zoom-verify")
        let file = try PassthroughCropTests.make(PassthroughCropTests.sources[0], in: folder)
        let out = folder.file("zoomed.mp4")
        let export = try TestSupport.run(TestSupport.slowpoke, ["export", PassthroughCropTests.document(file), "--zoom", "3", "--verify", "-o", out.path])
        try #require(export.status == 0, "\(export.stderr)")
        #expect(export.stdout.contains("verified: 50 frames, 50 copied byte-identical, 50 decoded identical to the source's pictures cropped the same way"), "\(export.stdout)")
    }
}
