public import Composition

/// How constant-rate export fills an output frame that falls between two source frames.
public enum FrameSelection: String, CaseIterable, Sendable {
    /// Sample and hold: the source frame on screen at that moment.
    case nearest
    /// The two neighbouring source frames mixed by how close each is in time.
    case blend
    /// Motion-interpolated in-between frames (optical flow, see FlowInterpolator) where a section is slowed.
    case interpolate
}

/// The output frame rate of a constant-rate export, parsed from what users type.
public enum FrameRateParser {
    /// Accepts integers (`30`), decimals (`12.5`), fractions (`30000/1001`), and the NTSC
    /// shorthands `23.976`, `29.97`, `59.94` and `119.88`, which mean n×1000/1001 exactly.
    public static func parse(_ text: String) throws(ExportError) -> Rational {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let rate: Rational
        do { rate = try Rational(parsing: trimmed) } catch {
            throw .unsupported("\(text) is not a frame rate; use a number such as 30, 29.97 or 30000/1001")
        }
        guard rate.isPositive, rate.doubleValue >= 1, rate.doubleValue <= 1000 else {
            throw .unsupported("\(Rational.decimals(in: text)) is outside 1…1000 frames per second")
        }
        if rate.denominator != 1 && !trimmed.contains("/") {
            // A decimal within 0.01 of n×1000/1001 is the NTSC rate n×1000/1001.
            let n = (rate.doubleValue * 1.001).rounded()
            if n >= 1, abs(rate.doubleValue - n * 1000 / 1001) < 0.01, let ntsc = try? Rational(Int64(n) * 1000, 1001) {
                return ntsc
            }
        }
        return rate
    }
}

/// AVOutputSettingsAssistant for libx264 and libx265: a profile, level, GOP length and rate
/// control chosen from the picture size and frame rate so the result plays on ordinary
/// hardware, with CRF and preset open to the user.
public struct EncoderSettings: Sendable, Equatable {
    public var codec: VideoCodec
    public var profile: String
    /// The lowest level whose limits hold the picture size and frame rate, such as "4.0".
    public var level: String
    /// Frames between keyframes: about two seconds.
    public var gopLength: Int
    /// Constant rate factor (quality; lower is better and larger).
    public var crf: Double
    public var preset: String
    /// The level's peak bit rate, used as the VBV cap, and its buffer, in kbit/s and kbit.
    public var maxBitRate: Int
    public var bufferSize: Int
    /// Whether the output keeps 10 bits per sample (HEVC from a 10-bit source, ProRes always);
    /// otherwise 8 bits.
    public var tenBit: Bool
    /// Whether the output keeps the source's alpha channel (ProRes 4444 and VP9 from a source
    /// that has one).
    public var alpha: Bool = false
    /// HEVC: x265's `master-display` and `max-cll` for the source's static HDR metadata (HDR10),
    /// so every encoded picture carries the SEI messages the source's do; empty otherwise.
    var staticHDR: [String] = []

    /// libavutil's name of the pixel format the encoder is given: 4:2:0 (8- or 10-bit) for
    /// H.264 and HEVC, `yuva420p` for VP9 with alpha, 10-bit 4:4:4 for ProRes 4444.
    public var pixelFormatName: String {
        switch codec {
        case .h264, .hevc: tenBit ? "yuv420p10le" : "yuv420p"
        case .prores: alpha ? "yuva444p10le" : "yuv444p10le"
        case .vp9: alpha ? "yuva420p" : "yuv420p"
        }
    }

    /// The settings a user may give over the recommended ones.
    public enum Override: String, Sendable, Equatable {
        case crf, preset
    }

    public static let presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow"]

