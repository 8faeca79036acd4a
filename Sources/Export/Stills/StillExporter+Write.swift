import Foundation
import Composition
import SafeFiles
internal import CFFmpeg
import Media

extension StillExporter {
    /// Decodes, chooses, merges, converts, encodes and writes one still.
    func write(_ plan: StillPlan, format: StillFormat, decoder: FrameDecoder, scan: VideoScan,
               rotation: Int, metadata: CaptureMetadata) throws -> Result {
        var taken = plan.choice.frame
        var picture = try decoder.frame(taken)
        var sharpness: Double?
        let candidates = plan.candidates
        if plan.options.best > 0 {
            var best = (frame: taken, picture: picture, score: try Sharpness.varianceOfLaplacian(picture))
            for i in candidates where i != taken {
                let candidate = try decoder.frame(i)
                let score = try Sharpness.varianceOfLaplacian(candidate)
                if score > best.score { best = (i, candidate, score) }
            }
            (taken, picture, sharpness) = (best.frame, best.picture, best.score)
        }
        var merged = 1
        var weight: Double?
        if plan.options.merge > 1 {
            let others = plan.mergeFrames(around: taken).dropFirst()
            if !others.isEmpty {
                let neighbours = try others.map { try decoder.frame($0) }
                (picture, weight) = try FrameMerge.merge(picture, with: Array(neighbours), display: source.name)
                merged = 1 + others.count
            }
        }
        let deep = StillPictures.bitDepth(of: picture) > 8 && format.keepsDeepSamples
        let p = picture.pointer.pointee
        let sar = p.sample_aspect_ratio
        let displayWidth = sar.num > 0 && sar.den > 0 && sar.num != sar.den
            ? max(1, Int((Double(p.width) * Double(sar.num) / Double(sar.den)).rounded()))
            : Int(p.width)
        let still = try StillPictures.display(picture, displayWidth: displayWidth, rotation: rotation,
                                              format: format.pixelFormat(deep: deep, fullChroma: StillPictures.hasFullChroma(picture)))
        var bytes = try StillEncoder.encode(still, as: format, display: plan.request.output.lastPathComponent)
        let colour = StillColour(primaries: Int(p.color_primaries.rawValue), transfer: Int(p.color_trc.rawValue))
        bytes = PictureFileMetadata.add(metadata, colour: colour, to: bytes, format: format)
        do {
            try OutputFile.write(bytes, to: plan.request.output, replacing: force, inputs: source.inputs)
        } catch {
            throw ExportError.output(error)
        }
        let s = still.pointer.pointee
        return Result(output: plan.request.output, time: plan.request.time, format: format,
                      sourceFrame: taken, sourceTime: scan.presentationTimes[taken], shownFrame: plan.choice.frame,
                      width: Int(s.width), height: Int(s.height), bitsPerSample: deep ? 16 : 8,
                      compared: plan.options.best > 0 ? candidates.count : 1, sharpness: sharpness,
                      merged: merged, mergeWeight: weight, metadata: metadata.found, colour: colour.said(in: format))
    }
}
