import Foundation
internal import CFFmpeg
import Media

/// What a movie says about its capture, for a still's EXIF: when (the camera's local date and
/// time, with its UTC offset when known), where (ISO 6709 latitude, longitude and altitude)
/// and with which camera (make and model). Read from the container's tags as phones write
/// them: Apple's `com.apple.quicktime.*` keys, Android's `location` and `com.android.*`, and
/// the `creation_time` every mp4 muxer writes (UTC).
public struct CaptureMetadata: Sendable, Equatable {
    /// `2024:05:01 14:34:56`, EXIF's form.
    public var dateTime: String?
    /// `+02:00`, or `+00:00` for a UTC `creation_time`.
    public var offset: String?
    public var latitude: Double?
    public var longitude: Double?
    public var altitude: Double?
    public var make: String?
    public var model: String?

    public var isEmpty: Bool { dateTime == nil && latitude == nil && make == nil && model == nil }

    /// The fields found, named for a summary: `date, location, make, model`.
    public var found: [String] {
        [dateTime.map { _ in "date" }, latitude.map { _ in "location" }, make.map { _ in "make" }, model.map { _ in "model" }].compactMap { $0 }
    }

    /// The metadata of `input`'s container and of its stream `stream`.
    init(input: InputFormatContext, stream: Int) {
        var tags: [String: String] = [:]
        func read(_ dictionary: OpaquePointer?) {
            var entry: UnsafeMutablePointer<AVDictionaryEntry>?
            while let next = av_dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX) {
                entry = next
                guard let key = next.pointee.key, let value = next.pointee.value else { continue }
                let k = String(cString: key).lowercased()
                if tags[k] == nil { tags[k] = String(cString: value) }
            }
        }
        read(input.pointer.pointee.metadata)
        read(input.stream(stream).pointer.pointee.metadata)
        self.init(tags: tags)
    }

    /// From tags with lower-cased keys.
    init(tags: [String: String]) {
        make = (tags["com.apple.quicktime.make"] ?? tags["com.android.manufacturer"] ?? tags["make"]).flatMap(Self.text)
        model = (tags["com.apple.quicktime.model"] ?? tags["com.android.model"] ?? tags["model"]).flatMap(Self.text)
        if let local = tags["com.apple.quicktime.creationdate"].flatMap(Self.date) {
            (dateTime, offset) = local
        } else if let utc = tags["creation_time"].flatMap(Self.date) {
            (dateTime, offset) = utc
        }
        if let place = (tags["com.apple.quicktime.location.iso6709"] ?? tags["location"]).flatMap(Self.iso6709) {
            (latitude, longitude, altitude) = place
        }
    }

    private static func text(_ s: String) -> String? {
        let trimmed = s.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// `2024-05-01T14:34:56+0200`, `2024-05-01T12:34:56.000000Z` → EXIF date and offset.
    static func date(_ s: String) -> (String, String?)? {
        let pattern = #/^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(Z|[+-]\d{2}:?\d{2})?/#
        guard let m = s.firstMatch(of: pattern) else { return nil }
        let date = "\(m.1):\(m.2):\(m.3) \(m.4):\(m.5):\(m.6)"
        guard let zone = m.7 else { return (date, nil) }
        if zone == "Z" { return (date, "+00:00") }
        let digits = zone.filter(\.isNumber)
        return (date, "\(zone.first!)\(digits.prefix(2)):\(digits.suffix(2))")
    }

    /// ISO 6709 `+37.3349-122.0090+010.000/` → latitude, longitude, altitude.
    static func iso6709(_ s: String) -> (Double, Double, Double?)? {
        let pattern = #/^([+-]\d+(?:\.\d+)?)([+-]\d+(?:\.\d+)?)([+-]\d+(?:\.\d+)?)?/?$/#
        guard let m = s.trimmingCharacters(in: .whitespaces).firstMatch(of: pattern),
              let latitude = Double(m.1), let longitude = Double(m.2),
              abs(latitude) <= 90, abs(longitude) <= 180 else { return nil }
        return (latitude, longitude, m.3.flatMap { Double($0) })
    }
}
