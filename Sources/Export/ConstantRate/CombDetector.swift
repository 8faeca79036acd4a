import Foundation
internal import CFFmpeg
import Media

/// Whether a frame coded as interlaced shows combing: its two fields caught at different
/// instants, where the picture moves. Progressive content coded as interlaced (film broadcast as
/// 1080i, PsF) has none, and keeps its full vertical detail when the export leaves it alone.
///
/// Where the picture moves (a pixel that changed since the previous frame by more than
/// ``motionThreshold``), each line is predicted twice: from the lines either side, which belong
/// to the other field, and from the lines two away, in its own field. In one picture the near
/// lines predict better (fine detail included); in woven fields of a moving picture the other
/// field is somewhere else, and the own field predicts better. A frame combs when the other
/// field's error, summed over the moving pixels, exceeds the own field's by ``ratio`` (measured:
/// 0.82-0.84 for PsF testsrc2, 1.56-1.81 for the same pattern interlaced), like idet's field
/// comparisons. A frame with almost no motion shows no combing either way, and is kept whole.
/// Decisions follow from the frames alone, so an export that meets the same frames in the same
/// order decides the same.
struct CombDetector {
    static let motionThreshold = 6
    static let ratio = 1.2
    /// The fewest moving pixels that can show combing: 1/2000 of the picture, at least 64.
    static func minimumMotion(pixels: Int) -> Int { max(64, pixels / 2000) }

    /// The previous frame's luma, 8 bits, tightly packed.
    private var previous: [UInt8] = []
    private var size = (width: 0, height: 0)

    /// Decides for `frame` and remembers its picture for the next one. The first frame (no
    /// motion to compare with) is measured over every pixel.
    mutating func isCombed(_ frame: Frame) -> Bool {
        let luma = Self.luma(frame)
        defer { previous = luma.pixels; size = (luma.width, luma.height) }
        let (w, h) = (luma.width, luma.height)
        guard w > 0, h >= 5 else { return true }
        let hasPrevious = previous.count == luma.pixels.count && size == (w, h)
        var other = 0, own = 0, moving = 0
        luma.pixels.withUnsafeBufferPointer { p in
            previous.withUnsafeBufferPointer { q in
                for y in 2..<(h - 2) {
                    let row = y * w
                    for x in 0..<w {
                        let cur = Int(p[row + x])
                        if hasPrevious && abs(cur - Int(q[row + x])) <= Self.motionThreshold { continue }
                        moving += 1
                        other += abs(2 * cur - Int(p[row - w + x]) - Int(p[row + w + x]))
                        own += abs(2 * cur - Int(p[row - 2 * w + x]) - Int(p[row + 2 * w + x]))
                    }
                }
            }
        }
        guard moving >= Self.minimumMotion(pixels: w * h) else { return false }
        return Double(other + 1) > Self.ratio * Double(own + 1)
    }

    /// The frame's luma as 8-bit samples (deeper samples shifted down).
    private static func luma(_ frame: Frame) -> (pixels: [UInt8], width: Int, height: Int) {
        let f = frame.pointer.pointee
        let w = Int(f.width), h = Int(f.height), stride = Int(f.linesize.0)
        guard let data = f.data.0, w > 0, h > 0,
              let descriptor = av_pix_fmt_desc_get(AVPixelFormat(f.format)) else { return ([], 0, 0) }
        let depth = Int(descriptor.pointee.comp.0.depth)
        var pixels = [UInt8](repeating: 0, count: w * h)
        pixels.withUnsafeMutableBufferPointer { out in
            for y in 0..<h {
                let line = data + y * stride
                if depth > 8 {
                    line.withMemoryRebound(to: UInt16.self, capacity: w) { wide in
                        for x in 0..<w { out[y * w + x] = UInt8(truncatingIfNeeded: Int(wide[x]) >> (depth - 8)) }
                    }
                } else {
                    for x in 0..<w { out[y * w + x] = line[x] }
                }
            }
        }
        return (pixels, w, h)
    }
}
