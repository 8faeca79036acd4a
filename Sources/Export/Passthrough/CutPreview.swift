import Foundation
public import Composition
import TimePitch
import Media

/// What a passthrough export will do at the timeline's cuts, read from its ``PassthroughPlan``
/// (a demux-only scan: no decoding, nothing written): how many frames ``SmartCut`` re-encodes at
/// how many cuts and how many it copies, or why the cuts will move to keyframes instead. `info`
/// shows it.
public struct CutPreview: Sendable, Equatable {
    /// Frames re-encoded, the cuts that need them, and frames copied.
    public let reencodedFrames: Int
    public let cuts: Int
    /// Reversed ranges re-encoded backwards (long-GOP video).
    public var reversals = 0
    public let copiedFrames: Int
    /// Of the re-encoded frames, freezes' held frames and gaps' black pictures.
    public var heldFrames = 0, blackFrames = 0
    /// Why the cuts move to keyframes (nothing re-encoded), or nil when they are frame-exact.
    public let keyframeCutsBecause: String?

    /// The plan of the default passthrough export of `source` to `output` (its extension picks
    /// the container), the one ``PassthroughExporter`` executes; nil when the source has no video
    /// or the timeline plays the whole video forwards, in order, without gaps (then nothing is cut, every frame
    /// is copied, and no scan of every packet is needed to say so: a long movie's `info` would
    /// pay for it).
    public static func plan(source: ExportSource, output: URL) throws -> PassthroughPlan? {
        guard Container(movieAt: output) != nil, let video = source.media.primaryVideo,
              let track = source.timeline.track(withID: Int32(video.index)) else { return nil }
        let segments = track.segments
        let sources = segments.compactMap(\.source)
        // A gap is a black picture re-encoded between cuts (``SmartCut/Still``): never skipped.
        if !segments.contains(where: { $0.isReversed || $0.isEmpty }), KeyframeSnapping.removesNothing(segments),
           let first = sources.first, let last = sources.last,
           let whole = (try? source.media.asset(name: source.name))?.tracks.first(where: { $0.trackID == Int32(video.index) })?.timeRange,
           first.start <= whole.start, last.end >= whole.end {
            return nil
        }
        return try PassthroughExporter(source: source, output: output, settings: TimePitchSettings(), force: false).plan()
    }

    /// What `plan` does at the timeline's cuts; nil when it copies every frame in order.
    public init?(plan: PassthroughPlan) {
        // A reversed range is said even when its intra frames are all copied.
        if plan.reencodedFrames == 0 && plan.map.entries.count == plan.scan.packets.count && plan.reencodedReversals == 0
            && !plan.timeline.contains(where: \.isReversed) { return nil }
        if let why = plan.keyframeCutsBecause {
            self.init(reencodedFrames: 0, cuts: 0, copiedFrames: plan.copiedFrames, keyframeCutsBecause: why)
            return
        }
        self.init(reencodedFrames: plan.reencodedFrames, cuts: plan.reencodedCuts, copiedFrames: plan.copiedFrames, keyframeCutsBecause: nil)
        reversals = plan.reencodedReversals
        (heldFrames, blackFrames) = (plan.heldFrames, plan.blackFrames)
    }

    /// The preview for exporting `source` to `output`; nil when the source has no video or the
    /// timeline removes nothing.
    public static func make(source: ExportSource, output: URL) throws -> CutPreview? {
        try plan(source: source, output: output).flatMap { CutPreview(plan: $0) }
    }

    init(reencodedFrames: Int, cuts: Int, copiedFrames: Int, keyframeCutsBecause: String?) {
        self.reencodedFrames = reencodedFrames
        self.cuts = cuts
        self.copiedFrames = copiedFrames
        self.keyframeCutsBecause = keyframeCutsBecause
    }
}
