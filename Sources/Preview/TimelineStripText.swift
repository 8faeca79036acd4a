public import Composition

extension TimelineStrip {
    /// The strip as a line of text, for `--no-video`: one character a column, the same layout
    /// at a height of 8 (a bar's height picks the block `▁` … `█`), `◀` for reversed media,
    /// `=` for a hold, `·` for a gap, `[` and `]` at the marks and `|` at the playhead, with the
    /// times at its ends: `0 ████▂▂▂◀◀=|=····████ 9.667 s`.
    public static func text(segments: [CompositionTrackSegment], duration: Time, columns: Int, time: Time,
                            markIn: Time? = nil, markOut: Time? = nil) -> String {
        let strip = TimelineStrip(segments: segments, duration: duration, width: columns, height: 8)
        let blocks = Array("▁▂▃▄▅▆▇█")
        var cells = Array(repeating: Character("·"), count: strip.width)
        for piece in strip.pieces {
            let cell: Character = switch piece.kind {
            case .gap: "·"
            case .hold: "="
            case .reversed: "◀"
            case .slow, .normal, .fast: blocks[min(7, max(0, piece.rect.height - 1))]
            }
            for x in piece.rect.x..<min(strip.width, piece.rect.x + piece.rect.width) { cells[x] = cell }
        }
        let column = { (t: Time) in min(strip.width - 1, strip.x(at: t)) }
        if let markIn { cells[column(markIn)] = "[" }
        if let markOut { cells[column(markOut)] = "]" }
        cells[column(time)] = "|"
        return "0 \(String(cells)) \(duration.shown) s"
    }
}
