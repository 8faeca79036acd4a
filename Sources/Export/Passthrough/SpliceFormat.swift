import Foundation
import Composition
internal import Bitstream
internal import CFFmpeg
import Media

/// How a smart cut's re-encoded pictures live beside the copied ones, by codec: H.264's new
/// parameter sets under a free id, listed in the output's `avcC` (``ParameterSets``); HEVC's
/// under free ids too (``HEVCParameterSetIDs``), in band, with the stream's own sets put in-band
/// again where copying resumes (``HEVCParameterSets``).
enum SpliceFormat {
    case h264(ParameterSets, id: Int)
    case hevc(HEVCParameterSets, ids: HEVCParameterSetIDs)

    /// Why the frames of `stream` cannot be re-encoded to splice into it (a phrase after "the
    /// video"), or nil.
    static func refusal(_ stream: StreamView) -> String? {
        let p = stream.parameters
        switch p.pointee.codec_id {
        case AV_CODEC_ID_H264: return SpliceEncoder.refusal(p)
        case AV_CODEC_ID_HEVC:
            let s = stream.pointer.pointee
            let types = (0..<Int(s.nb_side_data)).map { s.side_data[$0].type }
            return HEVCSpliceEncoder.refusal(p, sideData: types)
        default: return "is \(String(cString: LibAVCodec.codecName(p.pointee.codec_id))), not H.264 or HEVC"
        }
    }

    /// The format of `stream`'s parameter sets; throws when it has none a smart cut can use.
    init(_ stream: StreamView, name: String) throws {
        let p = stream.parameters.pointee
        let record = p.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(p.extradata_size))) } ?? []
        if p.codec_id == AV_CODEC_ID_HEVC, let sets = HEVCParameterSets(hvcC: record), let ids = HEVCParameterSetIDs(avoiding: sets.parameterSetUnits) {
            self = .hevc(sets, ids: ids)
        } else if let sets = ParameterSets(avcC: record), let id = sets.freeID {
            self = .h264(sets, id: id)
        } else {
            throw ExportError.unavailable(Notice("\(name)'s parameter sets are not stored as an avcC or hvcC record with free ids, which frame-exact cuts need", remedies: [Remedy(.keyframeCuts)]))
        }
    }

    /// Bytes in each NAL unit's length prefix of the stream's samples.
    var lengthSize: Int {
        switch self {
        case .h264(let sets, _): sets.lengthSize
        case .hevc(let sets, _): sets.lengthSize
        }
    }

    /// A fresh encoder for one span of `stream`'s frames.
    func encoder(for stream: StreamView, timeBase: AVRational, frameRate: AVRational, name: String) throws -> any SpliceEncoding {
        switch self {
        case .h264(let sets, let id):
            try SpliceEncoder(source: stream.parameters, timeBase: timeBase, frameRate: frameRate, id: id,
                              references: SpliceEncoder.references(matching: sets.firstSequence), display: name)
        case .hevc(let sets, let ids):
            try HEVCSpliceEncoder(source: stream.parameters, stream: stream.pointer, timeBase: timeBase, frameRate: frameRate, ids: ids,
                                  blocks: Self.codingBlocks(sets, name: name), display: name)
        }
    }

    /// The stream's coding block sizes; a sequence parameter set that cannot be read stops the
    /// export with the reason.
    private static func codingBlocks(_ sets: HEVCParameterSets, name: String) throws -> (tree: Int, smallest: Int) {
        do { return try sets.codingBlockSizes() } catch let error as SyntaxError {
            throw ExportError.unavailable(Notice("\(name)'s sequence parameter set cannot be read, because \(error)", remedies: [Remedy(.keyframeCuts)]))
        }
    }

    /// The output's configuration record once `encoder` has run: H.264's lists the new sets
    /// beside the stream's; HEVC's is the stream's, marked as completed in-band.
    func record(after encoder: (any SpliceEncoding)?) -> [UInt8] {
        switch self {
        case .h264(let sets, _):
            guard let made = encoder as? SpliceEncoder else { return sets.avcC }
            return sets.adding(sps: made.sps, pps: made.pps).avcC
        case .hevc(let sets, _): return sets.hvcC
        }
    }

    /// A copied keyframe's sample where copying resumes (after re-encoded frames, or a jump
    /// in the source), rewritten so that it decodes there; nil when it needs nothing (H.264,
    /// whose sets differ by id).
    func resumed(_ sample: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        switch self {
        case .h264: nil
        case .hevc(let sets, _): sets.resumed(sample)
        }
    }

    /// Whether the re-encoded pictures carry parameter sets in-band (mp4 then needs `hev1`).
    var setsInBand: Bool {
        if case .hevc = self { return true }
        return false
    }
}

/// What every smart-cut encoder shares: the source's picture shape and tags, and the loop that
/// turns frames into NAL units.
enum SpliceSettings {
    /// Sets `c` to encode frames like `source`'s: size, pixel format, time base, rate, sample
    /// aspect, colour tags, progressive, no B-frames (decode order is presentation order), one
    /// thread, keyframes only when asked.
    static func match(_ c: UnsafeMutablePointer<AVCodecContext>, source: UnsafePointer<AVCodecParameters>, timeBase: AVRational,
                      frameRate: AVRational) {
        let p = source.pointee
        c.pointee.width = p.width
        c.pointee.height = p.height
        c.pointee.pix_fmt = AVPixelFormat(rawValue: p.format)
        c.pointee.time_base = timeBase
        if frameRate.num > 0 { c.pointee.framerate = frameRate }
        c.pointee.sample_aspect_ratio = p.sample_aspect_ratio
        c.pointee.color_primaries = p.color_primaries
        c.pointee.color_trc = p.color_trc
        c.pointee.colorspace = p.color_space
        c.pointee.color_range = p.color_range
        c.pointee.chroma_sample_location = p.chroma_location
        c.pointee.field_order = AV_FIELD_PROGRESSIVE
        c.pointee.max_b_frames = 0
        c.pointee.gop_size = Int32.max / 2
        c.pointee.thread_count = 1
    }

    /// Encodes `frame` (nil drains) with `context` and hands each packet's NAL units (Annex B
    /// start codes removed) to `deliver`.
    static func encode(_ frame: UnsafeMutablePointer<AVFrame>?, with context: CodecContext, packet: Packet,
                       deliver: ([[UInt8]]) -> Void) throws {
        if let frame { frame.pointee.pict_type = AV_PICTURE_TYPE_NONE }
        let sent = LibAVCodec.sendFrame(context.pointer, frame)
        guard sent >= 0 else { throw ExportError.libav(AVFailure(code: sent, operation: "re-encoding frames at a cut")) }
        while true {
            let got = LibAVCodec.receivePacket(context.pointer, packet.pointer)
            if got == sp_averror_eagain() || got == sp_averror_eof() { return }
            guard got >= 0 else { throw ExportError.libav(AVFailure(code: got, operation: "re-encoding frames at a cut")) }
            let bytes = UnsafeBufferPointer(start: packet.pointer.pointee.data, count: Int(packet.pointer.pointee.size))
            deliver(AnnexBUnits.units(bytes))
            LibAVCodec.packetUnref(packet.pointer)
        }
    }
}

/// An encoder of a smart cut's re-encoded frames (``SpliceEncoder`` for H.264,
/// ``HEVCSpliceEncoder``): frames in, each packet's NAL units out.
protocol SpliceEncoding: AnyObject {
    func encode(_ frame: UnsafeMutablePointer<AVFrame>?, deliver: ([[UInt8]]) -> Void) throws
}
