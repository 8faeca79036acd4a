public import Foundation
public import Composition

/// What `slowpoke slomo` applies to a document: the range and rate given, else those of the
/// movie's Photos sidecar (``SlowMotionSidecar``), else Photos' defaults for its frame rate
/// (``SlowMotion/photosDefault(duration:framesPerSecond:)``).
public struct SlowMotionRequest: Sendable {
    public let slowMotion: SlowMotion
    /// Where the range and rate came from, for people: `IMG_0042.AAE`, `Photos' defaults for 240 fps`.
    public let origin: String
    /// The sidecar that was read, if any.
    public let sidecar: SlowMotionSidecar?

    /// The rate that plays a clip stored slower than it was captured (Android's 240 fps capture
    /// stored for 30 fps playback: 8) at the speed it was filmed; nil when the movie does not say
    /// its capture rate, or is stored at it.
    public static func realTimeRate(of media: MediaInfo) -> Rational? {
        guard let capture = media.captureFrameRate, let video = media.primaryVideo,
              let stored = video.averageFrameRate ?? video.realFrameRate, stored.doubleValue > 0,
              capture > stored.doubleValue * 1.01,
              let captured = try? Rational(Int64((capture * 1000).rounded()), 1000) else { return nil }
        return try? (captured / stored)
    }

    /// Whether `document`'s timeline already plays some of its clip, stored slower than it was
    /// captured, at the speed it was filmed (`slomo --real-time`, or a scale as fast): some video
    /// segment plays at ``realTimeRate(of:)`` or faster.
    public static func playsAtRealTime(_ document: ProjectDocument) -> Bool {
        guard let rate = realTimeRate(of: document.media) else { return false }
        let floor = (try? rate * Rational(99, 100)) ?? rate
        return document.timeline.tracks(withMediaType: .video).contains { track in
            track.segments.contains { segment in segment.rate.map { $0 >= floor } ?? false }
        }
    }

    /// Decides the slow motion for `document`, whose movie is at `movie`. `range` (timeline
    /// time) and `rate` override the sidecar's and the defaults. Throws for a clip below 85 fps
    /// (not a high-frame-rate clip), and for a sidecar that cannot be read, naming it.
    public init(document: ProjectDocument, movie: URL, range: TimeRange?, rate: Rational?) throws {
        guard let video = document.media.primaryVideo else {
            throw CompositionError.notHighFrameRate("\(document.movie.path) has no video; slow motion is for high-frame-rate video")
        }
        let fps = (video.averageFrameRate ?? video.realFrameRate)?.doubleValue ?? 0
        if let realTime = Self.realTimeRate(of: document.media), let capture = document.media.captureFrameRate {
            // Played at the speed it was filmed, the clip is the high-frame-rate clip it was
            // captured as: a section of it slows as for a clip stored at its capture rate.
            if Self.playsAtRealTime(document) {
                try self.init(document: document, movie: movie, range: range, rate: rate, framesPerSecond: capture)
                return
            }
            throw CompositionError.storedSlow("\(document.movie.path) was captured at \(Int(capture.rounded())) fps and is stored for \(String(format: "%.3g", fps)) fps playback: it already plays at \((try? realTime.reciprocal)?.readable ?? "?")x the speed it was filmed, throughout")
        }
        try self.init(document: document, movie: movie, range: range, rate: rate, framesPerSecond: fps)
    }

    /// The slow motion for a clip of `fps` frames a second (its capture rate, for a clip played at
    /// the speed it was filmed).
    private init(document: ProjectDocument, movie: URL, range: TimeRange?, rate: Rational?, framesPerSecond fps: Double) throws {
        guard let photosRate = SlowMotion.photosRate(framesPerSecond: fps) else {
            throw SlowMotion.notHighFrameRate(framesPerSecond: fps)
        }
        var sidecar: SlowMotionSidecar?
        if range == nil || rate == nil, let url = SlowMotionSidecar.url(besideMovie: movie) {
            sidecar = try SlowMotionSidecar(contentsOf: url)
        }
        let timeline = document.timeline
        var chosenRange = range
        if chosenRange == nil, let sidecar {
            chosenRange = try Self.timelineRange(of: sidecar, in: timeline)
        }
        let defaults = try SlowMotion.photosDefault(duration: timeline.duration, framesPerSecond: fps)
        let finalRange = chosenRange ?? defaults.range
        let finalRate = rate ?? sidecar?.rate ?? photosRate
        do {
            slowMotion = try SlowMotion(range: finalRange, rate: finalRate)
        } catch {
            // The sidecar's own rate out of range: said with the sidecar.
            guard case .rateOutOfRange = error, rate == nil, let sidecar else { throw error }
            throw SidecarError(path: sidecar.path, reason: "its slow-motion rate \(finalRate.readable) is outside the supported 0.03125 to 32")
        }
        self.sidecar = sidecar
        let fpsText = String(format: "%.3g", fps)
        switch (range != nil, rate != nil, sidecar != nil) {
        case (true, true, _): origin = "the range and rate given"
        case (_, _, true):
            // A region that runs past the movie's end is clipped to it, and that is said.
            let movieEnd = timeline.tracks(withMediaType: .video).first?.segments.compactMap(\.source?.end).max() ?? .zero
            let clipped = range == nil && sidecar!.region.end > movieEnd
                ? " (its region \(sidecar!.region) clipped to the movie's end at \(movieEnd.readable))" : ""
            origin = (sidecar!.path as NSString).lastPathComponent + clipped + (range != nil || rate != nil ? " and the \(range != nil ? "range" : "rate") given" : "")
        default: origin = "Photos' defaults for \(fpsText) fps" + (range != nil || rate != nil ? " and the \(range != nil ? "range" : "rate") given" : "")
        }
    }

    /// Where the sidecar's region (movie time) is on the timeline: it must still play there in
    /// one piece, untouched (the region is clipped to the movie's end).
    static func timelineRange(of sidecar: SlowMotionSidecar, in timeline: Composition) throws -> TimeRange {
        let name = (sidecar.path as NSString).lastPathComponent
        guard let track = timeline.tracks(withMediaType: .video).first else {
            throw CompositionError.noSuchTrack("the timeline has no video track")
        }
        let movieEnd = track.segments.compactMap(\.source?.end).max() ?? .zero
        guard let movieRange = try? TimeRange(start: .zero, end: movieEnd),
              let region = try sidecar.region.clamped(to: movieRange), !region.isEmpty else {
            throw SidecarError(path: sidecar.path, reason: "its slow-motion region \(sidecar.region) lies outside the movie")
        }
        let pieces = SourceMapping.compositionRanges(of: region, in: track.segments)
        guard pieces.count == 1, pieces[0].duration == region.duration else {
            throw CompositionError.regionEdited("\(name)'s slow-motion region (movie time \(region)) no longer plays untouched on the timeline, which was edited there")
        }
        return pieces[0]
    }
}
