import Foundation
import Composition
internal import Bitstream
internal import CFFmpeg
import Media

/// A libx265 encoder whose pictures splice into a copied HEVC stream: the source's size, pixel
/// format (8-bit `yuv420p`, 10-bit `yuv420p10le`), profile (Main, Main 10), colour tags,
/// sample aspect and static HDR metadata (mastering display, content light level: the span's
/// first frame's side data, else the stream's; a stream stating none waits for a frame that
/// does), no B-frames, one IDR at the start of each span (a closed GOP).
/// Each span's first picture carries its VPS, SPS and PPS in-band (``HEVCParameterSets``): no
/// global header, x265's `repeat-headers`. x265 numbers them 0, like the stream's own sets;
/// ``HEVCIDRewriter`` renumbers them, and the slices naming them, to ids the stream does not use.
///
/// The level: x265's `level-idc` turns on VBV at that level's bit rate (and its documentation
/// warns that VBV may make CRF encodes non-deterministic); at level 1 (160x96) that held the
/// re-encoded frames to 38 dB. So x265 encodes at the level it chooses for the size and rate
/// (the lowest that holds them, at most the stream's, which holds the same size and rate), and
/// its VPS and SPS then signal the stream's level (``HEVCGeneralLevel``): the same limits
/// a decoder was set up for, which the re-encoded pictures keep.
///
/// Quality: CRF 4 gave at least 50.8 dB PSNR (all planes, min per frame) against x265
/// testsrc2 sources at 160x96, CRF 8 47.9.
///
/// Determinism: x265 without thread pools and with one frame thread (`pools=none`,
/// `frame-threads=1`) gives the same bytes on every run.
final class HEVCSpliceEncoder: SpliceEncoding {
    private let context: CodecContext
    private let packet: Packet
    /// Constant rate factor of the re-encoded frames.
    static let crf = 4

