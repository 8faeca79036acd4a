import Foundation

extension ExportSession {
    /// Checks the finished file, before it is put in place, against `plan` (``ExportVerifier``;
    /// `rewritten`: the output positions of copied packets whose bytes the exporter changed;
    /// `crop`: the region of the source's pictures a cropped export shows). A
    /// file that differs is put beside the target under a name that says so
    /// (``commitFailed()``), and this throws what differs.
    func verify(_ plan: PassthroughPlan, rewritten: Set<Int>, crop: PictureRegion? = nil) throws -> ExportVerification {
        guard let file = destination.file else {
            throw ExportError.unsupported("verifying reads the written movie back, and standard output cannot be read back; write a file to verify it")
        }
        let verifier = ExportVerifier(plan: plan, rewritten: rewritten, movie: movie, stream: videoStream.index,
                                      output: file.temporary.path, plannedKinds: streamPlan?.writtenKinds ?? [], crop: crop)
        do {
            return try verifier.verify()
        } catch let failure as ExportVerification.Failure {
            throw ExportError.verificationFailed(failure, kept: try commitFailed().path)
        }
    }

    /// Puts the finished file in place under a name that says it failed verification
    /// (`clip-slowpoke.FAILED-VERIFY.mp4`, else `…FAILED-VERIFY-2.mp4` and on: no file is
    /// replaced), and returns it.
    func commitFailed() throws -> URL {
        let target = destination.destination
        let stem = target.deletingPathExtension().lastPathComponent, ext = target.pathExtension
        let names = (1...99).map { n in
            target.deletingLastPathComponent().appendingPathComponent("\(stem).FAILED-VERIFY\(n == 1 ? "" : "-\(n)").\(ext)")
        }
        guard let file = destination.file else { preconditionFailure("a stream is never verified") }
        do { return try file.commit(asideAs: names) } catch { throw ExportError.output(error) }
    }
}
