import Composition
internal import CFFmpeg

/// What ``Prober``'s packet scan learns of one stream: how many packets, the span of their
/// presentation times, and for video each picture's time and size, for audio its format changes
/// and the samples its first and last packets drop. ``describe(video:stream:)`` and
/// ``describe(audio:stream:)`` turn it into the stream's frame count, rate mode and exact length.
struct StreamTally {
    var count = 0
    var first: Int64?
    var end: Int64?
    var presentationTimes: [Int64] = []
    /// Audio: the first packet's samples dropped at its start, and the last packet's time, the
    /// samples it decodes to and those dropped at its end (gapless MP3, Ogg Opus).
    var skipped: Int64 = 0
    var last: (pts: Int64, samples: Int64?, discarded: Int64)?
    /// Audio: its frames' formats; video: its pictures' sizes.
    var formats: AudioFormatScan?
    var sizes: PictureSizeScan?

    /// Counts packet `p`, presented at `pts`.
    mutating func add(_ p: AVPacket, at pts: Int64) { add(at: pts, duration: p.duration) }

    /// Counts a packet presented at `pts` for `duration`.
    mutating func add(at pts: Int64, duration: Int64) {
        count += 1
        first = min(first ?? pts, pts)
        end = max(end ?? Int64.min, pts + max(duration, 0))
    }

    mutating func add(video p: AVPacket, at pts: Int64) {
        add(videoAt: pts, duration: p.duration)
        sizes?.add(p)
    }

    mutating func add(videoAt pts: Int64, duration: Int64) {
        add(at: pts, duration: duration)
        presentationTimes.append(pts)
    }

    /// Counts audio packet `p` of a stream with `parameters`, noting the samples it drops.
    mutating func add(audio p: AVPacket, at pts: Int64, parameters: AVCodecParameters) {
        formats?.add(p)
        let opus = parameters.codec_id == AV_CODEC_ID_OPUS
        let samples = { opus ? p.data.flatMap { OpusPacket.samples(UnsafeBufferPointer(start: $0, count: Int(p.size))) }.map(Int64.init) : nil }
        add(audioAt: pts, duration: p.duration, trim: Prober.trimmedSamples(p), parameters: parameters, samples: samples)
    }

    /// Counts an audio packet presented at `pts` for `duration` that drops `trim` samples, of a
    /// stream with `parameters`; `samples` says its length where its codec states it per packet.
    mutating func add(audioAt pts: Int64, duration: Int64, trim: (start: Int64, end: Int64), parameters: AVCodecParameters,
                              samples: () -> Int64?) {
        if first.map({ pts < $0 }) ?? true { skipped = trim.start }
        if last.map({ pts >= $0.pts }) ?? true {
            let samples = parameters.codec_id == AV_CODEC_ID_OPUS ? samples() : parameters.frame_size > 0 ? Int64(parameters.frame_size) : nil
            last = (pts, samples, trim.end)
        }
        add(at: pts, duration: duration)
    }

    /// Counts every packet of `stream`, from an index (``IndexedPackets``), as the packet scan
    /// counts them: video an edit list hides is never shown.
    mutating func add(_ stream: IndexedPackets.Stream, kind: StreamInfo.Kind, parameters: AVCodecParameters) {
        if kind == .video { presentationTimes.reserveCapacity(stream.pts.count) }
        for i in stream.pts.indices {
            let (pts, duration) = (stream.pts[i], stream.durations[i])
            switch kind {
            case .video: if !stream.discarded[i] { add(videoAt: pts, duration: duration) }
            case .audio:
                let read = stream.read[i]
                add(audioAt: pts, duration: duration, trim: (read?.start ?? 0, read?.end ?? 0), parameters: parameters, samples: { read?.samples })
            default: add(at: pts, duration: duration)
            }
        }
    }

    /// The video stream's frame count, picture sizes, rate mode and length.
    func describe(video info: inout StreamInfo, stream: UnsafeMutablePointer<AVStream>) {
        guard let first, let end else { return }
        info.frameCount = count
        info.sizeChanges = sizes?.changes
        let times = presentationTimes.sorted()
        let steps = zip(times.dropFirst(), times).map { $0 - $1 }
        if let shortest = steps.min(), let longest = steps.max() {
            info.frameRateMode = longest - shortest <= 1 ? .constant : .variable
        }
        // A last packet without a duration ends where it starts; the stream's stated end
        // (variable-rate files) or the frame interval before it then says how long it is shown,
        // so the movie's video ends where its last frame ends.
        var videoEnd = end
        if let last = times.last, end <= last {
            videoEnd = last + (steps.last ?? 0)
        }
        let st = stream.pointee
        if st.duration != sp_av_nopts_value() && st.duration > 0 && st.start_time != sp_av_nopts_value() {
            videoEnd = max(videoEnd, st.start_time + st.duration)
        }
        info.presentationDuration = Prober.time(videoEnd - first, st.time_base)
    }

    /// The audio stream's frame count, format changes and length.
    func describe(audio info: inout StreamInfo, stream: UnsafeMutablePointer<AVStream>) {
        guard let first, let end else { return }
        let timeBase = stream.pointee.time_base
        // The container's stated duration excludes encoder priming that an edit list hides;
        // fall back to the packet span when there is none.
        info.frameCount = count
        info.formatChanges = formats?.changes
        if let first = formats?.changes?.first {
            // The header states whichever format libavformat decoded while probing.
            info.sampleRate = first.sampleRate
            info.channels = first.channels
            info.channelLayout = first.channelLayout
        }
        info.presentationDuration = info.duration ?? Prober.time(end - max(first, 0), timeBase)
        // A stream whose last packet drops its end (the encoder's padding) lasts from its first
        // kept sample to its last, which its stated duration overstates (MP3 with a LAME
        // header: 8.046 s for 8 s of sound; Ogg Opus: its pre-skip).
        let rate = Int64(stream.pointee.codecpar.pointee.sample_rate)
        if let last, last.discarded > 0, let samples = last.samples, rate > 0 {
            let toTicks = { (n: Int64) in av_rescale_q(n, AVRational(num: 1, den: Int32(rate)), timeBase) }
            let kept = last.pts + toTicks(samples - last.discarded) - (first + toTicks(skipped))
            if kept > 0 { info.presentationDuration = Prober.time(kept, timeBase) }
        }
    }
}
