import Composition
@testable import Export
import Foundation
import Media
import TestSupport
import Testing

/// ``ExportVerifier`` with a crop compares the output's pictures with the source's cut to the
/// region the export shows: the right region passes, a region one chroma step off (or the
/// whole picture) fails on every frame, naming the first.
@Suite struct CroppedVerifierTests {
    /// 2 s of 320x240 25 fps H.264 (B-frames), exported cropped to 160x120 at 40,20 by the
    /// cropping window, without verifying.
    func export(in folder: TemporaryFolder) throws -> (plan: PassthroughPlan, movie: URL, output: URL) {
        let movie = folder.file("clip.mp4")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2",
                                                   "-c:v", "libx264", "-bf", "3", "-g", "25", "-pix_fmt", "yuv420p", movie.path])
        try #require(made.status == 0, "\(made.stderr)")
        let media = try Prober.probe(movie)
        let timeline = try Composition(asset: media.asset(name: "clip.mp4"))
        let output = folder.file("out.mp4")
        var exporter = try PassthroughExporter(source: ExportSource(movie: movie, name: "clip.mp4", media: media, timeline: timeline),
                                               output: output, settings: .init(), force: false)
        exporter.reframing = try Reframing(crop: "160:120:40:20")
        _ = try exporter.run()
        return (try exporter.plan(), movie, output)
    }

    func verifier(_ plan: PassthroughPlan, movie: URL, output: URL, crop: PictureRegion?) -> ExportVerifier {
        ExportVerifier(plan: plan, rewritten: [], movie: movie, stream: 0, output: output.path, plannedKinds: ["video"], crop: crop)
    }

    @Test func theRightRegionPassesAndAWrongOneFails() throws {
        let folder = try TemporaryFolder("verifier-crop")
        let (plan, movie, output) = try export(in: folder)
        let proof = try verifier(plan, movie: movie, output: output, crop: PictureRegion(x: 40, y: 20, width: 160, height: 120)).verify()
        #expect(proof.frames == 50 && proof.croppedIdentical == 50, "\(proof.line)")
        var failed = 0
        for wrong in [PictureRegion(x: 42, y: 20, width: 160, height: 120), PictureRegion(x: 40, y: 22, width: 160, height: 120),
                      PictureRegion(x: 40, y: 20, width: 158, height: 120)] {
            do {
                _ = try verifier(plan, movie: movie, output: output, crop: wrong).verify()
                Issue.record("a crop at \(wrong) verified")
            } catch let failure as ExportVerification.Failure {
                let pictures = failure.differences.filter { if case .picture = $0 { true } else { false } }
                #expect(pictures.count == 50, "\(wrong): \(failure.differences.count) differences")
                #expect(failure.description.hasPrefix("verification failed: the rewritten copy at ")
                        && failure.description.contains("decodes to another picture than source"), "\(failure.description)")
                failed += 1
            }
        }
        #expect(failed == 3)
        // Without the region, nothing is decoded: the copies are byte-identical, so a whole-picture
        // comparison is never made (what --verify did before it knew about crops).
        let uncropped = try verifier(plan, movie: movie, output: output, crop: nil).verify()
        #expect(uncropped.croppedIdentical == 0 && uncropped.copiedIdentical == 50)
    }
}
