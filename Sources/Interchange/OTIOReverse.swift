public import Composition

extension OTIO {
    /// `track` played forwards, and the reversals that turn it into `track`: the items in an
    /// order slowpoke's forward replay can place (clips in source order, each forwards; a gap
    /// or a hold after the clip it follows in `track`), then the track ranges to reverse, in
    /// order. Any timeline that plays each part of the movie at most once, in any order and
    /// direction, is such a forward track and a few reversals (at most two per item: the
    /// reversal sort below, run backwards).
    ///
    ///     given     [0-2 @1][4→2 @1/2][4-6 @1]
    ///     forwards  [0-2 @1][2-4 @1/2][4-6 @1]     then reverse 2-6
    static func forwards(_ track: OTIOTimeline.Track) throws(OTIOError) -> (OTIOTimeline.Track, [TimeRange]) {
        let items = track.items
        guard items.contains(where: { isBackwards($0.item) }) else { return (track, []) }
        // Where each item goes forwards: clips by where their source starts, holds by their
        // frame (before a clip starting there: a hold stands where the forward timeline reaches
        // its frame), gaps after the item before them.
        var keys: [(time: Time, rank: Int, index: Int)] = []
        var last = (time: Time.zero, rank: 0)
        for (index, labeled) in items.enumerated() {
            switch labeled.item {
            case .clip(let source, _): last = (source.start, 1)
            case .hold(let frame, _): last = (frame, 0)
            case .gap: break
            }
            keys.append((last.time, last.rank, index))
        }
        let order = keys.indices.sorted { a, b in
            let (x, y) = (keys[a], keys[b])
            return x.time != y.time ? x.time < y.time : x.rank != y.rank ? x.rank < y.rank : x.index < y.index
        }
        let lengths = try items.map { labeled throws(OTIOError) in try length(of: labeled) }
        // Sort the given order into the forward one by reversals, noting each reversal's range.
        var arrangement = items.indices.map { ($0, isBackwards(items[$0].item)) }
        var reversals: [TimeRange] = []
        var start = Time.zero
        for position in arrangement.indices {
            let wanted = order[position]
            let found = arrangement[position...].firstIndex { $0.0 == wanted }!
            if found != position || arrangement[position].1 {
                var end = start
                for (index, _) in arrangement[position...found] { end = try sum(end, lengths[index], items[index]) }
                arrangement[position...found] = ArraySlice(arrangement[position...found].reversed().map { ($0.0, !$0.1) })
                do { reversals.append(try TimeRange(start: start, end: end)) } catch {
                    throw .unsupported("\(track.label): a reversed stretch cannot be placed: \(error.description)")
                }
                if arrangement[position].1 {
                    // Came round backwards: turn the item alone.
                    arrangement[position].1 = false
                    do { reversals.append(try TimeRange(start: start, duration: lengths[wanted])) } catch {
                        throw .unsupported("\(items[wanted].label) cannot be placed: \(error.description)")
                    }
                }
            }
            start = try sum(start, lengths[wanted], items[wanted])
        }
        let forward = order.map { index in
            var labeled = items[index]
            if case .clip(let source, let rate) = labeled.item, rate < .zero {
                labeled = .init(item: .clip(source: source, rate: rate.negated), label: labeled.label, media: labeled.media, reel: labeled.reel)
            }
            return labeled
        }
        // Reversals undo themselves: the forward track becomes the given one by the same
        // reversals, last first.
        return (OTIOTimeline.Track(mediaType: track.mediaType, name: track.name, items: forward), reversals.reversed())
    }

    private static func isBackwards(_ item: OTIOTimeline.Item) -> Bool {
        if case .clip(_, let rate) = item { rate < .zero } else { false }
    }

    private static func length(of labeled: OTIOTimeline.LabeledItem) throws(OTIOError) -> Time {
        do {
            switch labeled.item {
            case .gap(let duration), .hold(_, let duration): return duration
            case .clip(let source, let rate): return try source.duration.multiplied(by: (rate < .zero ? rate.negated : rate).reciprocal)
            }
        } catch { throw .unsupported("\(labeled.label): \(error.description)") }
    }

    private static func sum(_ a: Time, _ b: Time, _ labeled: OTIOTimeline.LabeledItem) throws(OTIOError) -> Time {
        do { return try a + b } catch { throw .unsupported("\(labeled.label): \(error.description)") }
    }
}
