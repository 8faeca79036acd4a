import Composition
import Media

/// Pictures for playback that runs backwards (a reversed range, or `J`): a decoder only runs
/// forwards, and seeking back to a keyframe for every picture would decode a whole GOP per
/// frame shown. Moving back past what it holds, this decodes the stretch before the wanted
/// time once, from the keyframe before it, and keeps that stretch's pictures (YUV 4:2:0
/// copies, at most ``budget`` bytes); the frames before it then come from memory until the
/// stretch is used up, when the one before it is decoded.
///
///     wanted, backwards:   … 3.90  3.87  3.83 …
///     decoded once:        [2.90 ─────────── 3.93]   from the keyframe before 2.90
///     then served:         3.93, 3.90, 3.87 … 2.90 from memory
final class BackwardPictureCache {
    /// One picture's planes, copied out of the decoder's frame.
    private final class Picture {
        let time: Time
        let planes: [UnsafeMutableBufferPointer<UInt8>]
        let linesizes: [Int]

        init(time: Time, planes: [UnsafePointer<UInt8>], linesizes: [Int], rows: [Int]) {
            self.time = time
            self.linesizes = linesizes
            self.planes = (0..<3).map { i in
                let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: linesizes[i] * rows[i])
                copy.baseAddress!.update(from: planes[i], count: copy.count)
                return copy
            }
        }

        deinit { planes.forEach { $0.deallocate() } }
    }
    private let reader: VideoFrameReader
    /// The cached stretch, in presentation order, and the source time it is good up to.
    private var pictures: [Picture] = []
    private var coveredEnd: Time = .zero
    private var shown: Int?
    /// The most bytes of pictures kept: 256 MB (80 frames of 1080p, 20 of 4K).
    let budget: Int
    /// How far back each decoded stretch reaches, in seconds (less when the budget is tight).
    let stretch: Double

    init(reader: VideoFrameReader, budget: Int = 256 << 20, stretch: Double = 1) {
        self.reader = reader
        self.budget = budget
        self.stretch = stretch
    }

    /// Makes the picture that shows at source time `t` current; true if it changed.
    func show(at t: Time) throws -> Bool {
        if let index = cached(t) { return select(index) }
        try fill(endingAt: t)
        return select(cached(t) ?? max(0, pictures.count - 1))
    }

    func withPlanes<Result>(_ body: (_ planes: [UnsafePointer<UInt8>], _ linesizes: [Int]) throws -> Result) throws -> Result? {
        guard let shown, shown < pictures.count else { return nil }
        let picture = pictures[shown]
        return try withExtendedLifetime(picture) { try body(picture.planes.map { UnsafePointer($0.baseAddress!) }, picture.linesizes) }
    }

    /// Forgets the stretch (after an edit, or when playback goes forwards again).
    func clear() {
        pictures.removeAll()
        shown = nil
    }

    private func select(_ index: Int) -> Bool {
        defer { shown = index }
        return shown != index
    }

    /// The cached picture showing at `t`: the last one at or before it, if `t` is inside the
    /// stretch.
    private func cached(_ t: Time) -> Int? {
        guard let first = pictures.first, t >= first.time, t < coveredEnd else { return nil }
        var low = 0, high = pictures.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if pictures[mid].time <= t { low = mid } else { high = mid - 1 }
        }
        return low
    }

    /// Decodes the stretch that ends with the picture at `t` and keeps its pictures.
    private func fill(endingAt t: Time) throws {
        clear()
        let frameSeconds = reader.nominalFrameDuration ?? (1.0 / 30)
        let frameBytes = max(1, reader.pictureWidth * reader.pictureHeight * 3 / 2)
        let seconds = min(stretch, Double(max(2, budget / frameBytes)) * frameSeconds)
        let start = PlaybackClock.time(seconds: max(0, t.seconds - seconds))
        let step = PlaybackClock.time(seconds: frameSeconds / 2)
        var s = start
        _ = try reader.show(at: s)
        while true {
            if let time = reader.currentTime, pictures.last?.time != time, time <= t || pictures.isEmpty {
                try keep(time)
                if pictures.count * frameBytes > budget { pictures.removeFirst() }
            }
            guard s < t else { break }
            s = min(t, (try? s + step) ?? t)
            _ = try reader.show(at: s)
        }
        // Good up to the picture after `t`: the time asked for is the last one wanted.
        coveredEnd = (try? t + PlaybackClock.tick) ?? t
    }

    private func keep(_ time: Time) throws {
        let rows = [reader.pictureHeight, (reader.pictureHeight + 1) / 2, (reader.pictureHeight + 1) / 2]
        let picture = try reader.withPlanes { planes, linesizes in Picture(time: time, planes: planes, linesizes: linesizes, rows: rows) }
        if let picture { pictures.append(picture) }
    }
}
