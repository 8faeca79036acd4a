import Foundation
internal import CFFmpeg
import SafeFiles

/// vidstabdetect's pass over every picture of the source, in source order, sealed
/// (``StabilizationAnalysisFile``) and written through SafeFiles' ``OutputFile`` to
/// ``Stabilization/analysisFile(stream:)``. An analysis already there is used as it is only
/// when it is a sealed analysis of this movie's content and video stream, whole and in
/// libvidstab's grammar; anything else there (damaged, of another movie or another of its
/// streams, a link, a FIFO) is analysed again and replaced. A cache
/// folder that is a symbolic link or not a folder is refused, so nothing is written elsewhere.
package enum StabilizationAnalysis {
    /// The analysis file for `stabilization` of video stream `stream` (its index in the movie),
    /// whether it was already there, and why one that was there was not used. `pictures` gives
    /// source picture i of `count` of that stream (read forwards once); `progress` is called
    /// between pictures so that an interrupt stops the pass.
    package static func prepare(_ stabilization: Stabilization, stream: Int, count: Int, inputs: [URL], pictures: (Int) throws -> Frame,
                        release: (Int) -> Void, progress: () throws -> Void) throws -> (file: URL, reused: Bool, redone: String?) {
        let file = stabilization.analysisFile(stream: stream), cache = stabilization.cache
        var info = stat()
        if lstat(cache.path, &info) == 0 && info.st_mode & S_IFMT != S_IFDIR {
            throw MediaError.unsupported("the stabilization analysis is kept in \(cache.path), which is \(info.st_mode & S_IFMT == S_IFLNK ? "a symbolic link" : "not a folder"); remove it and it is made again as a folder")
        }
        let problem = StabilizationAnalysisFile.problem(file, movieKey: stabilization.movieKey, stream: stream, count: count)
        guard let problem else { return (file, true, nil) }
        let redone = problem == "missing" ? nil : problem
        if redone != nil {
            // A link, a FIFO or a damaged file: the name is freed (a link's target is untouched).
            if lstat(file.path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR {
                throw MediaError.unsupported("the stabilization analysis \(file.path) is a folder; remove it")
            }
            unlink(file.path)
        }
        do {
            try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        } catch {
            throw MediaError.unsupported("the stabilization analysis cannot be kept in \(cache.path): \(error.localizedDescription)")
        }
        let output = try OutputFile(file, replacing: true, inputs: inputs)
        do {
            try detect(count: count, into: output.temporary.path, pictures: pictures, release: release, progress: progress)
            // vidstabdetect wrote the temporary file through a stream of its own; the sealed
            // bytes are longer, so writing them from the start replaces all of it.
            let detected = try Data(contentsOf: output.temporary)
            try output.write(Data(try StabilizationAnalysisFile.sealed([UInt8](detected), movieKey: stabilization.movieKey, stream: stream)))
            try output.commit()
        } catch {
            output.discard()
            throw error
        }
        return (file, false, redone)
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
