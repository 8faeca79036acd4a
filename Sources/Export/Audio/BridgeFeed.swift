import Foundation

/// Feeds a rendered stretch to an encoder with surplus samples inserted before rendered sample
/// `at`: samples that the container tells the decoder to drop (see ``AudioSplicePlan``). They
/// are never heard, but the encoder's quantisation noise spreads over every frame that sees
/// them, so they must look like the audio around them: a crossfade from the audio after the
/// insertion point (continuing what came before) to the audio before it (leading into what
/// follows). How far apart those two are is free up to whole frames: `surplus`, or that plus one
/// to seven frames (dropped whole), whichever makes the two most alike, so that a steady tone
/// crossfades with itself in phase instead of beating against a shifted copy.
final class BridgeFeed {
    let at: Int64
    let surplus: Int
    let frame: Int
    /// The samples inserted, once chosen: `surplus` plus whole frames.
    private(set) var inserted: Int?
    private let longest: Int
    private var position: Int64 = 0
    private var before: [[Float]]
    private var after: [[Float]]

    init(at: Int64, surplus: Int, frame: Int, channels: Int) {
        self.at = at
        self.surplus = surplus
        self.frame = frame
        longest = surplus > 0 ? surplus + 7 * frame : 0
        before = [[Float]](repeating: [], count: channels)
        after = before
        if surplus == 0 { inserted = 0 }
    }

    /// Rendered samples the feed needs past `at` before it can insert the bridge.
    var lookahead: Int { longest }

    /// Passes `count` frames of `samples` on to `write`, inserting the bridge where it belongs.
    func add(_ samples: [[Float]], count: Int, write: ([[Float]], Int) throws -> Void) throws {
        defer { position += Int64(count) }
        let s = Int64(longest)
        guard s > 0, position + Int64(count) > at - s, position < at + s else {
            try write(samples, count)
            return
        }
        var offset = 0
        while offset < count {
            let p = position + Int64(offset)
            let n: Int
            func slice(_ n: Int) -> [[Float]] { samples.map { Array($0[offset..<(offset + n)]) } }
            if p < at - s {
                n = Int(min(Int64(count - offset), at - s - p))
                try write(slice(n), n)
            } else if p < at {
                n = Int(min(Int64(count - offset), at - p))
                let part = slice(n)
                for c in before.indices { before[c] += part[c] }
                try write(part, n)
            } else if p < at + s {
                n = Int(min(Int64(count - offset), at + s - p))
                let part = slice(n)
                for c in after.indices { after[c] += part[c] }
                if after[0].count == longest {
                    let d = choose()
                    inserted = d
                    try write(bridge(d), d)
                    try write(after, longest)
                }
            } else {
                n = count - offset
                try write(slice(n), n)
            }
            offset += n
        }
    }

    /// `before`'s sample `k` places before the insertion point (silence before the stretch).
    private func earlier(_ c: Int, _ k: Int) -> Float {
        let i = before[c].count - k
        return i >= 0 ? before[c][i] : 0
    }

    /// The insertion length whose two ends are most alike.
    private func choose() -> Int {
        var best = (score: -Double.infinity, length: surplus)
        for extra in 0..<8 {
            let d = surplus + extra * frame
            var dot = 0.0, a2 = 0.0, b2 = 0.0
            for c in after.indices {
                for k in 0..<d {
                    let a = Double(after[c][k]), b = Double(earlier(c, d - k))
                    dot += a * b; a2 += a * a; b2 += b * b
                }
            }
            // Silence matches anything: then the shortest.
            let score = a2 * b2 > 1e-12 ? dot / sqrt(a2 * b2) - 0.002 * Double(extra) : 1 - 0.002 * Double(extra)
            if score > best.score { best = (score, d) }
        }
        return best.length
    }

    /// `d` samples: a raised-cosine crossfade from the audio after the insertion point to the
    /// `d` samples before it.
    private func bridge(_ d: Int) -> [[Float]] {
        after.indices.map { c in
            (0..<d).map { k in
                let w = Float(0.5 - 0.5 * cos(Double.pi * (Double(k) + 0.5) / Double(d)))
                return (1 - w) * after[c][k] + w * earlier(c, d - k)
            }
        }
    }
}
