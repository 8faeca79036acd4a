import TimePitch
import Media

/// Which of an audio track's own packets an export keeps, and which stretches of the timeline
/// it renders and encodes between them (smart audio).
///
/// A source packet is copied when everything it decodes to, and a guard of whole frames on both
/// sides, lies where the timeline plays the source unchanged (an ``UntouchedSpan``): there the
/// packet decodes to the same samples, its overlap with its neighbours included. Between runs of
/// copied packets the timeline is rendered and encoded afresh, starting and ending on the copied
/// packets' frame boundaries, so that a decoder's overlap-add across a seam sees one signal.
///
/// Frames of a codec like AAC (1024 samples) cannot be cut: two runs whose frame grids disagree
/// cannot both land exactly where the timeline puts them with whole frames in between. So only
/// the runs on one grid (the one that copies the most) are copied, and the others are rendered,
/// and the audio stays exactly in place. In mp4 and mov the first encoded span starts before 0
/// on that grid (the edit list hides it); Matroska cannot start a track before 0, so its first
/// span starts at 0 and a bridge (``BridgeFeed``: surplus samples the decoder drops, from
/// DiscardPadding) in its second frame moves it onto the grid. Bridges between runs of two
/// grids, which would copy every run, were tried and left a click on some edits (107x the median
/// high-frequency energy after a 2x section on a tone): not used. PCM has no frames: every run
/// is copied.
struct AudioSplicePlan: Equatable {
    enum Piece: Equatable {
        /// Source packets `packets` (indices into the scanned packet list), each moved by
        /// `offset` samples, covering output samples `output`.
        case copy(packets: Range<Int>, offset: Int64, output: Range<Int64>)
        /// Output samples `output` rendered and encoded: whole frames, but for the last span.
        /// With a `bridge`, the frames hold `surplus` samples more than the span, inserted at
        /// output sample `at` of the span (a frame boundary less the surplus) and discarded by
        /// the decoder (Matroska's DiscardPadding; see ``BridgeFeed``).
        case encode(output: Range<Int64>, bridge: Bridge?)
    }

    struct Bridge: Equatable {
        let surplus: Int
        let at: Int64
    }

    /// A source packet, in samples of the stream (see ``Media/AudioSourcePacket``).
    typealias Packet = AudioSourcePacket

    let pieces: [Piece]
    /// Samples the timeline leaves unchanged that are encoded anyway, because their packets
    /// are off the frame grid of the copied ones.
    let offGrid: Int64

    /// Whether any source packet is copied.
    var copiesAnything: Bool { pieces.contains { if case .copy = $0 { true } else { false } } }

    /// Plans a timeline of `total` output samples whose unchanged stretches are `spans`, from
    /// the source's `packets`. `frame` is the codec's frame length (1 for PCM, whose packets can
    /// be cut anywhere); `guardFrames` whole frames on each side of a seam must decode
    /// unchanged audio; runs shorter than `shortestRun` packets are not worth a seam.
    /// `canDiscard`: the container can drop samples inside the track (Matroska), so the first
    /// encoded span starts at 0 and a bridge puts the copied runs' grid after it.
    /// `encoderDelay`: the encoder's own delay (AAC 1024, Opus's pre-skip 312), whose packets
    /// at the timeline's start begin that much before 0.
    /// `sharedAbove`: encoded stretches longer than twice this are cut where unchanged audio
    /// begins and ends inside them (on their frame grid, just inside it), into pieces of at
    /// least this long, so that workers encode them side by side without rendering any stretched
    /// audio twice; nil keeps every stretch whole.
    init(spans: [UntouchedSpan], packets: [Packet], total: Int64, frame: Int, guardFrames: Int, canDiscard: Bool = false,
         encoderDelay: Int64 = 0, shortestRun: Int = 8, sharedAbove: Int64? = nil) {
        let f = Int64(frame)
        let margin = Int64(guardFrames) * f
        // 1. Runs of consecutive, regular packets wholly inside a span (with the margin).
        var runs: [(packets: Range<Int>, offset: Int64)] = []
        var i = 0
        for span in spans {
            let lower = span.output.lowerBound + margin, upper = min(span.output.upperBound - margin, total)
            while i < packets.count && packets[i].start + span.offset < lower { i += 1 }
            var first: Int?
            func close(_ end: Int) {
                if let start = first, end - start >= shortestRun { runs.append((start..<end, span.offset)) }
                first = nil
            }
            while i < packets.count && packets[i].start + packets[i].count + span.offset <= upper {
                let p = packets[i]
                // A packet whose length is not a frame, or that does not follow the one before
                // (where the source's own clock jumps: recordings joined, a looped copy), inside a
                // run continues it: copied at its own time with its own length, it plays as it
                // does in the source, and the run's frame grid moves with it. A run starts with
                // a whole frame.
                if p.unusable { close(i) } else if first == nil { if frame == 1 || p.count == f { first = i } }
                i += 1
            }
            close(i)
        }
        // 2. Frame grids: the runs that copy the most such that the encoded stretch between two
        // copied runs is whole frames (the later run starts on the grid the earlier one ends on).
        var dropped: Int64 = 0
        if frame > 1 {
            let chosen = Self.chain(runs.map { run in
                let last = packets[run.packets.upperBound - 1]
                return (Self.phase(packets[run.packets.lowerBound].start + run.offset, f), Self.phase(last.start + last.count + run.offset, f), run.packets.count)
            })
            dropped = Int64(runs.map(\.packets.count).reduce(0, +) - chosen.map { runs[$0].packets.count }.reduce(0, +)) * f
            runs = chosen.map { runs[$0] }
        }
        offGrid = dropped
        // 3. Pieces: the runs, and encoded spans between them.
        var pieces: [Piece] = []
        var position: Int64 = 0
        if let first = runs.first, frame > 1, !canDiscard {
            // The first encoded span starts on the grid, at or before 0: the container's
            // edit list hides what comes before 0.
            let phase = Self.phase(packets[first.packets.lowerBound].start + first.offset, f)
            position = phase == 0 ? 0 : phase - f
        }
        func start(_ run: Range<Int>, _ offset: Int64) -> Int64 { packets[run.lowerBound].start + offset }
        for run in runs {
            let copied = run.packets
            if start(copied, run.offset) > position {
                let n = start(copied, run.offset) - position
                var bridge: Bridge?
                if frame > 1 && position == 0 && canDiscard {
                    // The first encoded packets start the encoder's delay before 0. A first run
                    // off their grid gets a bridge in the second frame: audio no edit touched.
                    let misfit = Self.phase(n + encoderDelay, f)
                    if misfit != 0 {
                        let surplus = f - misfit
                        // Not in the stream's first packet: a packet's discard marks replace
                        // the decoder's own skip at the start (Opus's pre-skip) with theirs.
                        var end = 2 * f - Self.phase(encoderDelay, f)
                        while end - surplus < f { end += f }
                        bridge = Bridge(surplus: Int(surplus), at: end - surplus)
                    }
                }
                pieces.append(.encode(output: position..<(position + n), bridge: bridge))
            }
            let end = packets[copied.upperBound - 1].start + packets[copied.upperBound - 1].count + run.offset
            pieces.append(.copy(packets: copied, offset: run.offset, output: start(copied, run.offset)..<end))
            position = end
        }
        if total > position { pieces.append(.encode(output: position..<total, bridge: nil)) }
        self.pieces = sharedAbove.map { Self.shared(pieces, spans: spans, frame: f, shortest: $0) } ?? pieces
    }

