import Composition
import Project
import Export
import Foundation
import Media

/// Finds the document a command works on, following the rules in `slowpoke --help`.
enum DocumentLocator {
    /// The document named by `argument`: a `.slowpoke` file, a movie (whose document is created
    /// if missing), or, when nil, the only `*.slowpoke` in the current folder.
    static func locate(_ argument: String?) throws -> URL {
        guard let argument else { return try onlyDocumentHere() }
        try refuseStandardInput(argument)
        let url = URL(fileURLWithPath: argument)
        if url.pathExtension == DocumentStore.fileExtension {
            guard FileManager.default.fileExists(atPath: url.path) else {
                throw CLIError("\(argument) does not exist; create it with `slowpoke open <movie>`")
            }
            return url
        }
        let (document, created) = try documentForMovie(url, shown: argument)
        if created { createdForThisCommand = document }
        return document
    }

    /// `-` as a movie: slowpoke reads a movie from a file it can read again, not from a pipe
    /// (`batch -` reads its recipe, and `stretch -` its sound, from standard input).
    static func refuseStandardInput(_ argument: String, what: String = "a movie") throws {
        guard argument == "-" else { return }
        throw CLIError("slowpoke reads \(what) from a file, which it reads more than once (to probe it, scan it and seek in it), not from standard input; save the stream first (`cat > clip.mp4`) and name that file")
    }

    /// A document made for a command that named a movie (`slowpoke slomo clip.mov`): if the
    /// command then fails, ``Main`` removes it, so a refused edit leaves no trace.
    nonisolated(unsafe) static var createdForThisCommand: URL?

    /// The document beside `movie`: the existing one if it belongs to this movie, or a new one.
    /// A new document plays `program` of a transport stream with several (default: the first
    /// with video).
    static func documentForMovie(_ movie: URL, shown: String, replace: Bool = false, program: Int? = nil,
                                 progress: ((Double) -> Void)? = nil) throws -> (url: URL, created: Bool) {
        guard FileManager.default.fileExists(atPath: movie.path) else {
            throw ExportError.cannotOpen(path: shown, reason: "no such file")
        }
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: movie.path, isDirectory: &isFolder), isFolder.boolValue {
            throw CLIError("\(shown) is a folder, not a movie")
        }
        let documentURL = DocumentStore.documentURL(forMovie: movie)
        if FileManager.default.fileExists(atPath: documentURL.path) && !replace {
            let existing = try DocumentStore.read(documentURL)
            let existingMovie = DocumentStore.movieURL(of: existing, at: documentURL)
            guard existingMovie.resolvingSymlinksInPath().path == movie.standardizedFileURL.resolvingSymlinksInPath().path else {
                throw CLIError("\(documentURL.lastPathComponent) belongs to \(existing.movie.path), not \(shown); open that movie, or move one of them to another folder")
            }
            return (documentURL, false)
        }
        var media = try Prober.probe(movie, progress: progress)
        if let program {
            guard let chosen = media.playing(program: program) else {
                throw CLIError("\(shown) has no program \(program): \(media.missingProgram(program) ?? "")")
            }
            media = chosen
        }
        let document = try ProjectDocument(movieURL: movie, documentURL: documentURL, media: media)
        try DocumentStore.create(document, at: documentURL, replacing: replace)
        return (documentURL, true)
    }

    private static func onlyDocumentHere() throws -> URL {
        let here = FileManager.default.currentDirectoryPath
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: here)) ?? [])
            .filter { $0.hasSuffix(".\(DocumentStore.fileExtension)") && !$0.hasPrefix(".") }
            .sorted()
        switch names.count {
        case 0:
            throw CLIError("there is no slowpoke document in this folder; start one with `slowpoke open <movie>`, or name a document")
        case 1:
            return URL(fileURLWithPath: here).appendingPathComponent(names[0])
        default:
            throw CLIError("this folder has several slowpoke documents (\(names.joined(separator: ", "))); name the one to use")
        }
    }
}
