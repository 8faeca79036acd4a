import Foundation
public import Composition
internal import Bitstream
internal import CFFmpeg
import Media

/// A passthrough export's crop or zoom (``Reframing``), done without re-encoding: the H.264 or
/// HEVC stream's cropping window (``CroppingWindow``) is rewritten in the configuration record
/// and in every in-band SPS, every slice is copied, and the container states the cropped size
/// (mp4/mov track header, Matroska PixelWidth/Height; the sample aspect ratio is kept). A zoom
/// crops the middle of the picture and leaves the scaling to the player.
struct PassthroughCrop {
    let window: CroppingWindow
    let hevc: Bool
    let lengthSize: Int
    /// The stream's configuration record stating the window: rewritten before any work, to
    /// refuse what cannot be (``describe(_:setExtradata:)`` rewrites the output's own).
    let record: [UInt8]
    /// The part of the source's decoded pictures the output shows (what `--verify` compares).
    let region: PictureRegion
    /// What the summary says: `cropped to 640x360 at 320,180 by the stream's cropping window, nothing re-encoded for it`.
    let said: String
    /// Said when FFmpeg's decoders, which keep their planes 32-byte aligned unless asked not to
    /// (`AV_CODEC_FLAG_UNALIGNED`), would show the picture wider, from further left.
    let aligned: Notice?

    /// Works out the window for `reframing` of `source`'s video; throws, before any work, what
    /// makes the crop impossible without re-encoding.
    init(_ reframing: Reframing, source: ExportSource) throws {
        let name = source.name
        guard let index = source.media.primaryVideo?.index else { throw ExportError.unsupported("\(name) has no video") }
        let header = try InputFormatContext(path: source.movie.path)
        let p = header.stream(index).parameters.pointee
        let refuse = { (why: String) in
            ExportError.unavailable(Notice("\(name) cannot be cropped without re-encoding: \(why)",
                                           remedies: [Remedy(.constantRate, "to crop by re-encoding")]))
        }
        guard p.codec_id == AV_CODEC_ID_H264 || p.codec_id == AV_CODEC_ID_HEVC else {
            throw refuse("passthrough crops by rewriting an H.264 or HEVC stream's cropping window, and its video is \(String(cString: LibAVCodec.codecName(p.codec_id)))")
        }
        let hevc = p.codec_id == AV_CODEC_ID_HEVC
        self.hevc = hevc
        let extradata = p.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(p.extradata_size))) } ?? []
        let size = extradata.withUnsafeBufferPointer { hevc ? HEVCParameterSets.lengthSize(hvcC: $0) : ParameterSets.lengthSize(avcC: $0) }
        guard let size else { throw refuse("its parameter sets are not in an \(hevc ? "hvcC" : "avcC") record (Annex B streams are not cropped in passthrough)") }
        lengthSize = size
        do {
            let current = try CroppingWindow(record: extradata, hevc: hevc)
            let g = try reframing.geometry(width: current.width, height: current.height)
            var (x, y) = (g.x, g.y)
            // A zoom's centred window moves onto the chroma grid (a pixel left or up at most).
            if case .zoom = reframing { (x, y) = (x - x % current.unitX, y - y % current.unitY) }
            window = try current.cropped(width: g.width, height: g.height, x: x, y: y)
            region = PictureRegion(x: x, y: y, width: g.width, height: g.height)
            record = try window.written(intoRecord: extradata, hevc: hevc)
            let what = switch reframing {
            case .crop: "cropped to \(g.width)x\(g.height) at \(g.x),\(g.y)"
            case .zoom(let f): "zoomed \(String(format: "%g", f))x (the middle \(g.width)x\(g.height) at \(x),\(y), which players scale)"
            }
            said = what + " by the stream's cropping window, nothing re-encoded for it"
            // FFmpeg keeps the chroma planes' start 32-byte aligned: 64 pixels for 8 bits, 32 above.
            let multiple = p.format == AV_PIX_FMT_YUV420P.rawValue || p.format == AV_PIX_FMT_YUVJ420P.rawValue ? 64 : 32
            aligned = window.unitX == 2 && window.left % multiple != 0
                ? Notice("FFmpeg-based players show the crop of \(name) wider, from further left, unless they ask their decoder for unaligned crops: its left edge, \(window.left) pixels into the coded picture, is not a multiple of \(multiple)")
                : nil
        } catch let refusal as CropRefusal {
            throw refuse("\(refusal)")
        }
    }

    /// A copied sample with its in-band SPS stating the window; nil when it holds none.
    func sample(_ bytes: UnsafeBufferPointer<UInt8>) throws -> [UInt8]? {
        do { return try window.written(intoSample: bytes, lengthSize: lengthSize, hevc: hevc) } catch {
            throw ExportError.unsupported("a copied picture's sequence parameter set cannot be cropped: \(error)")
        }
    }

    /// `bytes` (a re-encoded or rewritten sample) with its in-band SPS stating the window.
    func sample(_ bytes: [UInt8]) throws -> [UInt8] {
        try bytes.withUnsafeBufferPointer { try sample($0) } ?? bytes
    }

    /// The output stream's record (the stream's, or with a smart cut's parameter sets beside
    /// them, which code pictures of the same size) stating the window, and its display size.
    func describe(_ stream: UnsafeMutablePointer<AVStream>, setExtradata: ([UInt8], UnsafeMutablePointer<AVStream>) -> Void) throws {
        let p = stream.pointee.codecpar.pointee
        let current = p.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(p.extradata_size))) } ?? []
        do { setExtradata(try window.written(intoRecord: current, hevc: hevc), stream) } catch {
            throw ExportError.unsupported("the output's parameter sets cannot be cropped: \(error)")
        }
        stream.pointee.codecpar.pointee.width = Int32(window.width)
        stream.pointee.codecpar.pointee.height = Int32(window.height)
    }
}
