import Composition
import Foundation
internal import CSDL2

/// What the strip shows: the timeline, the playhead and the marks.
struct StripState {
    var segments: [CompositionTrackSegment]
    var duration: Time
    var time: Time
    var markIn: Time?
    var markOut: Time?
}

extension TimelineStrip.Kind {
    /// Each kind's colour: slow blue, 1x grey, fast amber, reversed magenta, a hold cyan; a
    /// gap is the strip's dark background. Their lumas differ too (about 90, 140, 176, 124, 158).
    var colour: (r: UInt8, g: UInt8, b: UInt8) {
        switch self {
        case .slow: (40, 90, 220)
        case .normal: (140, 140, 140)
        case .fast: (240, 170, 40)
        case .reversed: (220, 60, 200)
        case .hold: (60, 200, 200)
        case .gap: (28, 28, 28)
        }
    }
}

/// The timeline strip, drawn at the bottom of the window from its ``TimelineStrip`` layout
/// (laid out again only when the timeline or the width changes).
extension VideoView {
    func drawStrip(_ state: StripState, outputWidth: Int32, outputHeight: Int32) {
        let r = renderer.pointer
        if stripLayout == nil || stripLayout?.width != outputWidth || stripLayout?.segments != state.segments
            || stripLayout?.strip.duration != state.duration {
            let strip = TimelineStrip(segments: state.segments, duration: state.duration, width: Int(outputWidth),
                                      height: Int(Self.stripHeight))
            stripLayout = (state.segments, outputWidth, strip)
        }
        guard let strip = stripLayout?.strip else { return }
        let top = outputHeight - Self.stripHeight
        func fill(_ rect: TimelineStrip.Rect) {
            var box = SDL_Rect(x: Int32(rect.x), y: top + Int32(rect.y), w: Int32(rect.width), h: Int32(rect.height))
            SDL_RenderFillRect(r, &box)
        }
        // The row of times: the timeline's start and end at the strip's ends.
        var row = SDL_Rect(x: 0, y: top - Self.labelHeight, w: outputWidth, h: Self.labelHeight)
        SDL_SetRenderDrawColor(r, 0, 0, 0, 200)
        SDL_RenderFillRect(r, &row)
        if let start = label(PlaybackSettings.clock(.zero)) {
            var at = SDL_Rect(x: 4, y: top - Self.labelHeight + (Self.labelHeight - start.height) / 2, w: start.width, h: start.height)
            SDL_RenderCopy(r, start.texture.pointer, nil, &at)
        }
        if let end = label(PlaybackSettings.clock(state.duration)) {
            var at = SDL_Rect(x: outputWidth - end.width - 4, y: top - Self.labelHeight + (Self.labelHeight - end.height) / 2,
                              w: end.width, h: end.height)
            SDL_RenderCopy(r, end.texture.pointer, nil, &at)
        }
        let background = TimelineStrip.Kind.gap.colour
        SDL_SetRenderDrawColor(r, background.r, background.g, background.b, 255)
        fill(TimelineStrip.Rect(x: 0, y: 0, width: Int(outputWidth), height: Int(Self.stripHeight)))
        for kind in TimelineStrip.Kind.allCases where kind != .gap {
            let c = kind.colour
            SDL_SetRenderDrawColor(r, c.r, c.g, c.b, 255)
            for piece in strip.pieces where piece.kind == kind { fill(piece.rect) }
        }
        SDL_SetRenderDrawColor(r, 20, 20, 20, 255)
        for arrow in strip.arrows { fill(arrow) }
        let marks = strip.marks(in: state.markIn, out: state.markOut)
        if let range = marks.range {
            SDL_SetRenderDrawColor(r, 255, 210, 0, 70)
            fill(range)
        }
        SDL_SetRenderDrawColor(r, 255, 210, 0, 255)
        for line in marks.lines { fill(line) }
        SDL_SetRenderDrawColor(r, 255, 255, 255, 255)
        fill(strip.playhead(at: state.time))
    }
}
