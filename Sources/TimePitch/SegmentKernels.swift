import Composition
import Foundation

/// How ``TimelineRenderer`` makes each kind of segment: copied, stretched by Rubber Band or
/// resampled, each read with context on both sides (its own source, padded) and trimmed to the
/// segment and its fades,
/// and, when the render writes only some output frames (`window`), to those.
extension TimelineRenderer {
    func copy(_ plan: Plan, from source: AudioSource, within window: Range<Int64>?, emit: (_ block: [[Float]], _ count: Int, _ position: Int64) throws -> Void) throws {
        var buffer = [[Float]](repeating: [Float](repeating: 0, count: blockSize), count: format.channels)
        // Only the part inside the window, when the render has one.
        var position = max(plan.fadeInStart, window?.lowerBound ?? .min)
        let end = min(plan.fadeOutEnd, window?.upperBound ?? .max)
        let offset = plan.sourceStart - plan.outStart
        let tail = try backgroundTail(plan, reading: (position + offset)..<(end + offset), source: source)
        while position < end {
            let count = Int(min(Int64(blockSize), end - position))
            try read(plan, from: source, at: position + offset, count: count, tail: tail, into: &buffer)
            try emit(buffer, count, position)
            position += Int64(count)
        }
    }

    /// The source frames a stretched or resampled segment reads, with context on both sides,
    /// and the output position of the first frame it produces. The context covers the closing
    /// fade plus the engine's warm-up: at least ``contextFrames`` of input, and of output up to
    /// 8 times that when slowing down (R2 needs about 4096 output frames to settle at 4x slow).
    /// What lies outside the segment's own source is padding (see ``read``).
    func context(_ plan: Plan, ratio: Double) -> (first: Int64, count: Int, outputOrigin: Int64) {
        let warmUp = Double(contextFrames) * min(1, 4 / ratio)
        let before = warmUpBefore(plan, wanted: Int64(warmUp.rounded(.up)))
        let after = Int64(((plan.endsAtOnset ? 0 : Double(plan.fadeOut)) / ratio + warmUp).rounded(.up))
        let first = plan.sourceStart - before
        let origin = plan.outStart - Int64((Double(before) * ratio).rounded())
        return (first, Int(plan.sourceCount + before + after), origin)
    }

    /// How many frames before `plan` its engine reads to warm up: `wanted`, where that lies
    /// before the segment's own source its own start looped backwards (a head, see
    /// ``BackgroundTail/looped``), then silence; but R2 reads no more of that than the head. Fed
    /// digital silence (dithered) ahead of a tone that starts at once, R2 took its bins' phases
    /// from the silence and played the whole stretch 15 dB quiet (a 440 Hz tone stretched from
    /// its first sample). R3 needs silence to warm up (without it, a beep at the first sample was
    /// lost). Nothing before the segment's start is heard: its opening fade lies inside it.
    func warmUpBefore(_ plan: Plan, wanted: Int64) -> Int64 {
        let head = Int64(headHold + BackgroundTail.fade * max(1, format.sampleRate / 1000))
        return settings.algorithm == .timeDomain ? min(wanted, max(0, plan.sourceStart - plan.own.lowerBound) + head) : wanted
    }

    /// What a stretched piece reads and how its run is laid out: its source frames with context,
    /// the output position of the first, the overall time ratio and the key-frame map (empty
    /// for one ratio throughout). Marks `plan` to read silence before its attack where R3
    /// starts it out of silence.
    func stretchContext(_ plan: inout Plan, source: AudioSource) throws -> (first: Int64, count: Int, outputOrigin: Int64, ratio: Double, map: [(input: Int, output: Int)]) {
        let ratio = Double(plan.outCount) / Double(plan.sourceCount)
        let (first, count, origin) = context(plan, ratio: ratio)
        if !plan.keyFrames.isEmpty {
            // A ramp's steps in one run: the key-frame map places each step (see StepJoining).
            return steppedContext(plan)
        }
        guard plan.startsAtOnset && settings.algorithm == .spectral else { return (first, count, origin, ratio, []) }
        if try !isQuiet(before: plan.sourceStart, within: plan.own, source: source) { return onsetContext(plan, ratio: ratio) }
        // Out of silence, R3 is given digital silence before the attack: fed the few quiet
        // milliseconds of a coded beep's pre-echo, it started the beep slowed 4x on time but
        // rose slowly, to the oracle's level (0.05 of 0.8) 3.96 ms late (at 1/3 0.23 ms); given
        // silence, 0.15 ms. None of that is heard: the piece starts at the attack, and the
        // piece before plays up to it.
        plan.silentUntil = plan.sourceStart
        return (first, count, origin, ratio, [])
    }

