import Foundation
internal import CFFmpeg

/// HDR pictures (PQ or HLG, BT.2020, 10-bit) made fit for an SDR screen: tone-mapped to
/// BT.709 as 8-bit YUV 4:2:0, by libavfilter's `zscale` and `tonemap` (loaded on first use).
///
/// The chain linearises the picture with 100 nits as SDR white (`npl=100`), converts the
/// primaries to BT.709, compresses what lies above SDR white with Möbius (which leaves the
/// range below its knee, 0.3, untouched, so skin and mid-tones keep their SDR level), and
/// encodes BT.709 again. Each picture's colour description is read from the frame itself.
final class ToneMapper {
    static let chain = "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=mobius:desat=0,"
        + "zscale=t=bt709:m=bt709:r=tv,format=yuv420p"

    /// What the source is, for the overlay: "PQ" or "HLG"; nil for SDR.
    static func transferName(_ transfer: AVColorTransferCharacteristic) -> String? {
        switch transfer {
        case AVCOL_TRC_SMPTE2084: "PQ"
        case AVCOL_TRC_ARIB_STD_B67: "HLG"
        default: nil
        }
    }

    /// Scales the picture to this size first, when set: tone-mapping runs in 32-bit float per
    /// pixel, so a 4K phone clip is made window-sized before (80 fps instead of 28 for 1080p
    /// HLG on two cores).
    var outputSize: (width: Int, height: Int)?

    private var graph: FilterGraph?
    private var graphFor: (width: Int32, height: Int32, format: Int32)?
    private var graphSize: (width: Int, height: Int)?
    private var count: Int64 = 0

    init() throws {
        _ = try AVFilterLibrary.shared.get()
    }

    /// `frame`, tone-mapped (a new frame; `frame` is left as it is).
    func map(_ frame: Frame) throws -> Frame {
        let f = frame.pointer.pointee
        if graph == nil || graphSize?.width != outputSize?.width || graphSize?.height != outputSize?.height || graphFor?.width != f.width || graphFor?.height != f.height || graphFor?.format != f.format {
            let arguments = "video_size=\(f.width)x\(f.height):pix_fmt=\(f.format):time_base=1/1"
                + ":pixel_aspect=\(max(f.sample_aspect_ratio.num, 1))/\(max(f.sample_aspect_ratio.den, 1))"
            let scale = outputSize.map { "scale=\($0.width):\($0.height)," } ?? ""
            graph = try FilterGraph(chain: scale + Self.chain, filter: "zscale and tonemap", input: arguments, work: "tone-mapping HDR")
            graphFor = (f.width, f.height, f.format)
            graphSize = outputSize
        }
        try graph!.add(frame, pts: count)
        count += 1
        guard let out = try graph!.next() else {
            throw MediaError.unsupported("tone-mapping made no picture for a \(f.width)x\(f.height) HDR frame")
        }
        return out
    }
}
