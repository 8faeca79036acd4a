import Foundation

extension BatchRecipe {
    /// Stills a batch job takes from its timeline besides exporting it (`"stills"` in an
    /// `export`), as `slowpoke still` does: `{"at": ["25%", "3.2"], "format": "jpg", "best": 2, "merge": 5}`,
    /// or just the times (`"stills": ["50%"]`). Each is written beside the job's output as
    /// `<movie-stem>-<time>s.<format>`.
    public struct StillSpec: Sendable, Hashable, Codable {
        /// Timeline times, as the command line writes them (`3.2`, `25%`, `end-1`).
        public var at: [String]
        /// `png` (the default), `jpg` or `tiff`.
        public var format: String?
        /// The sharpest of the frame shown and this many frames either side (`still --best`).
        public var best: Int?
        /// This many frames merged to lower the noise (`still --merge`).
        public var merge: Int?

        public static let formats = ["png", "jpg", "jpeg", "tif", "tiff"]

        private enum CodingKeys: String, CodingKey, CaseIterable { case at, format, best, merge }

        public init(from decoder: any Decoder) throws {
            if let times = try? decoder.singleValueContainer().decode([FlexibleText].self) {
                at = times.map(\.text)
                return
            }
            try RecipeKeys.check(decoder, known: CodingKeys.allCases.map(\.stringValue), in: "stills")
            let c = try decoder.container(keyedBy: CodingKeys.self)
            if let one = try? c.decode(FlexibleText.self, forKey: .at) {
                at = [one.text]
            } else {
                at = try c.decode([FlexibleText].self, forKey: .at).map(\.text)
            }
            format = try c.decodeIfPresent(String.self, forKey: .format)
            best = try c.decodeIfPresent(Int.self, forKey: .best)
            merge = try c.decodeIfPresent(Int.self, forKey: .merge)
            // Pasted into output names: one of a fixed set, never a path.
            if let format, !Self.formats.contains(format.lowercased()) {
                throw DecodingError.dataCorruptedError(forKey: .format, in: c, debugDescription: "\"format\": \(ExportSpec.quoted(format)) is not one of png, jpg, tiff")
            }
            if let best, !(0...100).contains(best) {
                throw DecodingError.dataCorruptedError(forKey: .best, in: c, debugDescription: "\"best\" takes 0 to 100 frames either side, not \(best)")
            }
            if let merge, !(1...15).contains(merge) {
                throw DecodingError.dataCorruptedError(forKey: .merge, in: c, debugDescription: "\"merge\" takes 1 to 15 frames, not \(merge)")
            }
            if at.isEmpty { throw DecodingError.dataCorruptedError(forKey: .at, in: c, debugDescription: "\"at\" names no time") }
        }

        /// The file name of the still at `time` (as messages show it) of `movie`.
        public func fileName(movie: URL, time shown: String) -> String {
            movie.deletingPathExtension().lastPathComponent + "-\(shown)s." + (format?.lowercased() ?? "png")
        }
    }
}
