import Foundation
package import CFFmpeg

/// An owned `AVPacket`.
package final class Packet {
    package let pointer: UnsafeMutablePointer<AVPacket>

    package init() throws(MediaError) {
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
