import Foundation
public import Composition

/// The movie an OTIO export refers to.
public struct OTIOMovie: Sendable, Hashable {
    /// The timeline's name (the movie's file name).
    public var name: String
    /// `ExternalReference.target_url`: a `file://` URL, or a path relative to the .otio file.
    public var targetURL: String
    /// The movie's presentation range, `[0, D)`, for `available_range`.
    public var availableRange: TimeRange
    /// The rate to write times in when nothing finer is needed: the movie's frame rate when it
    /// is a whole number, otherwise its video timescale.
    public var preferredRate: Int64

    public init(name: String, targetURL: String, availableRange: TimeRange, preferredRate: Int64) {
        self.name = name
        self.targetURL = targetURL
        self.availableRange = availableRange
        self.preferredRate = max(1, preferredRate)
    }
}
