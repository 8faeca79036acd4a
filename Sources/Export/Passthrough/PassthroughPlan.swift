import Foundation
public import Composition
public import TimePitch
internal import CFFmpeg
import Media

/// What a passthrough export writes, worked out once from the movie's facts (a demux-only
/// scan: no decoding, nothing written), the timeline and the options: the contract between
/// `info`, which shows it, and ``PassthroughExporter``, which executes it and takes every
/// count it reports from it. Every output frame is here: which source frame it shows, at which
/// time, and whether it is copied or re-encoded; so are the cuts, the fit and what the export
/// will say.
public struct PassthroughPlan {
    /// One frame of the output, in presentation order.
    public struct Frame: Sendable, Equatable, Encodable {
        /// The source frame it shows, by its presentation time in the source (0 is the movie's
        /// first frame); nil for a gap's black picture.
        public let source: Time?
        /// Where the output shows it.
        public let time: Time
        /// Re-encoded at a frame-exact cut, in a reversed range, or as a still, rather than copied.
        public let reencoded: Bool
        /// A freeze's held frame, re-encoded once and shown for the freeze's length.
        public let held: Bool
        /// A gap's black picture, re-encoded and shown for the gap's length.
        public let black: Bool
    }

    /// The video track as exported: as far as the movie can be read, fitted to the copied
    /// audio's frames, cuts at keyframes where they move. Every stream follows it.
    public let timeline: [CompositionTrackSegment]
    /// How the timeline was fitted to the copied audio's frames; nil when it was not.
    public let fit: FrameGridFit.Summary?
    /// Cuts moved to keyframes: what was asked and what is done.
    public let movedCuts: [(requested: TimeRange, actual: TimeRange?)]
    /// Why the cuts move to keyframes rather than being frame-exact; nil when they are
    /// frame-exact (or the timeline cuts nothing).
    public let keyframeCutsBecause: String?
    /// What the export says before any work, one sentence each.
    public internal(set) var warnings: [Notice]
    /// The crop or zoom done by the stream's cropping window, as the summary says it (``PassthroughCrop``).
    public internal(set) var reframed: String?

    /// The output timescale, and whether every timestamp is exact in it.
    public var timescale: Int32 { map.timescale }
    public var exact: Bool { map.exact && !rounded }
    /// The output's length.
    public var duration: Time { timeline.last?.target.end ?? .zero }
    /// Frames shown (hidden reference frames before time 0 are not counted).
    public var videoFrames: Int { map.entries.count { !$0.hidden } }
    /// Frames re-encoded at cuts, the cuts that need them, reversed ranges re-encoded backwards.
    public var reencodedFrames: Int { video.smart?.encodedFrames ?? 0 }
    public var reencodedCuts: Int { video.smart?.cuts ?? 0 }
    public var reencodedReversals: Int { video.smart?.reversedRuns ?? 0 }
    public var copiedFrames: Int { videoFrames - reencodedFrames }
    /// Of the re-encoded frames, freezes' held frames and gaps' black pictures (one each).
    public var heldFrames: Int { video.smart?.stillCounts.held ?? 0 }
    public var blackFrames: Int { video.smart?.stillCounts.black ?? 0 }

    /// Every frame the output shows, in presentation order.
    public var frames: [Frame] {
        map.entries.filter { !$0.hidden }.map { entry in
            let item = video.smart?.items[entry.index]
            let source = video.smart.map { $0.sourceIndex($0.items[entry.index]) } ?? entry.index
            let reencoded = if case .encoded = item { true } else { false }
            let still = item.flatMap { video.smart?.still($0) }
            return Frame(source: source.map { scan.packets[$0].pts }, time: Time(value: entry.pts, timescale: map.timescale),
                         reencoded: reencoded, held: still?.held != nil, black: still != nil && still?.held == nil)
        }.sorted { $0.time < $1.time }
    }

    /// How the frames are made (internal to the exporter).
    let video: PassthroughExporter.VideoPlan
    let scan: VideoScan
    let map: PacketMap
    /// The timeline's exact times outgrew exact arithmetic and were rounded to the source's ticks.
    let rounded: Bool
}

extension PassthroughPlan {
    /// The plan for exporting `source` into `container` (the movie opened once as `header`),
    /// with `settings`; `keyframeCuts` moves cuts to keyframes instead of re-encoding frames,
    /// `exact` keeps the timeline unfitted. Throws when passthrough cannot play the timeline (a
    /// reversed range it cannot re-encode), before any work.
    static func make(source: ExportSource, container: Container, header: InputFormatContext, settings: TimePitchSettings,
                     keyframeCuts: Bool, exact: Bool) throws -> PassthroughPlan {
        guard let videoStream = source.media.primaryVideo, let track = source.timeline.track(withID: Int32(videoStream.index)) else {
            throw ExportError.unsupported("the timeline has no video track")
        }
        var warnings: [Notice] = []
        let scan = try VideoScan(movie: source.movie, stream: videoStream.index, name: source.name, warning: { warnings.append(Notice($0)) })
        let readable = scan.truncated ? try CompositionTrackSegment.cut(track.segments, atSourceEnd: scan.end) : track.segments
        let grid = try TimelineFitting.grid(source: source, header: header, container: container, settings: settings, exact: exact)
        let planner = PassthroughExporter.Planner(source: source, container: container, header: header, scan: scan, grid: grid,
                                                  sourceGrid: try TimelineFitting.sourceGrid(of: source, grid: grid),
                                                  keyframeCuts: keyframeCuts, exact: exact)
        let video = try planner.plan(readable, warning: { warnings.append($0) })
        PassthroughExporter.warn(about: video.snapped.cuts, in: video.segments, name: source.name, container: container,
                                 stills: video.smart?.stills ?? false, warning: { warnings.append($0) })
        if video.smart.map({ !$0.spans.isEmpty }) ?? false, container.isQuickTime,
           header.stream(videoStream.index).parameters.pointee.codec_id == AV_CODEC_ID_HEVC {
            warnings.append(hev1Warning(name: source.name))
        }
        let timeline = try CompositionTrack(trackID: track.trackID, mediaType: .video, segments: video.segments)
        let packets = video.smart.map { smart in
            smart.items.map { item in
                // A still shows where the timeline says; it is its own picture, never damaged or hidden.
                if let still = smart.still(item) { return PacketMap.SourcePacket(pts: still.shown.start, duration: still.shown.duration, shown: still.shown) }
                return scan.packets[smart.sourceIndex(item)!]
            }
        } ?? scan.packets
        let map = try PacketMap(packets: packets, track: timeline, preferred: scan.timescale,
                                fixedTimescale: container.fixedTimescale,
                                carriesHidden: container.canHideFrames,
                                limits: container.canHideFrames ? PacketMap.Limits() : nil, holdsAreFrames: video.smart?.stills ?? false)
        return PassthroughPlan(timeline: video.segments, fit: video.fit, movedCuts: video.snapped.cuts.map { ($0.requested, $0.actual) },
                               keyframeCutsBecause: video.keyframeCutsBecause, warnings: warnings,
                               video: video, scan: scan, map: map, rounded: video.snapped.rounded)
    }

    /// What the plan says when an HEVC smart cut into mp4 or mov makes the sample entry `hev1`.
    static func hev1Warning(name: String) -> Notice {
        Notice("the HEVC video of \(name) is written as hev1, not hvc1: the frames re-encoded at its cuts carry their own parameter sets in the stream, which hvc1 does not allow, and Apple's players play only hvc1",
               remedies: [Remedy(.keyframeCuts, "to keep hvc1")])
    }
}
