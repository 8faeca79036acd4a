import Foundation
import Composition
internal import CFFmpeg
import Media

/// Motion-interpolated in-between frames for slowed sections, from dense optical flow (the
/// FlowInterpolation library, opened on first use). The flow of a pair of neighbouring source
/// pictures is computed once, both ways, and every output frame between them (seven for a 1/8x
/// section) is warped from it: both pictures are carried along the flow to the in-between time
/// and mixed by nearness in time; in each region where the two warped pictures disagree more
/// than the unmoved ones, the unmoved pictures' mix takes over. Where the flow explains too
/// little of the picture (a scene cut, a flash) the nearer picture is shown unchanged. Works in the encoder's
/// pixel format, 8- or 10-bit 4:2:0, at full resolution. The next pair's flow is computed on a
/// thread of its own while the current pair's frames are made, so that the flow, the warping
/// and the encoding thread keep both cores busy; when that next pair follows on from the
/// current one (its first picture the current pair's second, forwards or backwards), its flow
/// starts from the current pair's (sp_flow_seed), which follows fast motion better. Pairs are
/// taken in the plan's order and each seed is chosen from the plan alone, so the same export
/// gives the same pictures every time. `quality` chooses the flow's resolution (see
/// InterpolationQuality).
final class FlowInterpolator {
    private let library: FlowLibrary
    /// The interpolator holding the current pair, and a second one that computes the next
    /// pair's flow on a thread of its own while this one's frames are made and encoded.
    private var handle: OpaquePointer
    private var spare: OpaquePointer
    private let source: any PictureSource
    private let encoder: FrameEncoder
    private let display: String
    /// Every pair the plan interpolates between, in order; `next` indexes the first not yet used.
    private let pairs: [Pair]
    private var next = 0
    /// The pair whose flow `handle` holds.
    private var pair: Pair?
    private var ahead: Job?

    struct Pair: Equatable {
        let a: Int, b: Int
    }

    /// A pair's flow being computed on `spare`; `done` is signalled with its result code.
    private final class Job: @unchecked Sendable {
        // @unchecked: `code` is written by the worker before `done` is signalled and read
        // after waiting for it.
        let pair: Pair
        let done = DispatchSemaphore(value: 0)
        var code: Int32 = 0
        init(pair: Pair) { self.pair = pair }
    }

    /// `pairs`: the pairs the export will ask for, in order, so that each one's flow can be
    /// computed while the one before is in use.
    init(source: any PictureSource, encoder: FrameEncoder, display: String, pairs: [Pair], quality: InterpolationQuality = .fast) throws {
        let tenBit = encoder.pixelFormat == AV_PIX_FMT_YUV420P10LE
        guard tenBit || encoder.pixelFormat == AV_PIX_FMT_YUV420P else {
            throw ExportError.unavailable(Notice("motion interpolation works on 4:2:0 video without alpha, and this export encodes \(String(cString: av_get_pix_fmt_name(encoder.pixelFormat)))",
                                                 remedies: [Remedy(.blendFrames)]))
        }
        library = try FlowLibrary.shared.get()
        var made: [OpaquePointer] = []
        for _ in 0..<2 {
            var one: OpaquePointer?
            var code = library.create(encoder.width, encoder.height, tenBit ? 10 : 8, 0, &one)
            if code == 0, let one { code = library.setQuality(one, quality.code) }
            guard code == 0, let one else {
                if let one { library.destroy(one) }
                for h in made { library.destroy(h) }
                throw ExportError.unavailable(Self.describe(code, size: "\(encoder.width)x\(encoder.height)", detail: ""))
            }
            made.append(one)
        }
        handle = made[0]
        spare = made[1]
        self.source = source
        self.encoder = encoder
        self.display = display
        self.pairs = pairs
    }

    deinit {
        ahead?.done.wait()
        library.destroy(handle)
        library.destroy(spare)
    }

    /// The picture at `weight` (0...1) of the way from picture `i` to picture `j`.
    func frame(_ i: Int, _ j: Int, weight: Double) throws -> Frame {
        let wanted = Pair(a: i, b: j)
        if pair != wanted {
            pair = nil
            if let job = ahead {
                job.done.wait()
                ahead = nil
                if job.pair == wanted {
                    swap(&handle, &spare)
                    try check(job.code)
                    pair = wanted
                }
            }
            if pair == nil {
                let a = try encoder.converted(source.picture(i)), b = try encoder.converted(source.picture(j))
                try check(Self.setPair(library, handle, a, b))
                pair = wanted
            }
            source.release(behind: i)
            while next < pairs.count && pairs[next] != wanted { next += 1 }
            next += 1
            if next < pairs.count { try start(pairs[next]) }
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

    /// Decodes the pictures of `next` here (the decoder is this thread's) and computes their
    /// flow on `spare` on a thread of its own, starting from the current pair's flow when `next`
    /// follows on from it (the seed is copied here, before the thread starts).
    private func start(_ next: Pair) throws {
        let a = try encoder.converted(source.picture(next.a)), b = try encoder.converted(source.picture(next.b))
        if let pair, pair.b == next.a { try check(library.seed(spare, handle)) }
        let job = Job(pair: next)
        let work = Unchecked((library, spare, a, b))
        Thread {
            job.code = Self.setPair(work.value.0, work.value.1, work.value.2, work.value.3)
            job.done.signal()
        }.start()
        ahead = job
        try prefetch(after: next)
    }

    /// Decodes the picture the pair after `pair` adds while `pair`'s flow is computed, when it
    /// follows on going forwards: the flows form a chain (each seeds the next), and when the
    /// flow is the slower stage the decoding would otherwise sit on that chain, between one
    /// flow's end and the next one's start. The decoder keeps the picture until the export
    /// has passed it.
    private func prefetch(after pair: Pair) throws {
        guard !source.backwards, next + 1 < pairs.count else { return }
        let following = pairs[next + 1]
        guard following.a == pair.b, following.b > following.a else { return }
        _ = try source.picture(following.b)
    }

    private static func setPair(_ library: FlowLibrary, _ handle: OpaquePointer, _ a: Frame, _ b: Frame) -> Int32 {
        planes(of: a) { aPlanes, aStrides in
            planes(of: b) { bPlanes, bStrides in library.setPair(handle, aPlanes, aStrides, bPlanes, bStrides) }
        }
    }

    private func check(_ code: Int32) throws {
        guard code != 0 else { return }
        let detail = library.lastError(handle).map { String(cString: $0) } ?? ""
        let said = Self.describe(code, size: "\(encoder.width)x\(encoder.height)", detail: detail)
        throw ExportError.unavailable(Notice("\(display): " + said.fact, remedies: said.remedies))
    }

    /// The message for a FlowInterpolation result code.
    static func describe(_ code: Int32, size: String, detail: String) -> Notice {
        switch FlowLibrary.Code(rawValue: code) {
        case .badSize: Notice("motion interpolation needs pictures of at least 32x32 pixels, and this video is \(size)", remedies: [Remedy(.blendFrames)])
        case .badDepth: Notice("motion interpolation works on 8- and 10-bit video", remedies: [Remedy(.blendFrames)])
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
