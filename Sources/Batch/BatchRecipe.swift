import Foundation
public import Composition
public import Project
import Export
import Media

/// A `slowpoke batch` recipe: which movies to retime, the edits for each, and how to export.
/// See the README's "Batch" section for the format.
///
/// ```json
/// {
///   "output_dir": "out",
///   "export": {"algorithm": "spectral", "container": "mp4"},
///   "edits": [{"scale": {"range": "25%-50%", "rate": "1/4"}}],
///   "movies": ["clip60.mp4", {"path": "clip240.mp4", "edits": [{"remove": {"range": "90%-end"}}]}]
/// }
/// ```
public struct BatchRecipe: Sendable, Hashable, Decodable {
    /// Where outputs go, relative to the recipe's folder. Default: the recipe's folder.
    public var outputDirectory: String?
    /// Export settings for every movie; a movie's own `export` overrides them field by field.
    public var export: ExportSpec
    /// Edits for the movies that list none of their own.
    public var edits: [EditSpec]
    public var movies: [MovieSpec]

    public struct ExportSpec: Sendable, Hashable, Codable {
        /// `spectral`, `timeDomain` or `varispeed`.
        public var algorithm: String?
        public var semitones: Double?
        /// Constant frame rate; not supported by batch yet.
        public var fps: Rational?
        /// `mp4`, `mov` or `mkv`. Default: the movie's own when passthrough writes it, else mp4.
        public var container: String?
        /// Check each passthrough output against its plan (`export --verify`).
        public var verify: Bool?
        /// For a transport stream with several programs: the program to export, all of its
        /// streams and none of another's (`export --program`). Default: the first with video.
        public var program: Int?
        /// Stills taken from the timeline beside the export (``StillSpec``).
        public var stills: StillSpec?
        /// With `fps`: steady the picture (`export --stabilize=S`), the camera's path smoothed over
        /// this many frames either side; `true` in a recipe is the default strength.
        public var stabilize: Int?
        /// `zoom` or `keep` (`export --stabilize-borders`).
        public var stabilizeBorders: String?

        public init(algorithm: String? = nil, semitones: Double? = nil, fps: Rational? = nil, container: String? = nil,
                    verify: Bool? = nil, program: Int? = nil, stills: StillSpec? = nil, stabilize: Int? = nil,
                    stabilizeBorders: String? = nil) {
            self.algorithm = algorithm
            self.semitones = semitones
            self.fps = fps
            self.container = container
            self.verify = verify
            self.program = program
            self.stills = stills
            self.stabilize = stabilize
            self.stabilizeBorders = stabilizeBorders
        }

        /// `self`, with `other`'s fields where it sets them.
        public func overridden(by other: ExportSpec?) -> ExportSpec {
            guard let other else { return self }
            return ExportSpec(algorithm: other.algorithm ?? algorithm, semitones: other.semitones ?? semitones,
                              fps: other.fps ?? fps, container: other.container ?? container, verify: other.verify ?? verify,
                              program: other.program ?? program, stills: other.stills ?? stills,
                              stabilize: other.stabilize ?? stabilize, stabilizeBorders: other.stabilizeBorders ?? stabilizeBorders)
        }

        private enum CodingKeys: String, CodingKey, CaseIterable {
            case algorithm, semitones, fps, container, verify, program, stills, stabilize
            case stabilizeBorders = "stabilize_borders"
        }

