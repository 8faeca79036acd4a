package import CFFmpeg

/// An owned `AVCodecParameters`, freed on deinit: an encoder's output format kept for the
/// muxer's stream after the encoder has moved to a thread of its own, or a probed stream's
/// kept for the file's next opening (``StreamInfoCache``).
package final class CodecParameters {
    package let pointer: UnsafeMutablePointer<AVCodecParameters>

    /// The parameters of `encoder`'s output.
    package init(of encoder: CodecContext, display: String) throws(MediaError) {
        try LibAV.load()
        guard let made = LibAVCodec.parametersAlloc() else {
            throw .av(path: display, AVFailure(code: sp_averror(ENOMEM), operation: "allocating codec parameters"))
        }
        pointer = made
        let copied = LibAVCodec.parametersFromContext(made, encoder.pointer)
        guard copied >= 0 else { throw .av(path: display, AVFailure(code: copied, operation: "setting codec parameters")) }
    }

    /// A copy of `parameters`.
    package init(copying parameters: UnsafePointer<AVCodecParameters>) throws(MediaError) {
        guard let made = LibAVCodec.parametersAlloc() else {
            throw .av(path: "", AVFailure(code: sp_averror(ENOMEM), operation: "allocating codec parameters"))
        }
        pointer = made
        let copied = LibAVCodec.parametersCopy(made, parameters)
        guard copied >= 0 else { throw .av(path: "", AVFailure(code: copied, operation: "copying codec parameters")) }
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecParameters>? = pointer
        LibAVCodec.parametersFree(&owned)
    }
}
