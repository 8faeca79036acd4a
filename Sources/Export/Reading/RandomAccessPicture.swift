internal import CFFmpeg

/// Whether a keyframe of an H.264 or HEVC stream is an IDR picture (or HEVC's BLA), from which
/// decoding can start with nothing before it: a run of copied frames may resume there. Other
/// keyframes of those codecs are an open GOP's recovery points (x264's `open-gop`, HEVC's CRA),
/// whose slices still name earlier pictures, so a decoder that meets one after a cut reports
/// missing references and drops frames (a smart cut may still resume at an H.264 one by
/// rewriting it as an IDR picture: ``OpenGOPCheck``, ``OpenGOPRewriter``). Packets are read as
/// stored: length-prefixed NAL units (mp4, mkv) when the stream's extradata is a configuration
/// record, start codes otherwise.
struct RandomAccessPicture {
    private enum Syntax { case h264, hevc }
    private let syntax: Syntax?
    /// Bytes in each NAL unit's length prefix; nil for start codes.
    private let lengthSize: Int?

    init(parameters: UnsafePointer<AVCodecParameters>) {
        let p = parameters.pointee
        switch p.codec_id {
        case AV_CODEC_ID_H264: syntax = .h264
        case AV_CODEC_ID_HEVC: syntax = .hevc
        default: syntax = nil
        }
        let extra = p.extradata.map { UnsafeBufferPointer(start: $0, count: Int(p.extradata_size)) } ?? UnsafeBufferPointer(start: nil, count: 0)
        switch syntax {
        case .h264 where extra.count > 4 && extra[0] == 1: lengthSize = Int(extra[4] & 3) + 1
        case .hevc where extra.count > 21 && extra[0] == 1: lengthSize = Int(extra[21] & 3) + 1
        default: lengthSize = nil
        }
    }

    /// Whether `packet` holds an IDR (or BLA) picture; true for codecs where every keyframe is one.
    func isRandomAccess(_ packet: UnsafePointer<AVPacket>) -> Bool {
        guard let syntax, let data = packet.pointee.data else { return true }
        let bytes = UnsafeBufferPointer(start: data, count: Int(packet.pointee.size))
        for header in nalHeaders(bytes) {
            switch syntax {
            case .h264: if header & 0x1F == 5 { return true }
            case .hevc: if HEVCNALType.isRandomAccess(HEVCNALType.of(header)) { return true }
            }
        }
        return false
    }

    /// Whether `packet` holds an HEVC CRA picture (an open GOP's start): a smart cut resumes
    /// there with the picture renamed BLA, so a decoder does not expect its leading pictures
    /// (shown before it, so never copied after a cut).
    func isCleanRandomAccess(_ packet: UnsafePointer<AVPacket>) -> Bool {
        guard syntax == .hevc, let data = packet.pointee.data else { return false }
        return nalHeaders(UnsafeBufferPointer(start: data, count: Int(packet.pointee.size))).contains { HEVCNALType.of($0) == HEVCNALType.cra }
    }

    /// The first byte of each NAL unit in the packet.
    private func nalHeaders(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var headers: [UInt8] = []
        if let lengthSize {
            var i = 0
            while i + lengthSize < bytes.count {
                var length = 0
                for k in 0..<lengthSize { length = length << 8 | Int(bytes[i + k]) }
                headers.append(bytes[i + lengthSize])
                guard length > 0 else { break }
                i += lengthSize + length
            }
        } else {
            var i = 0, zeros = 0
            while i < bytes.count {
                if bytes[i] == 0 { zeros += 1 } else {
                    if bytes[i] == 1 && zeros >= 2 && i + 1 < bytes.count { headers.append(bytes[i + 1]) }
                    zeros = 0
                }
                i += 1
            }
        }
        return headers
    }
}