        public init(from decoder: any Decoder) throws {
            try RecipeKeys.check(decoder, known: CodingKeys.allCases.map(\.stringValue), in: "an export")
            let c = try decoder.container(keyedBy: CodingKeys.self)
            algorithm = try c.decodeIfPresent(String.self, forKey: .algorithm)
            semitones = try c.decodeIfPresent(Double.self, forKey: .semitones)
            fps = try c.decodeIfPresent(FlexibleRational.self, forKey: .fps)?.value
            container = try c.decodeIfPresent(String.self, forKey: .container)
            verify = try c.decodeIfPresent(Bool.self, forKey: .verify)
            program = try c.decodeIfPresent(Int.self, forKey: .program)
            stills = try c.decodeIfPresent(StillSpec.self, forKey: .stills)
            // `true` as `export --stabilize` alone; `false` as leaving it out.
            if let on = try? c.decodeIfPresent(Bool.self, forKey: .stabilize) {
                stabilize = on ? Stabilization.defaultStrength : nil
            } else {
                stabilize = try c.decodeIfPresent(Int.self, forKey: .stabilize)
            }
            stabilizeBorders = try c.decodeIfPresent(String.self, forKey: .stabilizeBorders)
            // Pasted into output names: one of a fixed set, never a path.
            if let container, !OutputNaming.movieExtensions.contains(container.lowercased()) {
                throw DecodingError.dataCorruptedError(forKey: .container, in: c, debugDescription: "\"container\": \(Self.quoted(container)) is not one of \(OutputNaming.movieExtensions.joined(separator: ", "))")
            }
        }

