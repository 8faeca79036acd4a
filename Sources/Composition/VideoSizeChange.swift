/// Where a video stream changes picture size mid-file (a 720p recording joined to a 1080p one
/// with `cat`, a broadcast switching programmes), as its parameter sets say: from `time` on
/// (seconds from the movie's start) its pictures are `width` × `height`. A stream's list starts
/// with its first size.
public struct VideoSizeChange: Sendable, Hashable, Codable {
    public var time: Double
    public var width: Int
    public var height: Int

    public init(time: Double, width: Int, height: Int) {
        self.time = time
        self.width = width
        self.height = height
    }

    /// `1280x720, then 1920x1080 at 2.000 s`.
    public static func summary(_ changes: [VideoSizeChange]) -> String {
        changes.enumerated().map { k, c in
            k == 0 ? "\(c.width)x\(c.height)" : "then \(c.width)x\(c.height) at \(AudioFormatChange.seconds(c.time)) s"
        }.joined(separator: ", ")
    }
}
