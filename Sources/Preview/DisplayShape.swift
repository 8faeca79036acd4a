public import Composition

/// How a stored picture is shown, as ffplay and phone galleries show it: stretched by its
/// sample aspect ratio, then turned by the display matrix's rotation.
///
/// ```
///  stored 640x360, rotation 90      shown 360x640
///  +-----------+                    +------+
///  |A          |        ──▶         |     A|
///  |           |                    |      |
///  +-----------+                    |      |
///                                   +------+
///  stored 720x480, SAR 32:27         shown 853x480
/// ```
///
/// Only whole quarter turns are applied (the rotation is rounded to the nearest one, which is
/// what every phone writes); the document records no mirroring, so flips are not applied.
public struct DisplayShape: Sendable, Equatable {
    /// The decoded picture's size in samples.
    public let storedWidth: Int
    public let storedHeight: Int
    /// Quarter turns clockwise, 0 to 3.
    public let quarterTurns: Int
    /// The width of a sample over its height (1 for square samples).
    public let sampleAspect: Double

    public init(width: Int, height: Int, rotation: Double? = nil, sampleAspectRatio: Rational? = nil) {
        storedWidth = max(1, width)
        storedHeight = max(1, height)
        let turns = Int(((rotation ?? 0) / 90).rounded()) % 4
        quarterTurns = turns < 0 ? turns + 4 : turns
        let sar = sampleAspectRatio?.doubleValue ?? 1
        sampleAspect = sar.isFinite && sar > 0 ? sar : 1
    }

    /// The rotation SDL applies, in degrees clockwise.
    public var angle: Double { Double(quarterTurns * 90) }

    /// Whether the picture is turned on its side (90° or 270°).
    public var isSideways: Bool { quarterTurns % 2 == 1 }

    /// The upright picture's size in square pixels, before any rotation: the width is stretched
    /// (or squeezed) by the sample aspect, the height kept, as ffplay does.
    public var unrotatedSize: (width: Double, height: Double) {
        (Double(storedWidth) * sampleAspect, Double(storedHeight))
    }

    /// The shown picture's size in square pixels: `unrotatedSize`, turned.
    public var displaySize: (width: Double, height: Double) {
        let (w, h) = unrotatedSize
        return isSideways ? (h, w) : (w, h)
    }

    /// The window's first size: the shown shape scaled down (never up) to fit `maxWidth` x
    /// `maxHeight`, then at least `minWidth` wide, so that the status and the timeline strip
    /// have room: a small picture is scaled up to that width (within `maxHeight`), and a
    /// portrait one keeps its height and is letterboxed at the sides.
    ///
    /// ```
    ///   320x240  → 640x480          360x640 (portrait) → 640x720, the picture 405x720 in the middle
    /// ```
    public func windowSize(maxWidth: Int = 960, maxHeight: Int = 720, minWidth: Int = 640) -> (width: Int, height: Int) {
        let (w, h) = displaySize
        let scale = min(1, Double(maxWidth) / w, Double(maxHeight) / h)
        var (width, height) = (w * scale, h * scale)
        if width < Double(minWidth) {
            // As large as fits minWidth wide and maxHeight high, but never smaller than it was.
            let grown = max(scale, min(Double(minWidth) / w, Double(maxHeight) / h))
            (width, height) = (Double(minWidth), h * grown)
        }
        return (max(1, Int(width.rounded())), max(1, Int(height.rounded())))
    }

    /// Where to draw the texture in an output of `outputWidth` x `outputHeight` so that, once
    /// turned by ``angle`` about its centre, it fills the largest centred box of the shown
    /// shape (letterboxed). For a sideways picture the rectangle is the box with its sides
    /// swapped.
    public func targetRect(outputWidth: Int, outputHeight: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        let (w, h) = displaySize
        let scale = min(Double(outputWidth) / w, Double(outputHeight) / h)
        let boxW = Int(w * scale), boxH = Int(h * scale)
        let (rectW, rectH) = isSideways ? (boxH, boxW) : (boxW, boxH)
        return ((outputWidth - rectW) / 2, (outputHeight - rectH) / 2, rectW, rectH)
    }
}