        /// `text` as JSON writes it, control characters escaped.
        static func quoted(_ text: String) -> String {
            let data = (try? JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes])) ?? Data("[\"?\"]".utf8)
            return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
        }
    }

    public struct MovieSpec: Sendable, Hashable, Decodable {
        /// The movie, relative to the recipe's folder; `*` and `?` match several files.
        public var path: String
        /// This movie's edits; nil uses the recipe's `edits`.
        public var edits: [EditSpec]?
        /// The output's file name (in `output_dir`); default `<stem>-slowpoke.<container>`.
        public var output: String?
        public var export: ExportSpec?

        public init(path: String, edits: [EditSpec]? = nil, output: String? = nil, export: ExportSpec? = nil) {
            self.path = path
            self.edits = edits
            self.output = output
            self.export = export
        }

        private enum CodingKeys: String, CodingKey, CaseIterable { case path, edits, output, export }

        /// A movie is an object, or just its path.
        public init(from decoder: any Decoder) throws {
            if let path = try? decoder.singleValueContainer().decode(String.self) {
                self.init(path: path)
                return
            }
            try RecipeKeys.check(decoder, known: CodingKeys.allCases.map(\.stringValue), in: "a movie")
            let c = try decoder.container(keyedBy: CodingKeys.self)
            let path = try c.decode(String.self, forKey: .path)
            let output = try c.decodeIfPresent(String.self, forKey: .output)
            if let output, let why = Self.notAFileName(output) {
                throw DecodingError.dataCorruptedError(forKey: .output, in: c, debugDescription: "the output of \(ExportSpec.quoted(path)), \(ExportSpec.quoted(output)), \(why); an output is a file name in output_dir")
            }
            self.init(path: path, edits: try c.decodeIfPresent([EditSpec].self, forKey: .edits), output: output,
                      export: try c.decodeIfPresent(ExportSpec.self, forKey: .export))
        }

        /// Why `name` cannot be an output's file name, or nil. A recipe may come from someone
        /// else: `"../../evil.mp4"` must not write two folders above `output_dir`.
        public static func notAFileName(_ name: String) -> String? {
            if name.isEmpty { return "is empty" }
            if name.contains("/") || name.contains("\\") { return "contains a path separator" }
            if name == "." || name == ".." || name.contains("..") { return "contains \"..\"" }
            if name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) { return "contains a control character" }
            return nil
        }
    }

    /// One edit, as a recipe writes it. Ranges and times are those of the command line
    /// (`3.2-5.0`, `1:00-end`) or percentages of the timeline's duration when the edit is
    /// applied (`25%-50%`; before any edit that is the movie's duration).
    public enum EditSpec: Sendable, Hashable, Codable {
        case scale(range: String, rate: Rational?, duration: String?)
        case remove(range: String)
        case insertGap(at: String, duration: String)
        case reverse(range: String)

        private enum Kind: String, CodingKey { case scale, remove, insertGap = "insert_gap", reverse }
        private enum Field: String, CodingKey { case range, rate, duration, at }

        public init(from decoder: any Decoder) throws {
            try RecipeKeys.check(decoder, known: ["scale", "remove", "insert_gap", "reverse"], in: "an edit")
            let c = try decoder.container(keyedBy: Kind.self)
            guard c.allKeys.count == 1, let kind = c.allKeys.first else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                    debugDescription: "an edit is an object with one key: scale, remove, insert_gap or reverse"))
            }
            let fields: [Kind: [Field]] = [.scale: [.range, .rate, .duration], .remove: [.range], .insertGap: [.at, .duration], .reverse: [.range]]
            try RecipeKeys.check(decoder, nested: kind.stringValue, known: fields[kind]!.map(\.stringValue), in: "a \(kind.stringValue) edit")
            let f = try c.nestedContainer(keyedBy: Field.self, forKey: kind)
            switch kind {
            case .scale:
                let rate = try f.decodeIfPresent(FlexibleRational.self, forKey: .rate)?.value
                let duration = try f.decodeIfPresent(FlexibleText.self, forKey: .duration)?.text
                guard (rate == nil) != (duration == nil) else {
                    throw DecodingError.dataCorrupted(.init(codingPath: f.codingPath,
                        debugDescription: "a scale edit needs exactly one of rate and duration"))
                }
                self = .scale(range: try f.decode(String.self, forKey: .range), rate: rate, duration: duration)
            case .remove:
                self = .remove(range: try f.decode(String.self, forKey: .range))
            case .reverse:
                self = .reverse(range: try f.decode(String.self, forKey: .range))
            case .insertGap:
                self = .insertGap(at: try f.decode(FlexibleText.self, forKey: .at).text,
                                  duration: try f.decode(FlexibleText.self, forKey: .duration).text)
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Kind.self)
            switch self {
            case .scale(let range, let rate, let duration):
                var f = c.nestedContainer(keyedBy: Field.self, forKey: .scale)
                try f.encode(range, forKey: .range)
                try f.encodeIfPresent(rate, forKey: .rate)
                try f.encodeIfPresent(duration, forKey: .duration)
            case .remove(let range):
                var f = c.nestedContainer(keyedBy: Field.self, forKey: .remove)
                try f.encode(range, forKey: .range)
            case .reverse(let range):
                var f = c.nestedContainer(keyedBy: Field.self, forKey: .reverse)
                try f.encode(range, forKey: .range)
            case .insertGap(let at, let duration):
                var f = c.nestedContainer(keyedBy: Field.self, forKey: .insertGap)
                try f.encode(at, forKey: .at)
                try f.encode(duration, forKey: .duration)
            }
        }

        /// The exact edit on a timeline that is `timelineEnd` long.
        public func resolved(timelineEnd: Time) throws(CompositionError) -> Edit {
            switch self {
            case .scale(let range, let rate, let duration):
                let r = try BatchRecipe.range(range, timelineEnd: timelineEnd)
                if let rate { return try Edit.scale(range: r, rate: rate) }
                let d = try BatchRecipe.time(duration ?? "", timelineEnd: timelineEnd)
                return .scale(range: r, toDuration: d)
            case .remove(let range):
                let r = try BatchRecipe.range(range, timelineEnd: timelineEnd)
                guard r.start > .zero || r.end < timelineEnd else {
                    throw .invalidRange("range \(range) is the whole timeline; removing it would leave nothing")
                }
                return .remove(range: r)
            case .reverse(let range):
                return .reverse(range: try BatchRecipe.range(range, timelineEnd: timelineEnd))
            case .insertGap(let at, let duration):
                let start = try BatchRecipe.time(at, timelineEnd: timelineEnd)
                let length = try BatchRecipe.time(duration, timelineEnd: timelineEnd)
                guard start <= timelineEnd else {
                    throw .beyondTimeline("cannot insert a gap at \(start): the timeline ends at \(timelineEnd)")
                }
                return .insertGap(range: try TimeRange(start: start, duration: length))
            }
        }
    }

    private enum CodingKeys: String, CodingKey, CaseIterable { case outputDirectory = "output_dir", export, edits, movies }

    public init(from decoder: any Decoder) throws {
        try RecipeKeys.check(decoder, known: CodingKeys.allCases.map(\.stringValue), in: "a recipe")
        let c = try decoder.container(keyedBy: CodingKeys.self)
        outputDirectory = try c.decodeIfPresent(String.self, forKey: .outputDirectory)
        if let outputDirectory, let why = Self.notAnOutputFolder(outputDirectory) {
            throw DecodingError.dataCorruptedError(forKey: .outputDirectory, in: c, debugDescription: "\"output_dir\": \(ExportSpec.quoted(outputDirectory)) \(why); it is a folder inside the recipe's folder, such as \"out\"")
        }
        export = try c.decodeIfPresent(ExportSpec.self, forKey: .export) ?? ExportSpec()
        edits = try c.decodeIfPresent([EditSpec].self, forKey: .edits) ?? []
        movies = try c.decode([MovieSpec].self, forKey: .movies)
    }

    /// Why `path` cannot be a recipe's `output_dir`, or nil. A recipe may come from someone
    /// else, so its outputs stay inside its own folder: relative, no `..`, no `~`.
    public static func notAnOutputFolder(_ path: String) -> String? {
        if path.isEmpty { return "is empty" }
        if path.hasPrefix("/") { return "is an absolute path" }
        if path.hasPrefix("~") { return "starts with ~" }
        if path.split(separator: "/").contains("..") { return "contains \"..\"" }
        if path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) { return "contains a control character" }
        return nil
    }

    /// Parses a recipe, with a message that says where it is wrong.
    public static func parse(_ data: Data, path: String) throws(ProjectError) -> BatchRecipe {
        do {
            return try JSONDecoder().decode(BatchRecipe.self, from: data)
        } catch let DecodingError.dataCorrupted(context) {
            throw .invalidRecipe(path: path, reason: "\(where_(context.codingPath))\(context.debugDescription)")
        } catch let DecodingError.keyNotFound(key, context) {
            throw .invalidRecipe(path: path, reason: "\(where_(context.codingPath))\"\(key.stringValue)\" is missing")
        } catch let DecodingError.typeMismatch(_, context) {
            throw .invalidRecipe(path: path, reason: "\(where_(context.codingPath))\(context.debugDescription)")
        } catch {
            throw .invalidRecipe(path: path, reason: "\(error)")
        }
    }

    private static func where_(_ path: [any CodingKey]) -> String {
        guard !path.isEmpty else { return "" }
        return "at " + path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined() + ": "
    }

    /// A time as the command line writes it (``TimeExpression``: seconds, units, timecodes,
    /// `end`, `end-2s`, `25%`), resolved against a timeline of `timelineEnd`.
    public static func time(_ text: String, timelineEnd: Time) throws(CompositionError) -> Time {
        try TimeExpression(parsing: text).resolved(timelineEnd: timelineEnd)
    }

    /// `A-B` as the command line writes it (``RangeExpression``): `3.2-5.0`, `25%-50%`, `90%-end`.
    public static func range(_ text: String, timelineEnd: Time) throws(CompositionError) -> TimeRange {
        try RangeExpression(parsing: text).resolved(timelineEnd: timelineEnd)
    }

    /// A hex SHA-256 of `data`, for recognising a job that has already been done.
    public static func digest(_ data: Data) -> String {
        sha256Hex(of: data)
    }
}

/// A rate written as a string (`"1/4"`, `"0.25"`) or a JSON number (`0.25`, read as the
/// decimal it spells).
struct FlexibleRational: Decodable {
    let value: Rational
    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let text: String
        if let s = try? c.decode(String.self) { text = s } else { text = "\(try c.decode(Double.self))" }
        do { value = try Rational(parsing: text) } catch {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: error.description)
        }
    }
}

/// A time written as a string (`"3.2"`, `"25%"`) or a JSON number (`3.2`).
struct FlexibleText: Decodable {
    let text: String
    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let s = try? c.decode(String.self) { text = s } else { text = "\(try c.decode(Double.self))" }
    }
}
