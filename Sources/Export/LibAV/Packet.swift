import Foundation
internal import CFFmpeg
import Media

/// An owned `AVPacket`.
final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>

    init() throws(ExportError) {
        try LibAV.load()
        guard let packet = LibAVCodec.packetAlloc() else {
            throw .libav(AVFailure(code: sp_averror(ENOMEM), operation: "allocating a packet"))
        }
        pointer = packet
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = pointer
        LibAVCodec.packetFree(&packet)
    }
}
