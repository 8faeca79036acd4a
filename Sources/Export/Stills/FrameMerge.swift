import Foundation
internal import CFFmpeg
import Media

/// A still with less noise: neighbouring source frames aligned to the frame shown by dense
/// optical flow and averaged in where they agree with it (``MergeLibrary``), on 8- or 10-bit
/// 4:2:0 pictures. Other formats are converted to 4:2:0 first (8-bit, or 10-bit from deeper
/// sources).
enum FrameMerge {
    /// `reference` merged with `neighbours`, and the mean weight the neighbours got (1: all of
    /// every neighbour counted; lower where the flow could not explain a neighbour's motion).
    static func merge(_ reference: Frame, with neighbours: [Frame], display: String) throws -> (Frame, Double) {
        let library = try MergeLibrary.shared.get()
        let tenBit = StillPictures.bitDepth(of: reference) > 8
        let format = tenBit ? AV_PIX_FMT_YUV420P10LE : AV_PIX_FMT_YUV420P
        let pictures = try ([reference] + neighbours).map { try StillPictures.converted($0, to: format) }
        let first = pictures[0].pointer.pointee
        let out = try Frame()
        out.pointer.pointee.format = format.rawValue
        out.pointer.pointee.width = first.width
        out.pointer.pointee.height = first.height
        let allocated = av_frame_get_buffer(out.pointer, 0)
        guard allocated >= 0 else { throw ExportError.libav(AVFailure(code: allocated, operation: "allocating the merged picture")) }
        _ = av_frame_copy_props(out.pointer, pictures[0].pointer)
        var planes: [UnsafePointer<UInt8>?] = []
        var strides: [Int32] = []
        for picture in pictures {
            let p = picture.pointer.pointee
            planes += [UnsafePointer(p.data.0), UnsafePointer(p.data.1), UnsafePointer(p.data.2)]
            strides += [p.linesize.0, p.linesize.1, p.linesize.2]
        }
        let o = out.pointer.pointee
        let outPlanes: [UnsafeMutablePointer<UInt8>?] = [o.data.0, o.data.1, o.data.2]
        let outStrides: [Int32] = [o.linesize.0, o.linesize.1, o.linesize.2]
        var used = 0.0
        var message = [CChar](repeating: 0, count: 256)
        let code = library.merge(first.width, first.height, tenBit ? 10 : 8, Int32(pictures.count), planes, strides,
                                 outPlanes, outStrides, &used, &message, Int32(message.count))
        // Keeps the converted pictures alive until the merge has read them.
        withExtendedLifetime(pictures) {}
        guard code == 0 else {
            let detail = String(cString: message)
            let why = switch code {
            case 2: "the picture is smaller than 32x32 pixels"
            case 5: "the optical flow failed: \(detail)"
            default: "the merge refused its input (code \(code))"
            }
            throw ExportError.unsupported("cannot merge frames of \(display): \(why)")
        }
        return (out, used)
    }
}
