import Foundation
import TestSupport

/// Random edit commands over a timeline of `length` seconds (the document's, read from `info
/// --json` after every edit), with times on frame boundaries of the source (`13/24`), off them
/// (`40/168`, a seventh of a frame) or in milliseconds (`1.237`), all inside the timeline.
struct OracleEdits {
    var g: SplitMix64
    let fps: Int

    init(seed: UInt64, fps: Int) {
        g = SplitMix64(state: seed ^ 0xED17_5EED)
        self.fps = fps
    }

    mutating func below(_ n: Int) -> Int { Int.random(in: 0..<n, using: &g) }
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

    /// A time within [low, high] (low < high), written as the command line takes it.
    mutating func time(from low: Double, to high: Double) -> (text: String, seconds: Double) {
        switch below(4) {
        case 3:
            // Just before or at a whole second, where a beep starts (until the edits move it):
            // a range that ends there puts the beep right after it.
            let before = pick([0, 5, 20, 40])
            let ms = (Int(low.rounded(.up))...max(Int(low.rounded(.up)), Int((high + 0.04).rounded(.down)))).map { $0 * 1000 - before }
                .filter { Double($0) / 1000 >= low && Double($0) / 1000 <= high }
            if !ms.isEmpty {
                let at = ms[below(ms.count)]
                return (String(format: "%d.%03d", at / 1000, at % 1000), Double(at) / 1000)
            }
            fallthrough
        case 0:
            let first = Int((low * Double(fps)).rounded(.up)), last = Int((high * Double(fps)).rounded(.down))
            if first <= last {
                let k = Int.random(in: first...last, using: &g)
                return ("\(k)/\(fps)", Double(k) / Double(fps))
            }
            fallthrough
        case 1:
            let d = fps * 7
            let first = Int((low * Double(d)).rounded(.up)), last = Int((high * Double(d)).rounded(.down))
            if first <= last {
                let k = Int.random(in: first...last, using: &g)
                return ("\(k)/\(d)", Double(k) / Double(d))
            }
            fallthrough
        default:
            let ms = Int.random(in: Int((low * 1000).rounded(.up))...max(Int((low * 1000).rounded(.up)), Int((high * 1000).rounded(.down))), using: &g)
            return (String(format: "%d.%03d", ms / 1000, ms % 1000), Double(ms) / 1000)
        }
    }

    /// A range inside [0, length] at least about a frame long and at most `longest` s.
    mutating func range(length: Double, longest: Double) -> String {
        let frame = 1.0 / Double(fps)
        let start = time(from: 0, to: max(0, length - 2 * frame))
        let end = time(from: start.seconds + frame, to: min(length, start.seconds + max(frame * 1.5, longest)))
        return "\(start.text)-\(end.text)"
    }

    /// The next edit's arguments (after the command name and the document), for a timeline of
    /// `length` seconds.
    mutating func next(length: Double) -> [String] {
        let frame = 1.0 / Double(fps)
        let kinds = ["scale", "scale", "ramp", "remove", "remove", "insert-gap", "freeze", "reverse", "undo", "redo"]
        var kind = pick(kinds)
        // Keep the timeline between about 1 and 7 s: short sources, quick exports.
        if kind == "remove" && length < 1.5 { kind = "scale" }
        switch kind {
        case "scale":
            let rates = length > 6 ? ["2", "3/2", "4/3"] : ["1/2", "2", "1/3", "3/2", "1/4", "2/3", "4/5"]
            return ["scale", "--range", range(length: length, longest: 1.0), "--rate", pick(rates)]
        case "ramp":
            let pairs = length > 6 ? [("1", "2"), ("2", "1")] : [("1", "1/4"), ("1/2", "1"), ("1", "2"), ("2", "1/2")]
            let (from, to) = pick(pairs)
            return ["ramp", "--range", range(length: length, longest: 1.2), "--from", from, "--to", to]
        case "remove":
            return ["remove", "--range", range(length: length, longest: min(0.8, length - 1))]
        case "insert-gap":
            let at = time(from: frame, to: length - frame)
            return ["insert-gap", "--at", at.text, "--duration", pick(["1/4", "\(Int.random(in: 1...6, using: &g))/\(fps)", "0.3"])]
        case "freeze":
            let at = time(from: frame, to: length - frame)
            return ["freeze", "--at", at.text, "--duration", pick(["1/3", "\(Int.random(in: 1...6, using: &g))/\(fps)", "0.25"])]
        case "reverse":
            return ["reverse", "--range", range(length: length, longest: 1.0)]
        default:
            return [kind]
        }
    }
}

/// How a case exports its timeline.
enum OracleMode: Equatable, CustomStringConvertible {
    case passthrough, exact, keyframeCuts
    case constantRate(fps: Int, frames: String)
    /// The source's audio alone as a song document (`.m4a` or `.wav`), exported to `ext`.
    case audioOnly(ext: String)

    static func pick(_ g: inout SplitMix64, source: OracleSource) -> OracleMode {
        switch Int.random(in: 0..<12, using: &g) {
        case 0..<4: return .passthrough
        case 4..<7: return .exact
        case 7: return .keyframeCuts
        case 8, 9: return .constantRate(fps: [24, 25, 30][Int.random(in: 0..<3, using: &g)], frames: "nearest")
        case 10: return .constantRate(fps: [24, 30][Int.random(in: 0..<2, using: &g)],
                                      frames: ["blend", "interpolate"][Int.random(in: 0..<2, using: &g)])
        default: return .audioOnly(ext: source.audio == "aac" ? "m4a" : "wav")
        }
    }

    var isPassthrough: Bool { self == .passthrough || self == .exact || self == .keyframeCuts }

    /// The export command of the document `m.slowpoke`, writing `output`.
    func arguments(output: String) -> [String] {
        let export = ["export", "m.slowpoke"]
        return switch self {
        case .passthrough: export + ["-o", output]
        case .exact: export + ["--exact", "-o", output]
        case .keyframeCuts: export + ["--keyframe-cuts", "-o", output]
        case .constantRate(let fps, let frames): export + ["--fps", "\(fps)", "--frames", frames, "--preset", "ultrafast", "-o", output]
        case .audioOnly: export + ["-o", output]
        }
    }

    var outputExtension: (String) -> String {
        { container in if case .audioOnly(let ext) = self { ext } else { container } }
    }

    var description: String {
        switch self {
        case .passthrough: "passthrough"
        case .exact: "--exact"
        case .keyframeCuts: "--keyframe-cuts"
        case .constantRate(let fps, let frames): "--fps \(fps) --frames \(frames)"
        case .audioOnly(let ext): "audio-only .\(ext)"
        }
    }
}
