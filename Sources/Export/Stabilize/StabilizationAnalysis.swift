import Foundation
internal import CFFmpeg
internal import SafeFiles
import Media

/// vidstabdetect's pass over every picture of the source, in source order, written through
/// SafeFiles' ``OutputFile`` to ``Stabilization/analysisFile``. An analysis already there (the
/// same movie content, the same detection settings) is used as it is.
enum StabilizationAnalysis {
    /// The analysis file for `stabilization`, and whether it was already there. `pictures` gives
    /// source picture i of `count` (read forwards once); `progress` is called between pictures
    /// so that an interrupt stops the pass.
    static func prepare(_ stabilization: Stabilization, count: Int, inputs: [URL], pictures: (Int) throws -> Frame,
                        release: (Int) -> Void, progress: () throws -> Void) throws -> (file: URL, reused: Bool) {
        let file = stabilization.analysisFile
        if FileManager.default.fileExists(atPath: file.path) { return (file, true) }
        do {
            try FileManager.default.createDirectory(at: stabilization.cache, withIntermediateDirectories: true)
        } catch {
            throw ExportError.unsupported("the stabilization analysis cannot be kept in \(stabilization.cache.path): \(error.localizedDescription)")
        }
        let output = try OutputFile.claim(file, force: true, inputs: inputs)
        do {
            try detect(count: count, into: output.temporary.path, pictures: pictures, release: release, progress: progress)
            try output.commitExport()
        } catch {
            output.discard()
            throw error
        }
        return (file, false)
    }

    /// Runs the pictures through vidstabdetect writing `path`; the graph is gone (and the file
    /// closed) when this returns.
    private static func detect(count: Int, into path: String, pictures: (Int) throws -> Frame,
                               release: (Int) -> Void, progress: () throws -> Void) throws {
        var graph: FilterGraph?
        let chain = "vidstabdetect=shakiness=\(Stabilization.shakiness):accuracy=\(Stabilization.accuracy):result=\(Stabilization.escaped(path))"
        for i in 0..<count {
            let frame = try pictures(i)
            if graph == nil {
                graph = try FilterGraph(chain: chain, filter: "the stabilization analysis", input: FilterGraph.input(like: frame),
                                        work: "analysing the camera's motion")
            }
            try graph!.add(frame, pts: Int64(i))
            while try graph!.next() != nil {}
            release(i)
            if i % 8 == 0 { try progress() }
        }
        try graph?.add(nil)
        while try graph?.next() != nil {}
        graph = nil
    }
}
