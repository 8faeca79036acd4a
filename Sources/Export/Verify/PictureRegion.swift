import Foundation
import Media
internal import CFFmpeg

/// The part of a source picture a cropped export shows: `width` x `height` pixels from `x`,
/// `y` of the picture as decoded (after the source's own cropping window). `export --verify`
/// compares a cropped output's pictures with the source's cut to this region.
struct PictureRegion: Sendable, Equatable {
    let x: Int
    let y: Int
    let width: Int
    let height: Int

    /// `frame` cut to the region: a new reference to the same buffers with its planes' starts
    /// moved (unaligned, exact to the pixel); nil when the region is not inside the picture.
    func cropped(_ frame: UnsafePointer<AVFrame>) -> Frame? {
        let f = frame.pointee
        guard x >= 0, y >= 0, width > 0, height > 0, x + width <= Int(f.width), y + height <= Int(f.height),
              let copy = av_frame_clone(frame) else { return nil }
        let owned = Frame(owning: copy)
        copy.pointee.crop_left += x
        copy.pointee.crop_top += y
        copy.pointee.crop_right += Int(f.width) - x - width
        copy.pointee.crop_bottom += Int(f.height) - y - height
        guard av_frame_apply_cropping(copy, Int32(AV_FRAME_CROP_UNALIGNED)) >= 0,
              copy.pointee.width == Int32(width), copy.pointee.height == Int32(height) else { return nil }
        return owned
    }
}