    func stretch(_ plan: Plan, from source: AudioSource, within window: Range<Int64>?, emit: (_ block: [[Float]], _ count: Int, _ position: Int64) throws -> Void) throws {
        var plan = plan
        let (first, count, origin, ratio, map) = try stretchContext(&plan, source: source)
        let sectionRatios = zip(map, map.dropFirst()).map { Double($1.output - $0.output) / Double(max(1, $1.input - $0.input)) }
        let stretcher = try Stretcher(sampleRate: format.sampleRate, channels: format.channels, algorithm: settings.algorithm,
                                      mode: .offline, timeRatio: ratio, pitchScale: settings.pitchScale, sectionRatios: sectionRatios)
        stretcher.setExpectedInputDuration(count)
        stretcher.setMaxProcessSize(blockSize)
        if !map.isEmpty { stretcher.setKeyFrameMap(map) }
        var input = [[Float]](repeating: [Float](repeating: 0, count: blockSize), count: format.channels)
        var output = input
        // R2's transient detector mistakes the rounding noise of mathematically clean signals
        // (synthesised tones, digital silence) for hard peaks and drifts the pitch by ~2%.
        // Dither at -120 dBFS, far below any real recording's noise floor, prevents that. The
        // same seed on both passes keeps study and process input identical.
        let dithered = settings.algorithm == .timeDomain && ditherTimeDomainInput
        var dither = Dither()
        // R2 computes its stretch profile from a study pass over the same input. R3 does not use
        // one: its output is bit-identical without it, so the input is read only once.
        let tail = try backgroundTail(plan, reading: first..<(first + Int64(count)), source: source)
        if settings.algorithm == .timeDomain {
            try study(plan, from: source, first: first, count: count, dithered: dithered, tail: tail, stretcher: stretcher)
        }
        // Rubber Band drops output that overflows its buffer within one process call (4096
        // frames in at time ratio 32 lost half the output), so each call gets only as much input
        // as makes about one block of output, and the output is drained after every call.
        // R2 runs a worker thread per channel, fed by this one: 1024 frames per call (as the
        // rubberband CLI feeds it) keep the workers busy, where 4096 left them waiting (1.5-1.7
        // cores in use instead of 1.7-1.75, measured). R3 works on this thread, where larger
        // calls cost less per frame. The output is the same either way.
        let feed = settings.algorithm == .timeDomain ? min(1024, blockSize) : blockSize
        // With a key-frame map (a ramp), the slowest step sets the size: R3 follows the map once
        // per call, and calls of about one block of output follow it closely (measured: no
        // level change at the steps' boundaries; much smaller calls left a dip near the end).
        let slowest = sectionRatios.max() ?? ratio
        let chunk = max(16, min(feed, Int(Double(blockSize) / max(1, slowest))))
        let wantedEnd = min(plan.fadeOutEnd, window?.upperBound ?? .max)
        var produced: Int64 = 0
        func drain() throws -> Bool {
            while true {
                let available = stretcher.available
                if available < 0 { return true }
                if available == 0 { return false }
                let got = stretcher.retrieve(into: &output, count: min(available, blockSize))
                try deliver(output, count: got, at: origin + produced, plan: plan, emit: emit)
                produced += Int64(got)
            }
        }
        var offset = 0
        while offset < count {
            let n = min(chunk, count - offset)
            try read(plan, from: source, at: first + Int64(offset), count: n, tail: tail, into: &input)
            if dithered { dither.add(to: &input, count: n) }
            stretcher.process(input, count: n, final: offset + n == count)
            offset += n
            _ = try drain()
            if origin + produced >= wantedEnd { return }
        }
        // Rubber Band can hold back output after the final block; keep asking until it says done.
        // Ten seconds without a single new frame means the engine is stuck: that is an error,
        // never a silently short output.
        var idle = 0, before = produced
        while !(try drain()) && origin + produced < wantedEnd {
            if produced != before { idle = 0; before = produced }
            idle += 1
            if idle > 100_000 {
                throw TimePitchError.engine("Rubber Band stopped producing audio \(origin + produced - plan.outStart) frames into a segment of \(plan.outCount); the output would be short")
            }
            usleep(100)
        }
    }

