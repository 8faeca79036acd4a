import Composition
import Foundation
import Media

/// `--stabilize` in the player: the steadied pictures (``SteadiedVideo``) shown instead of the
/// reader's when it is on, `v` to compare, and the picture dump tests read.
extension Player {
    /// Shows the steadied picture for source time `source`; whether the picture changed, and
    /// the source time of the picture on screen.
    func showSteadied(_ steadied: SteadiedVideo, at source: Time, on video: VideoView) throws -> (changed: Bool, shown: Double?) {
        guard try steadied.show(at: source), let index = steadied.shown else {
            return (false, steadied.shown.map { steadied.prepared.times[$0].seconds })
        }
        try steadied.withPlanes { planes, linesizes in
            video.update(planes: planes, linesizes: linesizes)
            dump(planes[0], linesize: linesizes[0], width: steadied.prepared.width, height: steadied.prepared.height,
                 name: "steadied-\(index)")
        }
        return (true, steadied.prepared.times[index].seconds)
    }

    /// `v`: the steadied pictures or the reader's, to compare.
    func toggleSteadied(message: (String) -> Void) {
        guard let steadied else {
            return message(options.video ? "nothing to steady: this preview started without stabilization" : "steadied pictures show in the window only")
        }
        steadied.isOn.toggle()
        steadied.forgetShown()
        message(steadied.isOn ? "steadied" : "not steadied")
    }

    /// The steadied picture's cost for the summary, when there is one.
    var steadyingCost: SteadyingCost? {
        guard let steadied else { return nil }
        return SteadyingCost(pictures: steadied.costs.whole.count, medianWhole: FrameTiming.median(steadied.costs.whole),
                             medianTransform: FrameTiming.median(steadied.costs.transform), restarts: steadied.restarts)
    }

    /// With ``PreviewOptions/pictureDump``: the luma of a picture shown, as raw 8-bit grey
    /// `width` × `height` bytes, to `<folder>/<name>.gray` (the reader's pictures are named
    /// `source-<index>` by their time in frames of the nominal rate, steadied ones `steadied-<index>`
    /// by their source picture), for tests to measure the motion on screen.
    func dump(_ luma: UnsafePointer<UInt8>, linesize: Int, width: Int, height: Int, name: String) {
        guard let folder = options.pictureDump else { return }
        var bytes = Data(capacity: width * height)
        for row in 0..<height { bytes.append(luma + row * linesize, count: width) }
        try? bytes.write(to: folder.appendingPathComponent("\(name).gray"))
    }

    /// The reader's picture on screen, dumped as ``dump(_:linesize:width:height:name:)`` says.
    func dumpReaderPicture() {
        guard options.pictureDump != nil, let reader, let time = reader.currentTime else { return }
        let index = Int((time.seconds / (reader.nominalFrameDuration ?? (1.0 / 30))).rounded())
        _ = try? reader.withPlanes { planes, linesizes in
            dump(planes[0], linesize: linesizes[0], width: reader.pictureWidth, height: reader.pictureHeight, name: "source-\(index)")
        }
    }
}