    /// Why libx265 cannot match `source` (a phrase after "the video"), or nil. `sideData`
    /// lists the stream's side data types.
    static func refusal(_ source: UnsafePointer<AVCodecParameters>, sideData: [AVPacketSideDataType]) -> String? {
        let p = source.pointee
        let format = AVPixelFormat(rawValue: p.format)
        guard [AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUV420P10LE].contains(format) else {
            return "is \(av_get_pix_fmt_name(format).map { String(cString: $0) } ?? "of another pixel format"), not 8- or 10-bit 4:2:0"
        }
        guard p.field_order == AV_FIELD_PROGRESSIVE || p.field_order == AV_FIELD_UNKNOWN else { return "is interlaced" }
        guard profileName(p.profile) != nil else { return "is in an HEVC profile other than Main or Main 10" }
        if sideData.contains(AV_PKT_DATA_DOVI_CONF) {
            return "carries Dolby Vision metadata, which the re-encoded frames could not carry (libx265 here writes no Dolby Vision RPUs)"
        }
        let record = p.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(p.extradata_size))) } ?? []
        guard let sets = HEVCParameterSets(hvcC: record), !sets.parameterSetUnits.isEmpty else {
            return "keeps its parameter sets other than in an hvcC record"
        }
        guard HEVCParameterSetIDs(avoiding: sets.parameterSetUnits) != nil else {
            return "has parameter sets whose ids cannot be read, or uses every id, so the re-encoded frames' sets would replace them"
        }
        do {
            guard try sets.codingBlockSizes().smallest <= 32 else { return "codes with 64-pixel smallest coding blocks, which libx265 cannot" }
        } catch {
            return "has a sequence parameter set that cannot be read: \(error)"
        }
        return nil
    }

    private static func profileName(_ profile: Int32) -> String? {
        switch profile {
        case FF_PROFILE_HEVC_MAIN: "main"
        case FF_PROFILE_HEVC_MAIN_10: "main10"
        default: nil
        }
    }

    private let codec: UnsafePointer<AVCodec>
    /// The stream (its side data), the profile and how messages name the movie, for opening.
    private let stream: UnsafePointer<AVStream>
    private let profile: String
    /// The stream's `general_level_idc` (30 times the level), or 0 when unknown.
    private let level: Int
    private let display: String
    private var opened = false
    /// Renumbers x265's parameter sets and the slices naming them.
    private var rewriter: HEVCIDRewriter
    /// The stream's coding tree block and smallest coding block sizes.
    private let blocks: (tree: Int, smallest: Int)
    /// Frames held back before x265 opens, while none states static HDR metadata and the stream
    /// states none (HEVC that carries it only in SEI, as a raw stream muxed again does): a span
    /// that starts with a gap's black picture then opens with the next decoded frame's, not
    /// without it (the oracle's HDR10+ shape, seed 0x1801b4b1f77dd0fc: the 20 re-encoded frames
    /// after a gap lost the mastering display and content light level).
    private var heldBack: [Frame] = []
    private static let holdBackLimit = 4
    private let streamStatesHDR: Bool

    /// Prepares libx265 for frames like `source`'s (a stream with side data `stream`), timed in
    /// `timeBase`; it opens at the first frame, whose HDR metadata it takes.
    /// The re-encoded pictures' parameter sets take `ids`, and their coding blocks the stream's
    /// sizes `blocks`.
    init(source: UnsafePointer<AVCodecParameters>, stream: UnsafePointer<AVStream>, timeBase: AVRational, frameRate: AVRational,
         ids: HEVCParameterSetIDs, blocks: (tree: Int, smallest: Int), display: String) throws {
        try LibAV.load()
        guard let codec = LibAVCodec.findEncoderByName("libx265") else {
            throw ExportError.unavailable(Notice("this libavcodec has no libx265 encoder, which frame-exact cuts of HEVC need", remedies: [Remedy(.keyframeCuts)]))
        }
        self.codec = codec
        context = try CodecContext(codec: codec)
        SpliceSettings.match(context.pointer, source: source, timeBase: timeBase, frameRate: frameRate)
        self.stream = stream
        profile = Self.profileName(source.pointee.profile) ?? "main"
        level = Int(max(0, source.pointee.level))
        self.display = display
        rewriter = HEVCIDRewriter(ids: ids)
        self.blocks = blocks
        packet = try Packet()
        var size = 0
        streamStatesHDR = LibAVFormat.streamGetSideData(stream, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, &size) != nil
            || LibAVFormat.streamGetSideData(stream, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, &size) != nil
    }

    private static func statesHDR(_ frame: UnsafeMutablePointer<AVFrame>) -> Bool {
        av_frame_get_side_data(frame, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA) != nil
            || av_frame_get_side_data(frame, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL) != nil
    }

    /// Opens libx265 with the static HDR metadata of `frame` (the first of the span), else the
    /// stream's.
    private func open(for frame: UnsafeMutablePointer<AVFrame>) throws {
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        av_dict_set(&options, "preset", "fast", 0)
        av_dict_set(&options, "crf", String(Self.crf), 0)
        av_dict_set(&options, "profile", profile, 0)
        var params = ["log-level=none", "pools=none", "frame-threads=1", "keyint=-1", "min-keyint=1", "scenecut=0", "bframes=0",
                      "open-gop=0", "repeat-headers=1", "info=0", "aud=0",
                      "ctu=\(blocks.tree)", "min-cu-size=\(blocks.smallest)", "max-tu-size=\(min(32, blocks.tree))"]
        var size = 0
        let mastering = av_frame_get_side_data(frame, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA).map { UnsafeRawPointer($0.pointee.data) }
            ?? Optional(LibAVFormat.streamGetSideData(stream, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, &size)).flatMap { $0.map(UnsafeRawPointer.init) }
        let light = av_frame_get_side_data(frame, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL).map { UnsafeRawPointer($0.pointee.data) }
            ?? Optional(LibAVFormat.streamGetSideData(stream, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, &size)).flatMap { $0.map(UnsafeRawPointer.init) }
        params += Self.hdrParameters(mastering: mastering, light: light)
        av_dict_set(&options, "x265-params", params.joined(separator: ":"), 0)
        let result = LibAVCodec.openCodec(context.pointer, codec, &options)
        guard result >= 0 else { throw ExportError.av(path: display, AVFailure(code: result, operation: "opening libx265 for a frame-exact cut")) }
        opened = true
    }

    /// x265's `master-display` and `max-cll` from mastering display and content light level
    /// metadata (x265's units: 0.00002 for chromaticities, 0.0001 cd/m² for luminance), so the
    /// re-encoded pictures carry the SEI messages the stream has.
    static func hdrParameters(mastering: UnsafeRawPointer?, light: UnsafeRawPointer?) -> [String] {
        var out: [String] = []
        if let mastering {
            let m = mastering.loadUnaligned(as: AVMasteringDisplayMetadata.self)
            if m.has_primaries != 0 && m.has_luminance != 0 {
                func u(_ r: AVRational, _ unit: Double) -> Int { Int((av_q2d(r) / unit).rounded()) }
                let (r, g, b) = m.display_primaries
                let xy = { (p: (AVRational, AVRational)) in "(\(u(p.0, 0.00002)),\(u(p.1, 0.00002)))" }
                out.append("master-display=G\(xy(g))B\(xy(b))R\(xy(r))WP\(xy(m.white_point))L(\(u(m.max_luminance, 0.0001)),\(u(m.min_luminance, 0.0001)))")
            }
        }
        if let light {
            let l = light.loadUnaligned(as: AVContentLightMetadata.self)
            out.append("max-cll=\(l.MaxCLL),\(l.MaxFALL)")
        }
        return out
    }

    /// Encodes `frame` (nil drains) and hands each packet's NAL units (parameter sets and SEI
    /// kept, no access unit delimiters; sets renumbered) to `deliver`.
    func encode(_ frame: UnsafeMutablePointer<AVFrame>?, deliver: ([[UInt8]]) -> Void) throws {
        if !opened {
            if let frame, !streamStatesHDR, !Self.statesHDR(frame), heldBack.count < Self.holdBackLimit {
                guard let copy = av_frame_clone(frame) else {
                    throw ExportError.libav(AVFailure(code: sp_averror(ENOMEM), operation: "holding a frame for a frame-exact cut"))
                }
                heldBack.append(Frame(owning: copy))
                return
            }
            guard let opening = frame ?? heldBack.first?.pointer else { return }
            try open(for: opening)
            let held = heldBack
            heldBack = []
            for earlier in held { try encodeOpened(earlier.pointer, deliver: deliver) }
        }
        try encodeOpened(frame, deliver: deliver)
    }

    private func encodeOpened(_ frame: UnsafeMutablePointer<AVFrame>?, deliver: ([[UInt8]]) -> Void) throws {
        var failure: SyntaxError?
        try SpliceSettings.encode(frame, with: context, packet: packet) { units in
            do {
                let kept = units.filter { unit in unit.first.map { HEVCNALType.of($0) != .accessUnitDelimiter } ?? false }
                deliver(try kept.map { try rewriter.rewritten(HEVCGeneralLevel.raised(to: level, in: $0)) })
            } catch let error as SyntaxError {
                failure = failure ?? error
            } catch {}
        }
        if let failure {
            throw ExportError.unavailable(Notice("the frames libx265 re-encoded at a cut of \(display) cannot be given parameter set ids of their own, because \(failure)", remedies: [Remedy(.keyframeCuts)]))
        }
    }
}