    /// What a piece reads outside its own source: before it, its own first frames looped
    /// backwards; past its segment's own end, its last frames looped (see ``BackgroundTail/looped``);
    /// past the onset that ends a piece, the audio before it predicted on, or silence when nothing
    /// plays before it. Each only when `reading` reaches there.
    func backgroundTail(_ plan: Plan, reading: Range<Int64>, source: AudioSource) throws -> Padding {
        var padding = Padding()
        let own = plan.own
        guard !own.isEmpty else { return padding }
        if reading.lowerBound < own.lowerBound {
            // Never from the segment's first attack on (``Plan/headEnd``).
            let ceiling = min(own.upperBound, max(own.lowerBound, plan.headEnd ?? own.upperBound))
            let loop = try BackgroundTail.looped(at: own.lowerBound, source: source, within: own.lowerBound..<ceiling, backwards: true, hold: headHold)
            padding.head = loop.joined(to: try BackgroundTail(before: own.lowerBound, source: source, ceiling: ceiling), width: edgeBlend)
        }
        let start = plan.tailStart
        guard reading.upperBound > start else { return padding }
        if plan.silentFrom == nil {
            let loop = try BackgroundTail.looped(at: start, source: source, within: own, backwards: false, hold: headHold)
            padding.tail = loop.joined(to: try BackgroundTail(onset: start, source: source, floor: own.lowerBound), width: edgeBlend)
        } else if start > own.lowerBound, try !isQuiet(before: start, within: own, source: source) {
            padding.tail = try BackgroundTail(onset: start, source: source, floor: own.lowerBound)
        }
        return padding
    }

    /// The first frames past an edge, where a prediction continuous with it crossfades into the
    /// loop when the loop's first frame does not follow the edge's (2.5 ms: a copy's closing
    /// fade; see ``BackgroundTail/joined(to:width:)``).
    var edgeBlend: Int { max(1, format.sampleRate * 5 / 2000) }

    /// How long a head holds its level before fading: the whole warm-up.
    var headHold: Int { contextFrames }

    /// What a piece reads before and after its own source (see ``backgroundTail(_:reading:source:)``).
    struct Padding {
        var head: BackgroundTail?
        var tail: BackgroundTail?
    }

    /// R2's study pass: the same `count` frames from `first` (dithered alike) that the process
    /// pass then reads.
    private func study(_ plan: Plan, from source: AudioSource, first: Int64, count: Int, dithered: Bool,
                       tail: Padding?, stretcher: Stretcher) throws {
        var input = [[Float]](repeating: [Float](repeating: 0, count: blockSize), count: format.channels)
        var dither = Dither()
        var offset = 0
        while offset < count {
            let n = min(blockSize, count - offset)
            try read(plan, from: source, at: first + Int64(offset), count: n, tail: tail, into: &input)
            if dithered { dither.add(to: &input, count: n) }
            stretcher.study(input, count: n, final: offset + n == count)
            offset += n
        }
    }

