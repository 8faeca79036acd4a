import Composition
import Media

/// The pictures a constant-rate export chooses among, in presentation order, with their source
/// times. A progressive frame is one picture. An interlaced frame of duration d holds two
/// fields taken d/2 apart, and each is a picture of its own: frame i is pictures 2i (at its
/// time t) and 2i + 1 (at t + d/2), so 25i video offers 50 distinct pictures a second.
///
///     frames    |  0        |  1        |  2        |
///     pictures  |  0  |  1  |  2  |  3  |  4  |  5  |
struct PictureTimes {
    /// Picture p's source time, sorted.
    let times: [Time]
    /// Pictures per source frame: 1, or 2 when each field is a picture.
    let perFrame: Int
    /// The source's own timescale, for approximate lookups.
    let timescale: Int32

    /// The frames of `scan`, or their fields when `fields`.
    init(scan: VideoScan, fields: Bool) throws {
        timescale = scan.timescale
        guard fields else {
            times = scan.presentationTimes
            perFrame = 1
            return
        }
        perFrame = 2
        let frames = scan.presentationTimes
        let half = try Rational(1, 2)
        var times: [Time] = []
        times.reserveCapacity(frames.count * 2)
        for (i, t) in frames.enumerated() {
            let end = i + 1 < frames.count ? frames[i + 1] : scan.end
            times.append(t)
            times.append(try t + (end - t).multiplied(by: half))
        }
        self.times = times
    }

    var count: Int { times.count }

    /// The source frame picture `p` comes from.
    func frame(of p: Int) -> Int { p / perFrame }

    /// The picture on screen at source time `s`: the last one presented at or before it (the
    /// first for times before it). Binary search in exact time.
    func picture(at s: Time) -> Int {
        times.lastIndex(notAfter: s)
    }

    /// The source frames to decode for the pictures flagged in `needed`: each picture's frame
    /// and, for fields, the frames either side, which the deinterlacer reads too.
    func framesNeeded(_ needed: [Bool], frameCount: Int) -> [Bool] {
        guard perFrame > 1 else { return needed }
        var frames = [Bool](repeating: false, count: frameCount)
        for (p, wanted) in needed.enumerated() where wanted {
            let f = frame(of: p)
            for g in max(0, f - 1)...min(frameCount - 1, f + 1) { frames[g] = true }
        }
        return frames
    }
}

/// Where a constant-rate export gets picture p: the decoded frame itself, or (interlaced
/// video) a deinterlaced field.
protocol PictureSource: AnyObject {
    func picture(_ p: Int) throws -> Frame
    /// Whether pictures are asked for last to first (a reversed range), which a source may
    /// read ahead for differently.
    var backwards: Bool { get set }
    /// Forgets what is kept for pictures the export has left behind: before `p` going
    /// forwards, after `p` going ``backwards``.
    func release(behind p: Int)
}

extension FrameDecoder: PictureSource {
    func picture(_ p: Int) throws -> Frame { try frame(p) }
}
