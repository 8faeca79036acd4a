import Foundation
internal import CFFmpeg

/// Progressive pictures from interlaced video, one per field, made by libavfilter's `bwdif`
/// (`mode=send_field:parity=auto:deint=all`): picture 2i is frame i's first field and 2i + 1
/// its second (see ``PictureTimes``), each with the missing lines filled in from that field and
/// from the frames either side.
///
/// The filter is fed decoded frames in presentation order and holds three of them (previous,
/// current, next), so picture p is ready once frame p/2 + 1 is in. Forward requests go on
/// feeding; one that goes back, or would skip frames nobody decoded, starts a new graph one
/// frame before the one wanted, which then comes out as it would have in an unbroken run.
/// Memory stays bounded: the graph's three frames and the few fields not yet asked for.
final class Deinterlacer: PictureSource {
    /// The filter chain; `parity=auto` takes each frame's own field order.
    static let chain = "bwdif=mode=send_field:parity=auto:deint=all"

    private let decoder: FrameDecoder
    private let frameCount: Int
    private var graph: FilterGraph?
    /// The next frame the graph takes, and the picture it makes next.
    private var nextFrame = 0
    private var nextPicture = 0
    private var ended = false
    private var made: [Int: Frame] = [:]

    /// Fields of the `frameCount` frames `decoder` decodes.
    init(decoder: FrameDecoder, frameCount: Int) throws {
        _ = try AVFilterLibrary.shared.get()
        self.decoder = decoder
        self.frameCount = frameCount
    }

    /// Picture `p`: field `p % 2` of frame `p / 2`, deinterlaced.
    func picture(_ p: Int) throws -> Frame {
        if let hit = made[p] { return hit }
        let f = p / 2
        if graph == nil || p < nextPicture || f - 1 > nextFrame {
            try restart(at: max(0, f - 1))
        }
        while true {
            if let hit = made[p] { return hit }
            guard !ended else {
                throw ExportError.unsupported("deinterlacing made no picture for field \(p % 2) of frame \(f); export without --fps to keep the fields as they are")
            }
            try feed()
        }
    }

    /// Going backwards, the decoder keeps its window and each field restarts the graph a frame
    /// before its own (see ``picture(_:)``).
    var backwards: Bool {
        get { decoder.backwards }
        set { decoder.backwards = newValue }
    }

    func release(behind p: Int) {
        for key in made.keys where backwards ? key > p : key < p { made[key] = nil }
        if backwards { decoder.release(behind: p / 2 + 1) }
    }

    private func restart(at frame: Int) throws {
        graph = nil
        made = [:]
        nextFrame = frame
        nextPicture = 2 * frame
        ended = false
    }

    /// Gives the filter the next frame (or the end), then keeps every field it made.
    private func feed() throws {
        if nextFrame < frameCount {
            let frame = try decoder.frame(nextFrame)
            if graph == nil { graph = try makeGraph(for: frame) }
            // The frame index as timestamp: bwdif stamps the fields of frame i 2i and 2i + 1.
            try graph!.add(frame, pts: Int64(nextFrame))
            if !backwards { decoder.release(behind: nextFrame) }
            nextFrame += 1
        } else {
            try graph?.add(nil)
            ended = true
        }
        while let field = try graph?.next() {
            made[nextPicture] = field
            nextPicture += 1
        }
    }

    private func makeGraph(for frame: Frame) throws -> FilterGraph {
        let f = frame.pointer.pointee
        let arguments = "video_size=\(f.width)x\(f.height):pix_fmt=\(f.format):time_base=1/1"
            + ":pixel_aspect=\(max(f.sample_aspect_ratio.num, 1))/\(max(f.sample_aspect_ratio.den, 1))"
        return try FilterGraph(chain: Self.chain, filter: "bwdif", input: arguments, work: "deinterlacing")
    }
}
