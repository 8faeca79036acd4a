import Foundation
internal import CFFmpeg

/// Finds where a transport stream's clock starts again: two recordings joined with `cat` (each
/// starting at 1.4 s, say), whose second half repeats the first's timestamps. slowpoke places
/// every frame and sample by its timestamp within one clock per movie, so such a file would
/// export as its halves laid over each other; `open` refuses it, saying how to join it instead.
struct ClockRestart {
    private let watching: Bool
    private var last: [Int: Int64] = [:]
    /// Where the clock went back first: seconds into the movie.
    private(set) var at: Double?
    private let input: InputFormatContext

    init(_ input: InputFormatContext) {
        self.input = input
        watching = input.pointer.pointee.iformat.pointee.flags & AVFMT_TS_DISCONT != 0
    }

    /// Reads `packet`'s decode time: a step back of more than a second is a restart.
    mutating func add(_ packet: AVPacket) {
        guard watching, at == nil, packet.dts != sp_av_nopts_value() else { return }
        let index = Int(packet.stream_index)
        let base = input.stream(index).pointer.pointee.time_base
        if let previous = last[index], av_compare_ts(packet.dts, base, previous - av_rescale_q(1, AVRational(num: 1, den: 1), base), base) < 0 {
            let start = input.pointer.pointee.start_time
            at = Double(previous) * Double(base.num) / Double(base.den) - (start == sp_av_nopts_value() ? 0 : Double(start) / Double(sp_av_time_base()))
        }
        last[index] = packet.dts
    }

    /// The refusal, when the clock starts again.
    func failure(path: String) -> ExportError? {
        guard let at else { return nil }
        let name = (path as NSString).lastPathComponent
        return .notMedia(path: path, reason: "its clock starts again after \(String(format: "%.3f", at)) s (recordings joined with cat, say), and slowpoke places every frame by one clock per movie; join the recordings with ffmpeg's concat demuxer instead, or remux this file so that its clock runs on: ffmpeg -dts_delta_threshold 0.2 -i \(name) -map 0 -c copy remuxed.ts")
    }
}
