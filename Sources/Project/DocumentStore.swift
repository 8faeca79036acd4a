import Foundation
import SafeFiles
public import Composition

/// Reads and writes project documents safely.
///
/// - Every write goes to a temporary file in the document's folder and is renamed over the
///   document only once it is complete and synced, so a crash never leaves half a document.
/// - Writers hold an exclusive `flock` on the document's folder from reading to renaming, so two
///   slowpoke processes editing one document cannot lose each other's edits. Readers hold a
///   shared lock.
/// - A document that is corrupt, from a newer version, or whose movie is missing or changed is
///   refused with a clear error before anything is written.
public enum DocumentStore {
    public static let fileExtension = "slowpoke"

    /// `<folder>/<movie-stem>.slowpoke`, beside the movie.
    public static func documentURL(forMovie movie: URL) -> URL {
        movie.deletingPathExtension().appendingPathExtension(fileExtension)
    }

    /// The movie's location, resolved against the document's folder.
    public static func movieURL(of document: ProjectDocument, at documentURL: URL) -> URL {
        if document.movie.path.hasPrefix("/") { return URL(fileURLWithPath: document.movie.path) }
        return documentURL.deletingLastPathComponent().appendingPathComponent(document.movie.path).standardizedFileURL
    }

    /// Reads, validates and checks the document at `url` and its movie.
    public static func read(_ url: URL) throws(ProjectError) -> ProjectDocument {
        try withLock(on: url, exclusive: false) { () throws(ProjectError) in try load(url).document }
    }

    /// ``read(_:)`` that always replays the history and compares it with the stored timeline,
    /// even when the checksum matches (`slowpoke verify`), and says how the bytes compared with
    /// their checksum.
    public static func verify(_ url: URL) throws(ProjectError) -> (document: ProjectDocument, checksum: StoredTimeline.Checksum) {
        try withLock(on: url, exclusive: false) { () throws(ProjectError) in try load(url, replaying: true) }
    }

    /// Saves a new document at `url`. Unless `replacing` is true, throws
    /// ``ProjectError/documentExists(_:)`` rather than replace one.
    public static func create(_ document: ProjectDocument, at url: URL, replacing: Bool = false) throws(ProjectError) {
        try withLock(on: url, exclusive: true) { () throws(ProjectError) in
            guard replacing || !FileManager.default.fileExists(atPath: url.path) else { throw .documentExists(url.path) }
            try save(document, to: url)
        }
    }

    /// Reads the document under an exclusive lock, lets `body` change it, and saves it
    /// atomically. If `body` throws, nothing is written.
    @discardableResult
    public static func modify<Result>(_ url: URL, _ body: (inout ProjectDocument) throws(ProjectError) -> Result)
        throws(ProjectError) -> Result
    {
        try withLock(on: url, exclusive: true) { () throws(ProjectError) -> Result in
            var document = try load(url).document
            let result = try body(&document)
            try save(document, to: url)
            return result
        }
    }

    // MARK: Encoding

    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    /// The document as it is written to disk.
    public static func encode(_ document: ProjectDocument) throws(ProjectError) -> Data {
        do {
            // The history and the timeline are written in place of placeholders, an entry or a
            // segment at a time (entries read as text are copied, not decoded and encoded
            // again): the encoder alone would build a tree of every one first.
            let encoder = encoder()
            encoder.userInfo[HistoryText.placeholderKey] = true
            encoder.userInfo[TimelineText.placeholderKey] = true
            var data = try encoder.encode(document)
            data = try TimelineText.splice(document.timeline, into: data, encoder: Self.encoder())
            data = try HistoryText.splice(document.history, into: data, encoder: Self.encoder())
            data.append(0x0A)
            StoredTimeline.seal(&data)
            return data
        } catch {
            throw .io(path: document.movie.path, reason: "cannot encode the document: \(error)")
        }
    }

    /// Parses document bytes, checking the format, the version and the history.
    public static func decode(_ data: Data, path: String) throws(ProjectError) -> ProjectDocument {
        try decode(data, path: path, replaying: false).document
    }

