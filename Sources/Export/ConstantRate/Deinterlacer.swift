import Foundation
import Composition
internal import CFFmpeg
import Media

/// Progressive pictures from interlaced video, one per field, made by libavfilter's `bwdif`
/// (`mode=send_field:parity=auto:deint=interlaced`): picture 2i is frame i's first field and
/// 2i + 1 its second (see ``PictureTimes``), each with the missing lines filled in from that
/// field and from the frames either side.
///
/// Only frames that comb are deinterlaced (decomb): a ``CombDetector`` looks at each frame
/// first, and one without combing (progressive content coded as interlaced: film broadcast as
/// 1080i, PsF) is handed to the filter as progressive, which passes it through whole as picture
/// 2i; picture 2i + 1 is the same frame. It keeps its full vertical detail, which bwdif would
/// halve and fill in.
///
/// The filter is fed decoded frames in presentation order and holds three of them (previous,
/// current, next), so picture p is ready once frame p/2 + 1 is in. Forward requests go on
/// feeding; one that goes back, or would skip frames nobody decoded, starts a new graph one
/// frame before the one wanted, which then comes out as it would have in an unbroken run.
/// Memory stays bounded: the graph's three frames and the few fields not yet asked for.
final class Deinterlacer: PictureSource {
    /// The filter chain; `parity=auto` takes each frame's own field order.
    static let chain = "bwdif=mode=send_field:parity=auto:deint=interlaced"

    private let decoder: FrameDecoder
    private let frameCount: Int
    private var graph: FilterGraph?
    /// The next frame the graph takes, and the picture it makes next.
    private var nextFrame = 0
    private var nextPicture = 0
    private var ended = false
    private var made: [Int: Frame] = [:]
    private var lastPicture: Int?
    private var detector = CombDetector()
    /// Each frame's decision, made once: a frame fed again after a restart is treated alike.
    private var combed: [Int: Bool] = [:]

    /// Frames looked at so far, and how many of them combed (and were deinterlaced).
    var framesChecked: Int { combed.count }
    var framesCombed: Int { combed.values.filter { $0 }.count }

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
                throw ExportError.unavailable(Notice("deinterlacing made no picture for field \(p % 2) of frame \(f)",
                                                     remedies: [Remedy(.passthrough, "to keep the fields as they are")]))
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
        lastPicture = nil
        ended = false
        detector = CombDetector()
        // The frame before, for the motion test of the first one fed.
        if frame > 0 { _ = detector.isCombed(try decoder.frame(frame - 1)) }
    }

    /// Gives the filter the next frame (or the end), then keeps every field it made.
    private func feed() throws {
        if nextFrame < frameCount {
            let frame = try decoder.frame(nextFrame)
            if graph == nil { graph = try makeGraph(for: frame) }
            let combs = detector.isCombed(frame)
            let decided = combed[nextFrame] ?? combs
            combed[nextFrame] = decided
            // The frame index as timestamp: bwdif stamps the fields of frame i 2i and 2i + 1,
            // and a frame it passes through whole 2i.
            try graph!.add(frame, pts: Int64(nextFrame), progressive: !decided)
            if !backwards { decoder.release(behind: nextFrame) }
            nextFrame += 1
        } else {
            try graph?.add(nil)
            ended = true
        }
        while let field = try graph?.next() {
            let p = Int(field.pointer.pointee.pts)
            // A frame passed through whole stands for both its fields.
            if let last = lastPicture, last % 2 == 0, p > last + 1 { made[last + 1] = made[last] }
            made[p] = field
            lastPicture = p
            nextPicture = p + 1
        }
        if ended, let last = lastPicture, last % 2 == 0 {
            made[last + 1] = made[last]
            nextPicture = last + 2
        }
    }

    private func makeGraph(for frame: Frame) throws -> FilterGraph {
        let f = frame.pointer.pointee
        let arguments = "video_size=\(f.width)x\(f.height):pix_fmt=\(f.format):time_base=1/1"
            + ":pixel_aspect=\(max(f.sample_aspect_ratio.num, 1))/\(max(f.sample_aspect_ratio.den, 1))"
        return try FilterGraph(chain: Self.chain, filter: "bwdif", input: arguments, work: "deinterlacing")
    }
}
