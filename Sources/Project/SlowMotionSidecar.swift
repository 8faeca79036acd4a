public import Foundation
import SafeFiles
public import Composition

/// The slow-motion adjustment that Apple's Photos keeps for a high-frame-rate movie, as it
/// travels beside the movie in a sidecar with the movie's stem and the extension `.AAE`
/// (`IMG_0042.MOV` → `IMG_0042.AAE`).
///
/// The format is known from reverse engineering only, so it is read defensively and every
/// departure from the shape below is an error naming the file, never a silent fallback:
///
/// ```
///   XML property list (the sidecar)
///     adjustmentFormatIdentifier  "com.apple.video.slomo"
///     adjustmentData              <data> (base64): a binary property list
///       slowMotion
///         rate                    0.125                 playback rate of the region
///         regions                 [ { timeRange: { start:    { value, timescale, flags?, epoch? },
///                                                  duration: { value, timescale, flags?, epoch? } } } ]
/// ```
///
/// `timeRange` is a CMTimeRange as `CMTimeRangeCopyAsDictionary` writes it, in the movie's
/// time (0 is its first frame). Other keys (`adjustmentFormatVersion`, `adjustmentBaseVersion`,
/// `adjustmentEditorBundleID`, …) are ignored. Exactly one region is read; Photos makes one.
public struct SlowMotionSidecar: Sendable, Hashable {
    public static let formatIdentifier = "com.apple.video.slomo"

    /// The sidecar's path, for messages.
    public let path: String
    /// The region's playback rate, as the nearest fraction with a denominator up to 1024.
    public let rate: Rational
    /// The slow region, in the movie's time.
    public let region: TimeRange

    /// The sidecar beside `movie`, `<stem>.AAE` (or `.aae`), if there is one.
    public static func url(besideMovie movie: URL) -> URL? {
        let stem = movie.deletingPathExtension()
        for ext in ["AAE", "aae", "Aae"] {
            let candidate = stem.appendingPathExtension(ext)
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// Reads the sidecar at `url`.
    public init(contentsOf url: URL) throws(SidecarError) {
        let data: Data
        do { data = try InputFile.read(url, limit: 16 << 20) } catch {
            throw SidecarError(path: url.path, reason: "it cannot be read: \(error.description)")
        }
        try self.init(data: data, path: url.path)
    }

    /// Parses sidecar `data`; `path` names it in errors.
    public init(data: Data, path: String) throws(SidecarError) {
        func fail(_ reason: String) -> SidecarError { SidecarError(path: path, reason: reason) }
        guard let outer = try? PropertyListSerialization.propertyList(from: data, format: nil) else {
            throw fail("it is not a property list")
        }
        guard let top = outer as? [String: Any] else { throw fail("its property list is not a dictionary") }
        guard let identifier = top["adjustmentFormatIdentifier"] as? String else {
            throw fail("it has no adjustmentFormatIdentifier")
        }
        guard identifier == Self.formatIdentifier else {
            throw fail("its adjustmentFormatIdentifier is \(identifier), not \(Self.formatIdentifier): it is not a slow-motion adjustment")
        }
        let payload: Data
        if let bytes = top["adjustmentData"] as? Data {
            payload = bytes
        } else if let text = top["adjustmentData"] as? String, let bytes = Data(base64Encoded: text, options: .ignoreUnknownCharacters) {
            payload = bytes
        } else {
            throw fail("it has no adjustmentData")
        }
        guard let innerList = try? PropertyListSerialization.propertyList(from: payload, format: nil),
              let inner = innerList as? [String: Any] else {
            throw fail("its adjustmentData is not a property list dictionary")
        }
        guard let slowMotion = inner["slowMotion"] as? [String: Any] else { throw fail("its adjustmentData has no slowMotion") }
        guard let rateNumber = slowMotion["rate"] as? NSNumber, case let rate = rateNumber.doubleValue,
              rate.isFinite, rate > 0 else {
            throw fail("its slowMotion has no positive numeric rate")
        }
        guard let fraction = Self.fraction(rate) else { throw fail("its slowMotion rate \(rate) is not a fraction slowpoke can play") }
        guard let regions = slowMotion["regions"] as? [Any] else { throw fail("its slowMotion has no regions") }
        guard regions.count == 1 else { throw fail("its slowMotion has \(regions.count) regions; slowpoke reads exactly one") }
        guard let regionEntry = regions[0] as? [String: Any], let timeRange = regionEntry["timeRange"] as? [String: Any] else {
            throw fail("its slow-motion region has no timeRange")
        }
        let start = try Self.time(timeRange["start"], field: "start", fail: fail)
        let duration = try Self.time(timeRange["duration"], field: "duration", fail: fail)
        guard duration > .zero else { throw fail("its slow-motion region lasts \(duration)") }
        guard let region = try? TimeRange(start: start, duration: duration) else { throw fail("its slow-motion region does not fit in exact time") }
        self.path = path
        self.rate = fraction
        self.region = region
    }

    /// A CMTime dictionary: whole `value` and positive `timescale`; when `flags` is present,
    /// it must say valid (bit 0) and no special value (bits 2 to 4).
    private static func time(_ entry: Any?, field: String, fail: (String) -> SidecarError) throws(SidecarError) -> Time {
        guard let dictionary = entry as? [String: Any] else { throw fail("its region's timeRange has no \(field)") }
        // Exactly: `int64Value` of 1e30 or 2.5 is some other number (or a trap).
        guard let value = (dictionary["value"] as? NSNumber).flatMap({ Int64(exactly: $0) }),
              let timescale = (dictionary["timescale"] as? NSNumber).flatMap({ Int32(exactly: $0) }),
              timescale > 0 else {
            throw fail("its region's \(field) is not a CMTime with a whole value and a positive timescale")
        }
        guard value >= 0 else { throw fail("its region's \(field) is negative (\((try? Rational(value, Int64(timescale)))?.readable ?? "\(value)") s)") }
        if let number = dictionary["flags"] as? NSNumber, Int64(exactly: number).map({ $0 & 1 == 0 || $0 & 0b11100 != 0 }) ?? true {
            throw fail("its region's \(field) is not a valid numeric CMTime (flags \(number))")
        }
        return Time(value: value, timescale: timescale)
    }

    /// The fraction with the smallest denominator up to 1024 within 1e-6 of `x`: a rate stored
    /// as a 32-bit float (0.125, 0.25) comes back exact.
    static func fraction(_ x: Double) -> Rational? {
        for denominator in Int64(1)...1024 {
            let numerator = (x * Double(denominator)).rounded()
            guard numerator >= 1, abs(numerator / Double(denominator) - x) <= 1e-6 * max(1, x),
                  let whole = Int64(exactly: numerator) else { continue }
            return try? Rational(whole, denominator)
        }
        return nil
    }
}

/// A slow-motion sidecar that cannot be read.
public struct SidecarError: LocalizedError, Sendable, Equatable {
    public let path: String
    public let reason: String

    public var errorDescription: String? {
        "\(path) is not a slow-motion sidecar slowpoke can read (\(reason)); the document was left unchanged"
    }
}