    /// Reads source frames for `plan`, padded outside what it owns (`tail`, see
    /// ``backgroundTail(_:reading:source:)``): before its segment's own source and from
    /// ``Plan/tailStart`` on (the end of that source, or the onset that ends the piece), its own
    /// audio carried on, then silence. A neighbour's sound, or an onset, cannot leak into it.
    func read(_ plan: Plan, from source: AudioSource, at position: Int64, count: Int, tail: Padding?,
              into buffer: inout [[Float]]) throws {
        try readFinite(from: source, at: position, count: count, into: &buffer)
        if position < plan.own.lowerBound {
            if let head = tail?.head, head.start == plan.own.lowerBound {
                head.fill(&buffer, at: position, count: count)
            } else {
                let upTo = Int(min(Int64(count), plan.own.lowerBound - position))
                for c in buffer.indices { for i in 0..<upTo { buffer[c][i] = 0 } }
            }
        }
        if let quiet = plan.silentUntil, position < quiet {
            let upTo = Int(min(Int64(count), quiet - position))
            for c in buffer.indices { for i in 0..<upTo { buffer[c][i] = 0 } }
        }
        let silent = plan.tailStart
        guard position + Int64(count) > silent else { return }
        if let tail = tail?.tail, tail.start == silent {
            tail.fill(&buffer, at: position, count: count)
            return
        }
        let from = Int(max(0, silent - position))
        for c in buffer.indices { for i in from..<count { buffer[c][i] = 0 } }
    }

    func resample(_ plan: Plan, from source: AudioSource, within window: Range<Int64>?, emit: (_ block: [[Float]], _ count: Int, _ position: Int64) throws -> Void) throws {
        let ratio = Double(plan.outCount) / Double(plan.sourceCount)
        let (first, count, origin) = context(plan, ratio: ratio)
        let resampler = try Resampler(channels: format.channels, rate: plan.rate!, sampleRate: format.sampleRate)
        let tail = try backgroundTail(plan, reading: first..<(first + Int64(count)), source: source)
        var input = [[Float]](repeating: [Float](repeating: 0, count: blockSize), count: format.channels)
        var produced: Int64 = 0
        var offset = 0
        let wantedEnd = min(plan.fadeOutEnd, window?.upperBound ?? .max)
        while offset < count || offset == count {
            let n = min(blockSize, count - offset)
            if n > 0 { try read(plan, from: source, at: first + Int64(offset), count: n, tail: tail, into: &input) }
            let (output, got) = try resampler.convert(input, count: n, flush: n == 0)
            try deliver(output, count: got, at: origin + produced, plan: plan, emit: emit)
            produced += Int64(got)
            if n == 0 || origin + produced >= wantedEnd { break }
            offset += n
        }
    }

    /// Reads source frames with NaN and infinite samples replaced by silence (see
    /// ``NonFiniteSamples``): every kernel's input goes through here.
    func readFinite(from source: AudioSource, at position: Int64, count: Int, into buffer: inout [[Float]]) throws {
        if let reversed = source as? ReversedAudioSource {
            // Scrubbed where the samples are in the source, so each bad one is counted once.
            let first = ReversedAudioSource.sourceStart(ofMirrored: position, count: count)
            try reversed.base.read(at: first, count: count, into: &buffer)
            nonFinite.scrub(&buffer, count: count, at: first)
            ReversedAudioSource.reverse(&buffer, count: count)
            return
        }
        try source.read(at: position, count: count, into: &buffer)
        nonFinite.scrub(&buffer, count: count, at: position)
    }

    /// Passes on the part of a block of output that falls inside the segment and its fades.
    func deliver(_ block: [[Float]], count: Int, at position: Int64, plan: Plan,
                         emit: (_ block: [[Float]], _ count: Int, _ position: Int64) throws -> Void) throws {
        let lower = plan.fadeInStart, upper = plan.fadeOutEnd
        let from = max(position, lower), to = min(position + Int64(count), upper)
        guard to > from else { return }
        if from > position {
            // Before the segment's fade-in: only at its start, where the mixer may not have
            // flushed that far yet, so drop it explicitly.
            let skip = Int(from - position), n = Int(to - from)
            try emit(block.map { Array($0[skip..<(skip + n)]) }, n, from)
            return
        }
        // The mixer ignores frames before what it has flushed; trimming the tail is all that
        // is left, and that only at a segment's very end.
        if to == position + Int64(count) {
            try emit(block, count, position)
        } else {
            try emit(block, Int(to - position), position)
        }
    }
}

