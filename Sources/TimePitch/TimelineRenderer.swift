import Composition
import Foundation

/// Renders a composition track's audio offline: every segment at its rate, through the chosen
/// algorithm, streamed to a sink in order.
///
/// - **Exact placement.** Segment k occupies output frames `[round(t_k × SR), round(t_k+1 × SR))`,
///   computed from exact composition times, so nothing drifts however many segments there are,
///   and the total is `round(duration × SR)` frames.
/// - **Seamless joins, no sound across them.** Each segment reads only its own source
///   (``Plan/own``): before it silence, after it its own audio predicted on. At a join the later
///   segment rises from its first frame over 2.5 ms while the earlier one, carried on past its end,
///   falls with a complementary raised-cosine ramp: no click, no gap, no doubled audio, and
///   nothing of a segment is heard before its start or read from its neighbour's source. A
///   segment that begins with an attack enters at full level, so the attack keeps its shape.
/// - **Cheap rate-1 segments.** Segments at rate 1 with no pitch shift are copied straight from
///   the source; only the stretched ones cost DSP time.
/// - **Bounded memory.** Audio moves in blocks; only a crossfade's worth is held between
///   segments, whatever the movie's length.
/// - **Attacks in place.** Stretched segments are split at sharp onsets, so the phase
///   vocoder cannot smear an attack out of its time (``splitAtOnsets(_:source:)``).
/// - **Ramps in one run.** Stretched segments that continue each other's source (a ramp's
///   steps) are one Rubber Band run whose key-frame map places every step, with no join to
///   crossfade (``joinedSteps(_:)``).
/// - **Aligned.** Rubber Band runs offline, with the segment's exact input length announced and a
///   study pass first, so its output starts exactly where its input does (no lost latency).
public final class TimelineRenderer {
    public let format: AudioFormat
    public let settings: TimePitchSettings
    /// Frames per read and process call.
    public var blockSize = 4096
    /// The length of a join's crossfade, in frames (2.5 ms), inside the later segment: short, so
    /// that an attack on its first frame keeps its place (within a millisecond).
    public var crossfadeWidth: Int
    /// Whether R2's input gets -120 dBFS dither (see `stretch`). Sources of 16 bits or fewer
    /// already carry far more quantisation noise than that, so callers turn it off for them.
    public var ditherTimeDomainInput = true
    /// Extra input read before and after a stretched segment, beyond the crossfade, so the
    /// stretcher has settled by the time its audio is heard (see `context`): padding, never
    /// the neighbours' source.
    public var contextFrames = 2048

    public init(format: AudioFormat, settings: TimePitchSettings) {
        self.format = format
        self.settings = settings
        self.crossfadeWidth = max(1, format.sampleRate / 400)
    }
    /// Whether stretched segments are split at sharp onsets (see ``splitAtOnsets``).
    public var splitsAtOnsets = true
    /// Whether neighbouring stretched segments over contiguous source (a speed ramp's steps)
    /// are stretched in one Rubber Band run with a key-frame map (see ``joinedSteps(_:)``).
    public var joinsSteps = true
    /// Told, once per render that met any, how many NaN or infinite source samples were
    /// replaced with silence ("3 non-finite samples (NaN or infinity) replaced with silence").
    public var onWarning: ((String) -> Void)?
    /// The NaN and infinite samples found in the source so far (see ``NonFiniteSamples``).
    var nonFinite = NonFiniteSamples()

    /// Renders `segments` (a composition track's, tiling its timeline from 0) reading `source`,
    /// and returns the number of frames written to `sink`. `progress` receives the fraction done.
    /// With `range`, only output frames `range` are rendered and written (frames before 0 or
    /// past the timeline's end are silence): each segment is still rendered with the context
    /// it has in the whole render, so the frames are those of the whole render, but only the segments that reach
    /// into the range cost any work.
    @discardableResult
    public func render(_ segments: [CompositionTrackSegment], from source: AudioSource, sourceOrigin: Int64 = 0,
                       range: Range<Int64>? = nil, to sink: AudioSink, progress: ((Double) throws -> Void)? = nil) throws -> Int64 {
        guard source.format == format else {
            throw TimePitchError.unsupportedFormat("the source is \(source.format.sampleRate) Hz × \(source.format.channels) but the renderer expects \(format.sampleRate) Hz × \(format.channels)")
        }
        var laidOut = try joinedSteps(plan(segments, sourceOrigin: sourceOrigin))
        if let range {
            laidOut = laidOut.filter { $0.fadeOutEnd > range.lowerBound && $0.fadeInStart < range.upperBound }
        }
        let start = range?.lowerBound ?? 0
        guard let total = range?.upperBound ?? laidOut.last?.outEnd, total > start else { return 0 }
        var mixer = Mixer(channels: format.channels, start: start)
        // Each segment is split at its onsets just before it is rendered, so that the onsets
        // are found in the audio as the render reads it: a file read after a seek can place
        // audio up to a timestamp tick away (Matroska's millisecond) from where reading on
        // puts it, and an onset found that way let the start of an attack into the piece
        // before it, heard 12 ms early at half speed.
        for segment in laidOut {
            // A reversed segment reads its mirrored frames through the source read backwards.
            let reading: AudioSource = segment.reversed ? ReversedAudioSource(source) : source
            // A segment that begins with an attack enters its join at full level (see
            // ``beginsWithAttack(_:source:)``); the one before still fades out past its end.
            var segment = segment
            if segment.fadeIn > 0, try beginsWithAttack(segment, source: reading) { segment.fadeIn = 0 }
            for plan in try splitAtOnsets([segment], source: reading) {
                let emit: (_ block: [[Float]], _ count: Int, _ position: Int64) throws -> Void = { block, count, position in
                    mixer.add(block, count: count, at: position, plan: plan)
                    // Everything before this segment's closing fade is final once written.
                    try mixer.flush(upTo: min(position + Int64(count), plan.fadeOutStart, total), into: sink)
                    try progress?(Double(mixer.flushed - start) / Double(total - start))
                }
                switch plan.kind {
                case .gap: break
                case .copy: try copy(plan, from: reading, within: range, emit: emit)
                case .stretch: try stretch(plan, from: reading, within: range, emit: emit)
                case .resample: try resample(plan, from: reading, within: range, emit: emit)
                }
                try mixer.flush(upTo: min(plan.fadeOutStart, total), into: sink)
            }
        }
        try mixer.flush(upTo: total, into: sink)
        if let count = nonFinite.takeNewCount() {
            onWarning?("\(count) non-finite sample\(count == 1 ? "" : "s") (NaN or infinity) replaced with silence")
        }
        try progress?(1)
        return mixer.flushed - start
    }
}