    /// Parses document bytes, checking the format and the version, and the timeline: trusted
    /// when the checksum matches and it is plausible (see ``StoredTimeline``), else (or with
    /// `replaying`) compared with the replayed history.
    public static func decode(_ data: Data, path: String, replaying: Bool) throws(ProjectError)
        -> (document: ProjectDocument, checksum: StoredTimeline.Checksum)
    {
        if !replaying, let document = decodeLeavingHistory(data, path: path) { return (document, .matches) }
        struct Header: Decodable { let format: String?; let version: Int? }
        guard let header = try? JSONDecoder().decode(Header.self, from: data) else {
            throw .corruptDocument(path: path, reason: "it is not JSON")
        }
        guard header.format == ProjectDocument.formatName, let version = header.version else {
            throw .corruptDocument(path: path, reason: "it has no \"format\": \"slowpoke\" and \"version\"")
        }
        guard version <= ProjectDocument.currentVersion else {
            throw .newerDocument(path: path, version: version, supported: ProjectDocument.currentVersion)
        }
        guard version >= 1 else { throw .corruptDocument(path: path, reason: "version \(version) does not exist") }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let document: ProjectDocument
        do {
            document = try decoder.decode(ProjectDocument.self, from: data)
        } catch let error as DecodingError {
            throw .corruptDocument(path: path, reason: describe(error))
        } catch {
            throw .corruptDocument(path: path, reason: "\(error)")
        }
        guard document.version <= max(version, StoredTimeline.firstVersion) else {
            throw .corruptDocument(path: path, reason: "it holds \(document.version == 6 ? "several ranges edited at once" : "a reverse"), which version \(version) documents cannot hold")
        }
        let checksum = version >= StoredTimeline.firstVersion ? StoredTimeline.checksum(of: data) : .missing
        if !replaying, checksum == .matches,
           StoredTimeline.isPlausible(document.timeline, in: document.media, name: document.movie.path) {
            return (document, checksum)
        }
        let replayed: Composition
        do {
            replayed = try ProjectDocument.replay(try document.history.appliedEdits, on: document.originalTimeline())
        } catch {
            throw .corruptDocument(path: path, reason: "its edit history cannot be replayed: \(error.description)")
        }
        guard replayed == document.timeline else {
            throw .corruptDocument(path: path, reason: "its timeline does not match its edit history")
        }
        return (document, checksum)
    }

    /// The document whose checksum matches, of a version that has one and plausible, decoded without its
    /// history's entries (kept as text, see ``HistoryText``); nil for any other, which
    /// ``decode(_:path:replaying:)`` then decodes whole and checks as before.
    private static func decodeLeavingHistory(_ data: Data, path: String) -> ProjectDocument? {
        /// The header and the document in one pass over the bytes.
        struct Current: Decodable {
            enum CodingKeys: String, CodingKey { case format, version }
            let document: ProjectDocument?
            init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                guard try c.decodeIfPresent(String.self, forKey: .format) == ProjectDocument.formatName,
                      let version = try c.decodeIfPresent(Int.self, forKey: .version),
                      (StoredTimeline.firstVersion...ProjectDocument.currentVersion).contains(version) else {
                    document = nil
                    return
                }
                document = try ProjectDocument(from: decoder)
            }
        }
        guard StoredTimeline.checksum(of: data) == .matches, let (value, applied, text) = HistoryText.read(data, name: path) else {
            return nil
        }
        var rest = Data(data[..<value.lowerBound])
        rest.append(contentsOf: #"{"applied":0,"entries":[]}"#.utf8)
        rest.append(data[value.upperBound...])
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard var document = (try? decoder.decode(Current.self, from: rest))?.document,
              StoredTimeline.isPlausible(document.timeline, in: document.media, name: document.movie.path) else { return nil }
        document.replaceHistory(with: EditHistory(text: text, applied: applied))
        return document
    }

