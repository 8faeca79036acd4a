import Foundation
internal import CFFmpeg

/// Pictures given as YUV 4:2:0 planes (as ``VideoFrameReader/withPlanes(_:)`` gives them),
/// steadied by a ``StabilizationTransform`` in source order, and the last few kept to be shown
/// again (a step back, a redraw) without starting the transform over.
package final class SteadiedPlanes {
    private let transform: StabilizationTransform
    private let width: Int, height: Int
    /// The picture handed to the transform, refilled for each (copied first if the graph still
    /// holds it).
    private let input: Frame
    private var kept: [Int: Frame] = [:]
    package static let keptPictures = 8

    /// The source picture the transform takes next.
    package var next: Int { transform.next }
    package var restarts: Int { transform.restarts }

    package init(_ stabilization: Stabilization, analysis: URL, width: Int, height: Int,
                 interpolation: Stabilization.Interpolation) throws {
        transform = StabilizationTransform(stabilization, analysis: analysis, interpolation: interpolation)
        self.width = width
        self.height = height
        input = try Frame()
        input.pointer.pointee.width = Int32(width)
        input.pointer.pointee.height = Int32(height)
        input.pointer.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        let made = av_frame_get_buffer(input.pointer, 32)
        guard made >= 0 else { throw MediaError.libav(AVFailure(code: made, operation: "allocating a picture to steady")) }
    }

    /// Starts again from source picture 0.
    package func restart() {
        transform.restart()
        kept.removeAll()
    }

    /// Whether steadied picture `index` is kept.
    package func has(_ index: Int) -> Bool { kept[index] != nil }

    /// Steadies source picture ``next``, given as `width` × `height` YUV 4:2:0 planes.
    package func steady(planes: [UnsafePointer<UInt8>], linesizes: [Int]) throws {
        let made = av_frame_make_writable(input.pointer)
        guard made >= 0 else { throw MediaError.libav(AVFailure(code: made, operation: "copying a picture to steady")) }
        let f = input.pointer.pointee
        let targets = [f.data.0, f.data.1, f.data.2], strides = [Int(f.linesize.0), Int(f.linesize.1), Int(f.linesize.2)]
        for plane in 0..<3 {
            guard let target = targets[plane] else { continue }
            let (columns, rows) = plane == 0 ? (width, height) : ((width + 1) / 2, (height + 1) / 2)
            for row in 0..<rows {
                memcpy(target + row * strides[plane], planes[plane] + row * linesizes[plane], columns)
            }
        }
        let index = transform.next
        kept[index] = try transform.steady(input)
        kept[index - Self.keptPictures] = nil
    }

    /// Calls `body` with steadied picture `index`'s Y, U and V planes and their line sizes; nil
    /// when it is not kept.
    package func withPlanes<Result>(of index: Int,
                                    _ body: (_ planes: [UnsafePointer<UInt8>], _ linesizes: [Int]) throws -> Result) rethrows -> Result? {
        guard let frame = kept[index]?.pointer.pointee, let y = frame.data.0, let u = frame.data.1, let v = frame.data.2 else { return nil }
        return try body([UnsafePointer(y), UnsafePointer(u), UnsafePointer(v)],
                        [Int(frame.linesize.0), Int(frame.linesize.1), Int(frame.linesize.2)])
    }
}
