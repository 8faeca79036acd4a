import Foundation
internal import CFFmpeg

/// A libx265 encoder whose pictures splice into a copied HEVC stream: the source's size, pixel
/// format (8-bit `yuv420p`, 10-bit `yuv420p10le`), profile (Main, Main 10), colour tags,
/// sample aspect and static HDR metadata (mastering display, content light level, from the
/// stream's side data), no B-frames, one IDR at the start of each span (a closed GOP). x265
/// numbers its parameter sets 0 like the stream's, so each span's first picture carries its
/// VPS, SPS and PPS in-band (``HEVCParameterSets``): no global header, x265's `repeat-headers`.
///
/// The level is x265's own choice for the size and rate: x265's `level-idc` turns on VBV at
/// that level's bit rate (and its documentation warns that VBV may make CRF encodes
/// non-deterministic); at level 1 (160x96) that held the re-encoded frames to 38 dB.
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
        return nil
    }

    private static func profileName(_ profile: Int32) -> String? {
        switch profile {
        case FF_PROFILE_HEVC_MAIN: "main"
        case FF_PROFILE_HEVC_MAIN_10: "main10"
        default: nil
        }
    }

    /// Opens libx265 for frames like `source`'s (a stream with side data `stream`), timed in
    /// `timeBase`.
    init(source: UnsafePointer<AVCodecParameters>, stream: UnsafePointer<AVStream>, timeBase: AVRational, frameRate: AVRational,
         display: String) throws {
        try LibAV.load()
        guard let codec = avcodec_find_encoder_by_name("libx265") else {
            throw ExportError.unsupported("this libavcodec has no libx265 encoder, which frame-exact cuts of HEVC need (export with --keyframe-cuts)")
        }
        context = try CodecContext(codec: codec)
        let c = context.pointer
        SpliceSettings.match(c, source: source, timeBase: timeBase, frameRate: frameRate)
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        av_dict_set(&options, "preset", "fast", 0)
        av_dict_set(&options, "crf", String(Self.crf), 0)
        av_dict_set(&options, "profile", Self.profileName(source.pointee.profile) ?? "main", 0)
        var params = ["log-level=none", "pools=none", "frame-threads=1", "keyint=-1", "min-keyint=1", "scenecut=0", "bframes=0",
                      "open-gop=0", "repeat-headers=1", "info=0", "aud=0"]
        params += Self.hdrParameters(stream)
        av_dict_set(&options, "x265-params", params.joined(separator: ":"), 0)
        let opened = avcodec_open2(c, codec, &options)
        guard opened >= 0 else { throw ExportError.av(path: display, AVFailure(code: opened, operation: "opening libx265 for a frame-exact cut")) }
        packet = try Packet()
    }

    /// x265's `master-display` and `max-cll` from the stream's mastering display and content
    /// light level side data (x265's units: 0.00002 for chromaticities, 0.0001 cd/m² for
    /// luminance), so the re-encoded pictures carry the SEI messages the stream declares.
    private static func hdrParameters(_ stream: UnsafePointer<AVStream>) -> [String] {
        var out: [String] = []
        var size = 0
        if let raw = Optional(av_stream_get_side_data(stream, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, &size)), raw != nil,
           size >= MemoryLayout<AVMasteringDisplayMetadata>.size {
            let m = UnsafeRawPointer(raw!).loadUnaligned(as: AVMasteringDisplayMetadata.self)
            if m.has_primaries != 0 && m.has_luminance != 0 {
                func u(_ r: AVRational, _ unit: Double) -> Int { Int((av_q2d(r) / unit).rounded()) }
                let (r, g, b) = m.display_primaries
                let xy = { (p: (AVRational, AVRational)) in "(\(u(p.0, 0.00002)),\(u(p.1, 0.00002)))" }
                out.append("master-display=G\(xy(g))B\(xy(b))R\(xy(r))WP\(xy(m.white_point))L(\(u(m.max_luminance, 0.0001)),\(u(m.min_luminance, 0.0001)))")
            }
        }
        if let raw = Optional(av_stream_get_side_data(stream, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, &size)), raw != nil,
           size >= MemoryLayout<AVContentLightMetadata>.size {
            let l = UnsafeRawPointer(raw!).loadUnaligned(as: AVContentLightMetadata.self)
            out.append("max-cll=\(l.MaxCLL),\(l.MaxFALL)")
        }
        return out
    }

    /// Encodes `frame` (nil drains) and hands each packet's NAL units (parameter sets and SEI
    /// kept, no access unit delimiters) to `deliver`.
    func encode(_ frame: UnsafeMutablePointer<AVFrame>?, deliver: ([[UInt8]]) -> Void) throws {
        try SpliceSettings.encode(frame, with: context, packet: packet) { units in
            deliver(units.filter { unit in unit.first.map { ($0 >> 1) & 0x3F != 35 } ?? false })
        }
    }
}
