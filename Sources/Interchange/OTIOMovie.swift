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
    /// One video frame: a reversed clip's `start_time` is its first frame shown, a frame before
    /// the end of the media it plays. Nil: one tick of `preferredRate`.
    public var frameDuration: Time?

    public init(name: String, targetURL: String, availableRange: TimeRange, preferredRate: Int64, frameDuration: Time? = nil) {
        self.name = name
        self.targetURL = targetURL
        self.availableRange = availableRange
        self.preferredRate = max(1, preferredRate)
        self.frameDuration = frameDuration
    }

    /// The frame a reversed clip's `start_time` stands back from its media's end.
    var frame: Time { frameDuration ?? Time(value: 1, timescale: Int32(clamping: preferredRate)) }
}
