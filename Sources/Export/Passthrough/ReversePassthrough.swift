import Foundation
import Composition
internal import CFFmpeg
import Media

/// Whether passthrough can play the timeline's reversed ranges, decided before any work from
/// one look at the movie: intra-only video (ProRes, MJPEG, DNxHD, PNG, FFV1, or a stream whose
/// every frame is an IDR picture) is copied frame by frame in reverse; long-GOP H.264 or HEVC
/// that frame-exact cuts can re-encode (``SpliceFormat``) is re-encoded backwards (``GOPRenderer``).
/// Anything else, and keyframe cuts (which promise to re-encode nothing and cut at keyframes),
/// is refused, with a constant-rate export as the remedy, which plays any codec backwards.
enum ReversePassthrough {
    /// Throws when `source`'s timeline plays something backwards that passthrough into
    /// `container` cannot.
    static func check(_ source: ExportSource, container: Container, keyframeCuts: Bool) throws {
        guard !source.reversedRanges.isEmpty, let video = source.media.primaryVideo else { return }
        if keyframeCuts {
            try source.refuseReverse("keyframe cuts re-encode nothing and cut only at keyframes, so passthrough cannot play it backwards",
                                     remedies: [Remedy(.frameExactCuts), Remedy(.constantRate)])
        }
        let input = try InputFormatContext(path: source.movie.path)
        let parameters = input.stream(video.index).parameters
        let codec = parameters.pointee.codec_id
        if (LibAVCodec.descriptor(codec)?.pointee.props ?? 0) & AV_CODEC_PROP_INTRA_ONLY != 0 { return }
        var why = "is \(String(cString: LibAVCodec.codecName(codec)))"
        if codec == AV_CODEC_ID_H264 || codec == AV_CODEC_ID_HEVC {
            if let refusal = SpliceFormat.refusal(input.stream(video.index)) { why = refusal }
            else if !(container.isQuickTime || container.isFullMatroska) { why = "would be re-encoded into \(container.displayName)" }
            else { return }
        }
        if try everyFrameStandsAlone(input, stream: video.index) { return }
        try source.refuseReverse("passthrough plays video backwards only by copying intra-only frames (ProRes, MJPEG, DNxHD, PNG, FFV1, all-IDR H.264) or by re-encoding 8- or 10-bit 4:2:0 progressive H.264 or HEVC (Main, Main 10) into .mp4, .mov or .mkv, and the video of \(source.name) \(why)",
                                 remedies: [Remedy(.constantRate)])
    }

    /// The refusal of a reversed range found once the plan is made (a long-GOP stream whose
    /// re-encoding `why` rules out), in the words of ``ExportSource/refuseReverse(_:)``.
    static func refusal(_ segments: [CompositionTrackSegment], name: String, why: String) -> ExportError {
        let range = segments.first(where: \.isReversed)?.target.shown ?? "a range"
        return .unavailable(Notice("the timeline of \(name) plays \(range) backwards, and passthrough cannot re-encode it because \(why)",
                                   remedies: [Remedy(.constantRate)]))
    }

    /// Whether every packet of stream `stream` is a keyframe decoding can start from, in
    /// presentation order (nothing reordered); stops at the first that is not.
    private static func everyFrameStandsAlone(_ input: InputFormatContext, stream: Int) throws -> Bool {
        input.readOnly(stream: stream)
        let randomAccess = RandomAccessPicture(parameters: input.stream(stream).parameters)
        let packet = try Packet()
        var last: Int64?
        var any = false
        while try input.read(into: packet) {
            let p = packet.pointer.pointee
            guard Int(p.stream_index) == stream else { continue }
            let t = p.pts != sp_av_nopts_value() ? p.pts : p.dts
            guard p.flags & AV_PKT_FLAG_KEY != 0, randomAccess.isRandomAccess(packet.pointer), last.map({ $0 < t }) ?? true else { return false }
            last = t
            any = true
        }
        return any
    }
}
