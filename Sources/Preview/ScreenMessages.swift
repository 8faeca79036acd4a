import Foundation

/// The messages the preview prints, kept for the window too: each shows for a few seconds
/// (longer when it is long), the newest at the bottom, at most three at a time.
struct ScreenMessages {
    /// Seconds a message stays: 4, plus one for every 40 characters past the first 40.
    static func lifetime(of text: String) -> TimeInterval { 4 + Double(max(0, text.count - 40)) / 40 }
    static let shownAtOnce = 3

    private(set) var entries: [(text: String, until: Date)] = []

    mutating func add(_ text: String, at now: Date = Date()) {
        entries.append((text, now.addingTimeInterval(Self.lifetime(of: text))))
    }

    /// The messages still shown at `now`, oldest first; the expired ones are dropped.
    mutating func visible(at now: Date = Date()) -> [String] {
        entries.removeAll { $0.until <= now }
        return entries.suffix(Self.shownAtOnce).map(\.text)
    }
}
