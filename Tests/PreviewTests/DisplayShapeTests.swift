import Composition
import Preview
import Testing

/// The shown shape of a stored picture: sample aspect, then rotation, as ffplay shows it.
@Suite struct DisplayShapeTests {
    struct Case: Sendable, CustomStringConvertible {
        let width: Int, height: Int, rotation: Double?, sar: (Int64, Int64)?
        let shown: (Double, Double), window: (Int, Int), turns: Int
        var description: String { "\(width)x\(height) rot \(rotation ?? 0) sar \(sar.map { "\($0.0):\($0.1)" } ?? "-")" }
    }

    static let cases: [Case] = [
        Case(width: 1920, height: 1080, rotation: nil, sar: nil, shown: (1920, 1080), window: (960, 540), turns: 0),
        // A phone's portrait clip: stored landscape, turned a quarter clockwise.
        Case(width: 1920, height: 1080, rotation: 90, sar: nil, shown: (1080, 1920), window: (640, 720), turns: 1),
        // Portrait: at least 640 px wide, the picture letterboxed at the sides (and as tall as fits).
        Case(width: 640, height: 360, rotation: 90, sar: nil, shown: (360, 640), window: (640, 720), turns: 1),
        Case(width: 640, height: 360, rotation: 180, sar: nil, shown: (640, 360), window: (640, 360), turns: 2),
        Case(width: 640, height: 360, rotation: 270, sar: nil, shown: (360, 640), window: (640, 720), turns: 3),
        Case(width: 640, height: 360, rotation: -90, sar: nil, shown: (360, 640), window: (640, 720), turns: 3),
        Case(width: 640, height: 360, rotation: 89.99, sar: nil, shown: (360, 640), window: (640, 720), turns: 1),
        // Anamorphic DV: 720x480 at SAR 32:27 is 16:9, at 8:9 it is 4:3.
        Case(width: 720, height: 480, rotation: nil, sar: (32, 27), shown: (853.333, 480), window: (853, 480), turns: 0),
        Case(width: 720, height: 480, rotation: nil, sar: (8, 9), shown: (640, 480), window: (640, 480), turns: 0),
        // Both: the stretch is along the stored width, which ends up vertical.
        Case(width: 720, height: 480, rotation: 90, sar: (32, 27), shown: (480, 853.333), window: (640, 720), turns: 1),
        // Small: scaled up to 640 px wide.
        Case(width: 320, height: 240, rotation: nil, sar: nil, shown: (320, 240), window: (640, 480), turns: 0),
        Case(width: 320, height: 180, rotation: nil, sar: nil, shown: (320, 180), window: (640, 360), turns: 0),
    ]

    @Test(arguments: cases) func shownSizeAndWindow(_ c: Case) throws {
        let sar = try c.sar.map { try Rational($0.0, $0.1) }
        let shape = DisplayShape(width: c.width, height: c.height, rotation: c.rotation, sampleAspectRatio: sar)
        #expect(shape.quarterTurns == c.turns)
        #expect(abs(shape.displaySize.width - c.shown.0) < 0.01 && abs(shape.displaySize.height - c.shown.1) < 0.01,
                "\(shape.displaySize)")
        let window = shape.windowSize()
        #expect(window.width == c.window.0 && window.height == c.window.1, "\(window)")
    }

    /// Turned by its angle about its centre, the target rectangle covers the centred box of the
    /// shown shape: the largest that fits the output.
    @Test(arguments: [0.0, 90, 180, 270], [(960, 540), (405, 720), (1000, 1000), (333, 111)])
    func targetTurnedFillsTheLetterbox(_ rotation: Double, _ output: (Int, Int)) {
        let shape = DisplayShape(width: 640, height: 360, rotation: rotation)
        let r = shape.targetRect(outputWidth: output.0, outputHeight: output.1)
        let turned = shape.isSideways ? (w: r.height, h: r.width) : (w: r.width, h: r.height)
        let aspect = shape.displaySize.width / shape.displaySize.height
        #expect(abs(Double(turned.w) / Double(turned.h) - aspect) < 0.02)
        #expect(turned.w == output.0 || turned.h == output.1, "touches two sides: \(r) in \(output)")
        #expect(turned.w <= output.0 && turned.h <= output.1)
        // Centred: the rectangle's centre is the output's, within a pixel.
        #expect(abs(2 * r.x + r.width - output.0) <= 1 && abs(2 * r.y + r.height - output.1) <= 1, "\(r) in \(output)")
    }
}
