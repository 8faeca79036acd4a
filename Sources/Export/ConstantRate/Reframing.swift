import Foundation

/// A constant-rate export's picture taken from part of the source's: a crop (`W:H:X:Y`, the
/// output W x H) or a centred zoom by a factor (the middle 1/F of the width and height, scaled
/// back up to the source's size with Lanczos).
public enum Reframing: Sendable, Equatable {
    case crop(width: Int, height: Int, x: Int, y: Int)
    case zoom(Double)

    /// The largest crop side or offset taken, in pixels.
    public static let largestSide = 32768

    /// `W:H:X:Y`, or `W:H` for a centred crop: whole pixels, even sides, checked before the
    /// movie is read (whether it fits the picture is checked against the picture).
    public init(crop text: String) throws(ExportError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2 || parts.count == 4, parts.allSatisfy({ $0 != nil }) else {
            throw .unsupported("\"\(text)\" is not a crop; a crop is W:H:X:Y (or W:H, centred) in whole pixels, such as 1280:720:320:180")
        }
        let v = parts.map { $0! }
        guard v[0] > 0, v[1] > 0, v.allSatisfy({ $0 >= 0 }) else {
            throw .unsupported("the crop \(text) needs a positive width and height and offsets of 0 or more")
        }
        // No H.264, HEVC or AV1 picture is larger (their levels stop at 16384 or below).
        guard v.allSatisfy({ $0 <= Self.largestSide }) else {
            throw .unsupported("the crop \(text) reaches past \(Self.largestSide) pixels, larger than any video picture")
        }
        guard v[0] % 2 == 0, v[1] % 2 == 0 else {
            throw .unsupported("a crop of \(v[0])x\(v[1]) has an odd side; 4:2:0 video needs an even width and height")
        }
        self = parts.count == 4 ? .crop(width: v[0], height: v[1], x: v[2], y: v[3]) : .crop(width: v[0], height: v[1], x: -1, y: -1)
    }

    /// A zoom by `factor`, from 1 (none) to 8.
    public init(zoom factor: Double) throws(ExportError) {
        guard factor.isFinite, factor >= 1, factor <= 8 else {
            throw .unsupported("a zoom factor is from 1 to 8, not \(factor)")
        }
        self = .zoom(factor)
    }

    /// Why this reframing cannot take part of a `width` x `height` picture (a crop larger than
    /// it or reaching past its edges), said of the picture with the largest crop like it that
    /// fits (`W:H:X:Y`); nil when it fits. The picture's size is known once the movie is opened,
    /// so a crop that cannot fit is refused before any work (``geometry(width:height:)`` checks
    /// again against each picture decoded).
    public func misfit(width: Int, height: Int) -> (reason: String, fitting: String)? {
        guard case .crop(let w, let h, let x0, let y0) = self, width > 0, height > 0 else { return nil }
        let centred = x0 < 0
        let x = centred ? (width - w) / 2 : x0, y = centred ? (height - h) / 2 : y0
        guard x < 0 || y < 0 || x + w > width || y + h > height else { return nil }
        let (fw, fh) = (max(2, min(w, width) / 2 * 2), max(2, min(h, height) / 2 * 2))
        let fitting = centred ? "\(fw):\(fh)" : "\(fw):\(fh):\(min(x, width - fw)):\(min(y, height - fh))"
        if centred {
            return ("a centred crop of \(w)x\(h) is larger than the \(width)x\(height) picture; W must be at most \(width) and H at most \(height)", fitting)
        }
        return ("a crop of \(w)x\(h) at \(x),\(y) reaches past the \(width)x\(height) picture (to \(x + w),\(y + h)); W+X must be at most \(width) and H+Y at most \(height)", fitting)
    }

    /// The rectangle taken from a `width` x `height` picture and the output's size. Sizes are
    /// even, as 4:2:0 video needs.
    struct Geometry: Equatable {
        let x: Int, y: Int, width: Int, height: Int
        let outputWidth: Int, outputHeight: Int
        var scales: Bool { width != outputWidth || height != outputHeight }
    }

    func geometry(width: Int, height: Int) throws(ExportError) -> Geometry {
        switch self {
        case .zoom(let factor):
            let w = max(2, Int((Double(width) / factor / 2).rounded()) * 2), h = max(2, Int((Double(height) / factor / 2).rounded()) * 2)
            return Geometry(x: (width - w) / 2, y: (height - h) / 2, width: w, height: h, outputWidth: width, outputHeight: height)
        case .crop(let w, let h, let x0, let y0):
            guard w % 2 == 0, h % 2 == 0 else {
                throw .unsupported("a crop of \(w)x\(h) has an odd side; 4:2:0 video needs an even width and height")
            }
            let x = x0 < 0 ? (width - w) / 2 : x0, y = y0 < 0 ? (height - h) / 2 : y0
            guard x >= 0, y >= 0, x + w <= width, y + h <= height else {
                throw .unsupported("a crop of \(w)x\(h) at \(x0 < 0 ? "the centre" : "\(x),\(y)") does not fit the \(width)x\(height) picture")
            }
            return Geometry(x: x, y: y, width: w, height: h, outputWidth: w, outputHeight: h)
        }
    }

    /// How the summary says it: `cropped to 640x360 at 320,180`, `zoomed 2x (the middle 640x360, scaled to 1280x720)`.
    func said(_ g: Geometry) -> String {
        switch self {
        case .crop: "cropped to \(g.width)x\(g.height) at \(g.x),\(g.y)"
        case .zoom(let f): "zoomed \(String(format: "%g", f))x (the middle \(g.width)x\(g.height), scaled to \(g.outputWidth)x\(g.outputHeight))"
        }
    }
}
