package import CFFmpeg

/// An owned `AVFrame`.
package final class Frame {
    package let pointer: UnsafeMutablePointer<AVFrame>

    package init() throws(MediaError) {
        guard let frame = av_frame_alloc() else {
            throw .libav(AVFailure(code: sp_averror(ENOMEM), operation: "allocating a frame"))
        }
        pointer = frame
    }

    /// Takes ownership of `frame` (one from `av_frame_alloc` or `av_frame_clone`).
    package init(owning frame: UnsafeMutablePointer<AVFrame>) {
        pointer = frame
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&frame)
    }
}
