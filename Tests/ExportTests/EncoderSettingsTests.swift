import Composition
import Export
import Testing

@Suite struct EncoderSettingsTests {
    @Test(arguments: [("30", 30, 1), ("29.97", 30000, 1001), ("23.976", 24000, 1001), ("59.94", 60000, 1001),
                      ("30000/1001", 30000, 1001), ("12.5", 25, 2), ("24", 24, 1), (" 60 ", 60, 1)])
    func frameRatesParseExactly(text: String, numerator: Int64, denominator: Int64) throws {
        #expect(try FrameRateParser.parse(text) == Rational(numerator, denominator))
    }

    @Test(arguments: ["0", "-30", "abc", "1001", "30/0", ""])
    func nonsenseRatesAreRefused(text: String) {
        #expect(throws: ExportError.self) { try FrameRateParser.parse(text) }
    }

    /// Levels from H.264 Table A-1 and H.265 Table A.8: the lowest that holds size × rate.
    @Test(arguments: [(1280, 720, "30", "3.1"), (1280, 720, "60", "3.2"), (1920, 1080, "30", "4.0"),
                      (1920, 1080, "60", "4.2"), (3840, 2160, "30", "5.1"), (640, 360, "240", "4.0")])
    func h264LevelsFollowTheStandard(width: Int, height: Int, fps: String, level: String) throws {
        let settings = EncoderSettings.recommended(codec: .h264, width: width, height: height, fps: try FrameRateParser.parse(fps))
        #expect(settings.level == level)
        #expect(settings.profile == "high")
        #expect(!settings.tenBit)
        #expect(settings.gopLength == Int((2 * (try FrameRateParser.parse(fps)).doubleValue).rounded()))
    }

    @Test func hevcKeepsTenBitsOnlyFromATenBitSource() {
        let eight = EncoderSettings.recommended(codec: .hevc, width: 1920, height: 1080, fps: try! Rational(60))
        let ten = EncoderSettings.recommended(codec: .hevc, width: 3840, height: 2160, fps: try! Rational(30), tenBitSource: true)
        #expect(eight.profile == "main" && !eight.tenBit && eight.level == "4.1")
        #expect(ten.profile == "main10" && ten.tenBit && ten.level == "5.0")
    }
}
