internal import CFFmpeg

/// Process-wide libav set-up. Libraries never print: libav's own logger is silenced, and every
/// failure reaches the caller as a return code turned into an error.
enum LibAV {
    static let configured: Void = {
        av_log_set_level(AV_LOG_QUIET)
    }()

    static func configure() { _ = configured }
}
