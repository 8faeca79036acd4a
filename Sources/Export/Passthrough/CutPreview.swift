import Foundation
public import Composition

/// What a passthrough export will do at the timeline's cuts, worked out in advance from a
/// demux-only scan (no decoding, nothing written): how many frames ``SmartCut`` re-encodes at how
/// many cuts and how many it copies, or why the cuts will move to keyframes instead. `info`
/// shows it.
public struct CutPreview: Sendable, Equatable {
    /// Frames re-encoded, the cuts that need them, and frames copied.
    public let reencodedFrames: Int
    public let cuts: Int
    /// Reversed ranges re-encoded backwards (long-GOP video).
    public var reversals = 0
    public let copiedFrames: Int
    /// Why the cuts move to keyframes (nothing re-encoded), or nil when they are frame-exact.
    public let keyframeCutsBecause: String?

    /// The preview for exporting `source` to `output` (its extension picks the container); nil
    /// when the source has no video or the timeline removes nothing.
    public static func make(source: ExportSource, output: URL) throws -> CutPreview? {
        guard let container = Container(movie: output.pathExtension), let video = source.media.primaryVideo,
              let track = source.timeline.track(withID: Int32(video.index)) else { return nil }
        var segments = track.segments
        // A timeline that plays the whole video forwards, in order, cuts nothing: no scan of
        // every packet to say so (a long movie's `info` would pay for it).
        let sources = segments.compactMap(\.source)
        if !segments.contains(where: \.isReversed), KeyframeSnapping.removesNothing(segments),
           let first = sources.first, let last = sources.last,
           let whole = (try? source.media.asset(name: source.name))?.tracks.first(where: { $0.trackID == Int32(video.index) })?.timeRange,
           first.start <= whole.start, last.end >= whole.end {
            return nil
        }
        let scan = try VideoScan(movie: source.movie, stream: video.index, name: source.name, warning: { _ in })
        if scan.truncated { segments = try CompositionTrackSegment.cut(segments, atSourceEnd: scan.end) }
        let smart = SmartCut(scan: scan, segments: segments)
        let copied = smart.items.count - smart.encodedFrames
        // A reversed range is said even when its intra frames are all copied.
        if smart.encodedFrames == 0 && copied == scan.packets.count && !segments.contains(where: \.isReversed) { return nil }
        if let why = SmartCut.refusal(container: container, movie: source.movie, stream: video.index, name: source.name,
                                      scan: scan, segments: segments) {
            // A reversed range is never moved to keyframes: the export copies it (intra
            // frames) or refuses.
            if segments.contains(where: \.isReversed) {
                guard smart.spans.isEmpty else { throw ReversePassthrough.refusal(segments, name: source.name, why: why) }
            } else {
                return CutPreview(reencodedFrames: 0, cuts: 0, copiedFrames: 0, keyframeCutsBecause: why)
            }
        }
        var preview = CutPreview(reencodedFrames: smart.encodedFrames, cuts: smart.cuts, copiedFrames: copied, keyframeCutsBecause: nil)
        preview.reversals = smart.reversedRuns
        return preview
    }
}