    /// The recommended settings for `codec` at `width`×`height` and `fps`.
    /// ProRes is intra-only, with no level or rate factor (its quality is the profile's); VP9
    /// takes libvpx's constant-quality mode (CRF 31, as FFmpeg's VP9 guide suggests for HD).
    public static func recommended(codec: VideoCodec, width: Int, height: Int, fps: Rational,
                                   tenBitSource: Bool = false, alphaSource: Bool = false) -> EncoderSettings {
        let rate = fps.doubleValue
        let gop = max(1, Int((2 * rate).rounded()))
        switch codec {
        case .prores:
            return EncoderSettings(codec: .prores, profile: "4444", level: "-", gopLength: 1, crf: 0, preset: "medium",
                                   maxBitRate: 0, bufferSize: 0, tenBit: true, alpha: alphaSource)
        case .vp9:
            return EncoderSettings(codec: .vp9, profile: "0", level: "-", gopLength: gop, crf: 31, preset: "medium",
                                   maxBitRate: 0, bufferSize: 0, tenBit: false, alpha: alphaSource)
        case .h264:
            // Table A-1 of H.264: max macroblocks per second, per frame, and max bit rate
            // (kbit/s, Baseline/Main; High allows 1.25×).
            let levels: [(String, Double, Int, Int)] = [
                ("3.0", 40_500, 1_620, 10_000), ("3.1", 108_000, 3_600, 14_000), ("3.2", 216_000, 5_120, 20_000),
                ("4.0", 245_760, 8_192, 20_000), ("4.1", 245_760, 8_192, 50_000), ("4.2", 522_240, 8_704, 50_000),
                ("5.0", 589_824, 22_080, 135_000), ("5.1", 983_040, 36_864, 240_000), ("5.2", 2_073_600, 36_864, 240_000),
                ("6.0", 4_177_920, 139_264, 240_000), ("6.1", 8_355_840, 139_264, 480_000), ("6.2", 16_711_680, 139_264, 800_000),
            ]
            let frameMBs = ((width + 15) / 16) * ((height + 15) / 16)
            let mbps = Double(frameMBs) * rate
            let chosen = levels.first { mbps <= $0.1 && frameMBs <= $0.2 } ?? levels[levels.count - 1]
            let peak = chosen.3 * 5 / 4
            return EncoderSettings(codec: .h264, profile: "high", level: chosen.0, gopLength: gop, crf: 20,
                                   preset: "medium", maxBitRate: peak, bufferSize: peak, tenBit: false)
        case .hevc:
            // Table A.8 of H.265, Main tier: max luma picture size, luma samples per second, bit rate.
            let levels: [(String, Double, Int, Int)] = [
                ("3.0", 16_588_800, 552_960, 6_000), ("3.1", 33_177_600, 983_040, 10_000),
                ("4.0", 66_846_720, 2_228_224, 12_000), ("4.1", 133_693_440, 2_228_224, 20_000),
                ("5.0", 267_386_880, 8_912_896, 25_000), ("5.1", 534_773_760, 8_912_896, 40_000),
                ("5.2", 1_069_547_520, 8_912_896, 60_000), ("6.0", 1_069_547_520, 35_651_584, 60_000),
                ("6.1", 2_139_095_040, 35_651_584, 120_000), ("6.2", 4_278_190_080, 35_651_584, 240_000),
            ]
            let luma = width * height
            let chosen = levels.first { Double(luma) * rate <= $0.1 && luma <= $0.2 } ?? levels[levels.count - 1]
            return EncoderSettings(codec: .hevc, profile: tenBitSource ? "main10" : "main", level: chosen.0,
                                   gopLength: gop, crf: 23, preset: "medium", maxBitRate: chosen.3,
                                   bufferSize: chosen.3, tenBit: tenBitSource)
        }
    }

    /// Checks user overrides.
    public func validated() throws(ExportError) -> EncoderSettings {
        guard Self.presets.contains(preset) else {
            throw .encoderSettings([.preset], "\(preset) is not one of \(Self.presets.joined(separator: ", "))")
        }
        let highest: Double = codec == .vp9 ? 63 : 51
        guard crf >= 0, crf <= highest else { throw .encoderSettings([.crf], "\(crf) is outside 0…\(Int(highest))") }
        // x264 is lossless at CRF 0 only in the High 4:4:4 Predictive profile; asked for High it
        // refuses to open (and prints to the terminal itself).
        var settings = self
        if codec == .h264 && crf == 0 { settings.profile = "high444" }
        return settings
    }
}

import Foundation
