import Foundation
internal import CFFmpeg

/// Motion-interpolated in-between frames for slowed sections, from dense optical flow (the
/// FlowInterpolation library, opened on first use). The flow of a pair of neighbouring source
/// pictures is computed once, both ways, and every output frame between them (seven for a 1/8x
/// section) is warped from it: both pictures are carried along the flow to the in-between time
/// and mixed by nearness in time and by how consistent each pixel's motion is both ways, so
/// that what one picture hides comes from the other. Where the flow explains too little of the
/// picture (a scene cut, a flash) the nearer picture is shown unchanged. Works in the encoder's
/// pixel format, 8- or 10-bit 4:2:0, at full resolution.
final class FlowInterpolator {
    private let library: FlowLibrary
    private let handle: OpaquePointer
    private let source: any PictureSource
    private let encoder: FrameEncoder
    private let display: String
    /// The pair whose flow the library holds.
    private var pair: (Int, Int)?

    init(source: any PictureSource, encoder: FrameEncoder, display: String) throws {
        let tenBit = encoder.pixelFormat == AV_PIX_FMT_YUV420P10LE
        guard tenBit || encoder.pixelFormat == AV_PIX_FMT_YUV420P else {
            throw ExportError.unsupported("--frames interpolate works on 4:2:0 video; use --frames blend")
        }
        library = try FlowLibrary.shared.get()
        var made: OpaquePointer?
        let code = library.create(encoder.width, encoder.height, tenBit ? 10 : 8, 0, &made)
        guard code == 0, let made else {
            throw ExportError.unsupported(Self.describe(code, size: "\(encoder.width)x\(encoder.height)", detail: ""))
        }
        handle = made
        self.source = source
        self.encoder = encoder
        self.display = display
    }

    deinit { library.destroy(handle) }

    /// The picture at `weight` (0...1) of the way from picture `i` to picture `j`.
    func frame(_ i: Int, _ j: Int, weight: Double) throws -> Frame {
        if pair.map({ $0 != (i, j) }) ?? true {
            let a = try encoder.converted(source.picture(i))
            let b = try encoder.converted(source.picture(j))
            source.release(before: i)
            pair = nil
            let code = Self.planes(of: a) { aPlanes, aStrides in
                Self.planes(of: b) { bPlanes, bStrides in
                    library.setPair(handle, aPlanes, aStrides, bPlanes, bStrides)
                }
            }
            try check(code)
            pair = (i, j)
        }
        let out = try encoder.blank()
        let code = withUnsafeMutablePointer(to: &out.pointer.pointee.data) { data in
            withUnsafeMutablePointer(to: &out.pointer.pointee.linesize) { strides in
                data.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 3) { d in
                    strides.withMemoryRebound(to: Int32.self, capacity: 3) { s in library.render(handle, weight, d, s) }
                }
            }
        }
        try check(code)
        return out
    }

    /// Whether the flow of the current pair was trusted (false: the nearer picture was shown).
    var pairReliable: Bool? {
        let r = library.pairReliable(handle)
        return r < 0 ? nil : r == 1
    }

    private func check(_ code: Int32) throws {
        guard code != 0 else { return }
        let detail = library.lastError(handle).map { String(cString: $0) } ?? ""
        throw ExportError.unsupported("\(display): " + Self.describe(code, size: "\(encoder.width)x\(encoder.height)", detail: detail))
    }

    /// The message for a FlowInterpolation result code.
    static func describe(_ code: Int32, size: String, detail: String) -> String {
        switch FlowLibrary.Code(rawValue: code) {
        case .badSize: "--frames interpolate needs pictures of at least 32x32 pixels, and this video is \(size); use --frames blend"
        case .badDepth: "--frames interpolate works on 8- and 10-bit video; use --frames blend"
        case .failed: "motion interpolation failed\(detail.isEmpty ? "" : ": \(detail)")"
        default: "motion interpolation failed (code \(code))"
        }
    }

    /// `frame`'s first three plane pointers and strides, as the C API takes them.
    private static func planes<R>(of frame: Frame, _ body: (UnsafePointer<UnsafePointer<UInt8>?>, UnsafePointer<Int32>) -> R) -> R {
        withUnsafePointer(to: frame.pointer.pointee.data) { data in
            withUnsafePointer(to: frame.pointer.pointee.linesize) { strides in
                data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 3) { d in
                    strides.withMemoryRebound(to: Int32.self, capacity: 3) { s in body(d, s) }
                }
            }
        }
    }
}