    /// What is wrong, and where: `path` leads to the value that was decoded (the coding path
    /// of `error` starts there).
    static func describe(_ error: DecodingError, under path: [String] = []) -> String {
        func where_(_ codingPath: [any CodingKey]) -> String {
            let steps = path + codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return steps.isEmpty ? "" : " at " + steps.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing \"\(key.stringValue)\"\(where_(context.codingPath))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "wrong kind of value\(where_(context.codingPath))"
        case .dataCorrupted(let context): return context.debugDescription + where_(context.codingPath)
        @unknown default: return "\(error)"
        }
    }

    // MARK: Files

    private static func load(_ url: URL, replaying: Bool = false) throws(ProjectError)
        -> (document: ProjectDocument, checksum: StoredTimeline.Checksum)
    {
        guard FileManager.default.fileExists(atPath: url.path) else { throw .io(path: url.path, reason: "no such document") }
        let data: Data
        do { data = try InputFile.read(url) } catch { throw .io(path: url.path, reason: error.description) }
        let loaded = try decode(data, path: url.lastPathComponent, replaying: replaying)
        try verifyMovie(of: loaded.document, at: url)
        return loaded
    }

    /// Throws when the document's movie is missing or no longer the content it was made from.
    public static func verifyMovie(of document: ProjectDocument, at url: URL) throws(ProjectError) {
        let movie = movieURL(of: document, at: url)
        guard FileManager.default.fileExists(atPath: movie.path) else {
            throw .movieMissing(document: url.lastPathComponent, movie: document.movie.path)
        }
        if let change = document.movie.fingerprint.change(to: try Fingerprint(of: movie)) {
            throw .movieChanged(document: url.lastPathComponent, movie: document.movie.path, detail: change)
        }
    }

    /// Saves through SafeFiles' one writer: never over the movie (a movie named `x.slowpoke`),
    /// through a document that is a symbolic link to its target (the link stays a link), with
    /// the document's mode and owner kept.
    private static func save(_ document: ProjectDocument, to url: URL) throws(ProjectError) {
        let data = try encode(document)
        do {
            try OutputFile.write(data, to: url, replacing: true, inputs: [movieURL(of: document, at: url)], throughLink: true,
                                 display: url.path)
        } catch {
            throw .io(path: url.path, reason: "cannot save: \(error.description); the previous version is unchanged")
        }
    }

    /// The document's own file: `url`, or where the symbolic link at `url` leads (so that the
    /// lock is taken on the folder the document really is in).
    private static func resolved(_ url: URL) -> URL {
        var info = stat()
        guard lstat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK, let real = realpath(url.path, nil) else { return url }
        defer { free(real) }
        return URL(fileURLWithPath: String(cString: real))
    }

    /// Runs `body` holding a lock on the document's folder (a lock on the document file itself
    /// would be lost when the atomic rename replaces it).
    private static func withLock<Result>(on url: URL, exclusive: Bool, _ body: () throws(ProjectError) -> Result)
        throws(ProjectError) -> Result
    {
        let folder = resolved(url).deletingLastPathComponent().path
        let fd = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            throw .io(path: folder, reason: "cannot open the folder: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        while flock(fd, exclusive ? LOCK_EX : LOCK_SH) != 0 {
            guard errno == EINTR else { throw .locked(url.path) }
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }

    /// `movie` relative to `folder` when it lies inside it or a parent of it, otherwise absolute.
    static func relativePath(of movie: URL, from folder: URL) -> String {
        let target = movie.standardizedFileURL.resolvingSymlinksInPath().pathComponents
        let base = folder.standardizedFileURL.resolvingSymlinksInPath().pathComponents
        var common = 0
        while common < min(target.count, base.count), target[common] == base[common] { common += 1 }
        guard common > 1 else { return movie.standardizedFileURL.path }
        let ups = Array(repeating: "..", count: base.count - common)
        return (ups + target[common...]).joined(separator: "/")
    }
}
