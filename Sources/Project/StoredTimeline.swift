public import Foundation
public import Composition
import Crypto

/// When a document's stored timeline is trusted without replaying its history (version 4).
///
/// A document records its timeline beside its history, and a `checksum`: the SHA-256 of the
/// document's bytes with the checksum's own 64 digits written as zeros. slowpoke writes it on
/// every save, from a timeline that its edits made (each checked as it was applied), so a
/// document whose bytes still match needs no replay. Replay happens when the checksum is
/// missing or differs (a hand edit, another tool, an older slowpoke's document: versions 1-3
/// have none), when the stored timeline is not one an edit can leave (see
/// ``isPlausible(_:in:)``), and always for `slowpoke verify` and in the tests.
///
///     {
///       "checksum" : "9f2c…",        SHA-256 of these bytes with 9f2c… as 000…
///       "format" : "slowpoke", "history" : …, "timeline" : …, "version" : 4
///     }
///
/// The checksum finds accidents, not forgeries: anyone can write a matching one. A forged
/// timeline still has to be plausible, so it plays only parts of the movie at supported rates.
public enum StoredTimeline {
    /// How a document's bytes compare with the checksum they carry.
    public enum Checksum: String, Sendable {
        case matches, missing, differs
    }

    /// The first document version that carries a checksum.
    public static let firstVersion = 4

    static let key = "checksum"
    static let placeholder = String(repeating: "0", count: 64)
    /// The field as the document encoder writes it (pretty-printed, keys sorted, so first).
    private static let field = Data("\"\(key)\" : \"".utf8)

    /// `data`, written with the placeholder, with the placeholder replaced by the checksum.
    public static func seal(_ data: Data) -> Data {
        var sealed = data
        seal(&sealed)
        return sealed
    }

    /// ``seal(_:)`` in place (a document of 23 MB is not copied for its 64 digits).
    static func seal(_ data: inout Data) {
        guard let digits = digitsRange(in: data) else { return }
        data.replaceSubrange(digits, with: Data(SHA256.hash(data: data).hex.utf8))
    }

    /// Whether `data` carries a checksum, and whether its bytes match it.
    public static func checksum(of data: Data) -> Checksum {
        guard let digits = digitsRange(in: data) else { return .missing }
        // The hash of the bytes with the digits as zeros, without copying them to write the zeros.
        var hasher = SHA256()
        hasher.update(data: data[..<digits.lowerBound])
        hasher.update(data: Data(placeholder.utf8))
        hasher.update(data: data[digits.upperBound...])
        return Data(hasher.finalize().hex.utf8) == data[digits] ? .matches : .differs
    }

    /// Where the 64 digits of the first checksum field lie in `data`.
    private static func digitsRange(in data: Data) -> Range<Data.Index>? {
        guard let found = data.firstRange(of: field) else { return nil }
        let digits = found.upperBound..<(found.upperBound + 64)
        guard digits.upperBound < data.endIndex, data[digits.upperBound] == UInt8(ascii: "\"") else { return nil }
        return digits
    }

    /// Whether `timeline` is one that edits of the whole movie described by `media` can leave:
    /// the movie's tracks, each in its simplest form (neighbours that continue each other
    /// merged), media segments inside the movie at rates from 1/32 to 32, holds of times inside
    /// it. Linear in the segments; a timeline that fails is checked by replay instead.
    public static func isPlausible(_ timeline: Composition, in media: MediaInfo, name: String) -> Bool {
        guard let asset = try? media.asset(name: name) else { return false }
        let movie = asset.timeRange
        guard timeline.tracks.map(\.trackID) == asset.tracks.map(\.trackID),
              zip(timeline.tracks, asset.tracks).allSatisfy({ $0.mediaType == $1.mediaType }),
              timeline.duration <= TimelineLimits.maximumDuration else { return false }
        for track in timeline.tracks {
            guard track.isSimplest else { return false }
            for segment in track.segments {
                if let source = segment.source, let rate = segment.rate {
                    guard movie.contains(source), rate >= PlaybackRate.minimum, rate <= PlaybackRate.maximum else { return false }
                } else if let held = segment.heldTime {
                    guard held >= movie.start, held < movie.end else { return false }
                }
            }
        }
        return true
    }
}
