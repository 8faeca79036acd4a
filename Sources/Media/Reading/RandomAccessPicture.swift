internal import Bitstream
package import CFFmpeg

/// Whether a keyframe of an H.264 or HEVC stream is an IDR picture (or HEVC's BLA), from which
/// decoding can start with nothing before it: a run of copied frames may resume there. Other
/// keyframes of those codecs are an open GOP's recovery points (x264's `open-gop`, HEVC's CRA),
/// whose slices still name earlier pictures, so a decoder that meets one after a cut reports
/// missing references and drops frames (a smart cut may still resume at an H.264 one by
/// rewriting it as an IDR picture: ``OpenGOPCheck``, ``OpenGOPRewriter``). Packets are read as
/// stored: length-prefixed NAL units (mp4, mkv) when the stream's extradata is a configuration
/// record, start codes otherwise.
package struct RandomAccessPicture {
    private enum Syntax { case h264, hevc }
    private let syntax: Syntax?
    /// Bytes in each NAL unit's length prefix; nil for start codes.
    private let lengthSize: Int?

    package init(parameters: UnsafePointer<AVCodecParameters>) {
        let p = parameters.pointee
        switch p.codec_id {
        case AV_CODEC_ID_H264: syntax = .h264
        case AV_CODEC_ID_HEVC: syntax = .hevc
        default: syntax = nil
        }
        let extra = p.extradata.map { UnsafeBufferPointer(start: $0, count: Int(p.extradata_size)) } ?? UnsafeBufferPointer(start: nil, count: 0)
        switch syntax {
        case .h264: lengthSize = ParameterSets.lengthSize(avcC: extra)
        case .hevc: lengthSize = HEVCParameterSets.lengthSize(hvcC: extra)
        case nil: lengthSize = nil
        }
    }

    /// Whether `packet` holds an IDR (or BLA) picture; true for codecs where every keyframe is one.
    package func isRandomAccess(_ packet: UnsafePointer<AVPacket>) -> Bool {
        guard let syntax, let data = packet.pointee.data else { return true }
        let bytes = UnsafeBufferPointer(start: data, count: Int(packet.pointee.size))
        for header in nalHeaders(bytes) {
            switch syntax {
            case .h264: if H264NALType.of(header) == .idr { return true }
            case .hevc: if HEVCNALType.of(header)?.isRandomAccess ?? false { return true }
            }
        }
        return false
    }

    /// Whether `packet` holds an HEVC CRA picture (an open GOP's start): a smart cut resumes
    /// there with the picture renamed BLA, so a decoder does not expect its leading pictures
    /// (shown before it, so never copied after a cut).
    func isCleanRandomAccess(_ packet: UnsafePointer<AVPacket>) -> Bool {
        guard syntax == .hevc, let data = packet.pointee.data else { return false }
        return nalHeaders(UnsafeBufferPointer(start: data, count: Int(packet.pointee.size))).contains { HEVCNALType.of($0) == .cra }
    }

    /// The first byte of each NAL unit in the packet (of a last unit cut short too).
    private func nalHeaders(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        if let lengthSize { return LengthPrefixedUnits(bytes, lengthSize: lengthSize, keepingCutShort: true).map { $0[0] } }
        return AnnexBUnits(bytes).compactMap(\.first)
    }
}