    /// `pieces` with each long encoded stretch without a bridge cut where an unchanged span
    /// starts or ends inside it, on the stretch's frame grid, where both sides are at least
    /// `shortest` long. A cut sits far enough inside the span that neither side renders the
    /// stretched audio beyond it: ten frames after its start (a piece after a cut renders an
    /// eight-frame lead-in, see ``SpanEncoder``, and a join's crossfade reaches 5 ms), three
    /// before its end (a piece renders a two-frame tail).
    static func shared(_ pieces: [Piece], spans: [UntouchedSpan], frame f: Int64, shortest: Int64) -> [Piece] {
        pieces.flatMap { piece -> [Piece] in
            guard case .encode(let output, nil) = piece, output.count >= 2 * shortest else { return [piece] }
            let grid = { (x: Int64) in output.lowerBound + (x - output.lowerBound) / f * f }
            var cuts: [Int64] = []
            for span in spans where span.output.overlaps(output) {
                for edge in [span.output.lowerBound + 11 * f - 1, span.output.upperBound - 3 * f] {
                    let cut = grid(edge)
                    if span.output.contains(cut), cut - (cuts.last ?? output.lowerBound) >= shortest, output.upperBound - cut >= shortest {
                        cuts.append(cut)
                    }
                }
            }
            let bounds = [output.lowerBound] + cuts + [output.upperBound]
            return zip(bounds, bounds.dropFirst()).map { .encode(output: $0..<$1, bridge: nil) }
        }
    }

    /// The runs (each its grid phase at its start and end, and its packets) that copy the most
    /// packets, in order, such that each starts on the grid the one before it ends on; the first
    /// may start anywhere (the first encoded stretch begins before it on its grid).
    static func chain(_ runs: [(start: Int64, end: Int64, packets: Int)]) -> [Int] {
        var best: [(total: Int, previous: Int?)] = []
        var byEnd: [Int64: Int] = [:]  // the run with the best total ending on each phase
        for (i, run) in runs.enumerated() {
            let before = byEnd[run.start]
            best.append((run.packets + (before.map { best[$0].total } ?? 0), before))
            if byEnd[run.end].map({ best[$0].total < best[i].total }) ?? true { byEnd[run.end] = i }
        }
        guard var i = best.indices.max(by: { best[$0].total < best[$1].total }) else { return [] }
        var chosen = [i]
        while let previous = best[i].previous {
            chosen.append(previous)
            i = previous
        }
        return chosen.reversed()
    }

    /// `x` modulo `f`, in `0..<f`.
    static func phase(_ x: Int64, _ f: Int64) -> Int64 { ((x % f) + f) % f }
}
