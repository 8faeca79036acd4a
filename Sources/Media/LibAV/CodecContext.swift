package import CFFmpeg

/// An owned `AVCodecContext`, freed on deinit.
package final class CodecContext {
    package let pointer: UnsafeMutablePointer<AVCodecContext>

    package init(codec: UnsafePointer<AVCodec>) throws(MediaError) {
        guard let context = LibAVCodec.allocCodecContext(codec) else {
            throw .libav(AVFailure(code: sp_averror(ENOMEM), operation: "allocating a codec context"))
        }
        pointer = context
    }

    deinit {
        var context: UnsafeMutablePointer<AVCodecContext>? = pointer
        LibAVCodec.freeCodecContext(&context)
    }

    /// What a send or receive call said, with EAGAIN and EOF as values rather than errors.
    package enum Step: Equatable { case ok, needsInput, endOfStream }

    package func send(_ packet: Packet?) -> Int32 { LibAVCodec.sendPacket(pointer, packet?.pointer) }

    package func receive(_ frame: Frame) throws(AVFailure) -> Step {
        let result = LibAVCodec.receiveFrame(pointer, frame.pointer)
        if result == sp_averror_eagain() { return .needsInput }
        if result == sp_averror_eof() { return .endOfStream }
        if result < 0 { throw AVFailure(code: result, operation: "decoding") }
        return .ok
    }
}
