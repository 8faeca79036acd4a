import Foundation

/// A movie's pictures steadied with libvidstab (through libavfilter's vidstabdetect and
/// vidstabtransform): the source's motion is analysed once, in source order, and kept in
/// `cache` (``StabilizationAnalysis``); each source picture is then moved by its share of the
/// smoothed motion (``StabilizationTransform``). A constant-rate export's retimed frames show
/// the steadied pictures, and so does the preview; both use the same kept analysis.
public struct Stabilization: Sendable, Equatable {
    /// What fills the edges a moved picture leaves uncovered.
    public enum Borders: String, Sendable, CaseIterable {
        /// Zoomed in just enough that no edge shows (vidstab's optimal static zoom).
        case zoom
        /// The whole picture, unzoomed: the edges show what the previous picture had there.
        case keep
    }

    /// How many source frames either side the camera path is smoothed over (vidstab's
    /// `smoothing`): higher is steadier and leaves a larger zoom.
    public let strength: Int
    public let borders: Borders
    /// The folder the analysis is kept in, made when missing.
    public let cache: URL
    /// What identifies the movie's content (its fingerprint); part of the analysis file's name,
    /// so a changed movie is analysed again.
    public let movieKey: String

    public static let defaultStrength = 10
    public static let strengths = 1...100
    /// vidstabdetect's settings, fixed (its defaults): part of the analysis file's name.
    package static let shakiness = 5, accuracy = 15

    public init(strength: Int = Self.defaultStrength, borders: Borders = .zoom, cache: URL, movieKey: String) throws(MediaError) {
        guard Self.strengths.contains(strength) else {
            throw .unsupported("a stabilization strength is a whole number of frames from \(Self.strengths.lowerBound) to \(Self.strengths.upperBound), not \(strength)")
        }
        self.strength = strength
        self.borders = borders
        self.cache = cache
        self.movieKey = movieKey
    }

    /// What identifies a movie's content in the analysis file's name: its size, modification
    /// time (whole seconds) and the first 16 digits of a digest of its content.
    public static func movieKey(size: Int64, modified: Date, digest: String) -> String {
        "\(size)-\(Int64(modified.timeIntervalSince1970))-\(digest.prefix(16))"
    }

    /// The analysis of this movie's video stream `stream` (its index in the file: the document's
    /// primary video stream) at these settings (the strength and borders apply later, so one
    /// analysis serves them all). Each stream has its own, so one is never used for another.
    package func analysisFile(stream: Int) -> URL {
        let safe = String(movieKey.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" })
        return cache.appendingPathComponent("\(safe)-stream\(stream)-shakiness\(Self.shakiness)-accuracy\(Self.accuracy).trf")
    }

    /// How vidstabtransform finds a moved picture's pixels: the export's bicubic, or bilinear,
    /// about a third of the cost (12 ms against 43 ms of CPU a 1080p picture, measured with
    /// ffmpeg's -benchmark here), which a preview playing in real time needs.
    package enum Interpolation: String, Sendable {
        case bicubic, bilinear
    }

    /// vidstabtransform's chain for the analysis at `path`.
    package func transformChain(_ path: String, interpolation: Interpolation = .bicubic) -> String {
        let border = borders == .zoom ? "optzoom=1:crop=black" : "optzoom=0:zoom=0:crop=keep"
        return "vidstabtransform=input=\(Self.escaped(path)):smoothing=\(strength):\(border):interpol=\(interpolation.rawValue)"
    }

    /// How the summary says it: `stabilized (strength 10, zoomed to hide the edges; analysis
    /// reused)`; `redone`: why the analysis kept was not used (`analysis made again, as the kept
    /// one was damaged (its checksum differs), and kept in …`).
    package func said(reused: Bool, redone: String? = nil) -> String {
        let analysis = reused ? "reused" : (redone.map { "made again, as the kept one \($0)," } ?? "made") + " and kept in \(cache.lastPathComponent)"
        return "stabilized (strength \(strength), \(borders == .zoom ? "zoomed to hide the edges" : "edges kept unzoomed"); analysis \(analysis))"
    }

    /// `path` as a filter option's value inside a graph: escaped for the option parser, then
    /// for the graph parser.
    package static func escaped(_ path: String) -> String {
        func escape(_ s: String, _ special: Set<Character>) -> String {
            String(s.flatMap { special.contains($0) ? ["\\", $0] : [$0] })
        }
        return escape(escape(path, ["\\", "'", ":", "="]), ["\\", "'", "[", "]", ",", ";"])
    }
}
