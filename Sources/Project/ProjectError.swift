import Foundation
public import Composition

/// What can go wrong with a project document, the movie it refers to, and the files Project
/// reads (recipes): every case but ``edit(_:)``, which carries what the composition refused.
public enum ProjectError: Error, Equatable, Sendable {
    /// An edit the composition model refused (an invalid range, a rate out of range …).
    case edit(CompositionError)
    /// The document on disk is no longer the one being worked on (another process edited it).
    case documentChanged(String)
    /// The project document could not be read as a slowpoke document.
    case corruptDocument(path: String, reason: String)
    case newerDocument(path: String, version: Int, supported: Int)
    case movieMissing(document: String, movie: String)
    case movieChanged(document: String, movie: String, detail: String)
    case documentExists(String)
    case nothingToUndo
    case nothingToRedo
    case io(path: String, reason: String)
    case locked(String)
    /// A batch recipe that is not valid JSON of the recipe's shape.
    case invalidRecipe(path: String, reason: String)

    /// `body`'s composition errors as ``edit(_:)``.
    public static func editing<T>(_ body: () throws(CompositionError) -> T) throws(ProjectError) -> T {
        do { return try body() } catch { throw .edit(error) }
    }

    /// The full sentence a user sees after `slowpoke: error: `.
    public var description: String {
        switch self {
        case .edit(let error): error.description
        case .documentChanged(let what): what
        case .corruptDocument(let path, let reason):
            "\(path) is not a readable slowpoke document (\(reason)); it was left unchanged"
        case .newerDocument(let path, let version, let supported):
            "\(path) was written by a newer slowpoke (document version \(version); this slowpoke reads up to \(supported)); upgrade slowpoke to edit it"
        case .movieMissing(let document, let movie):
            "the movie \(movie) that \(document) refers to is missing; put it back, or run `slowpoke open` on the movie to start a new document"
        case .movieChanged(let document, let movie, let detail):
            "the movie \(movie) has changed since \(document) was made (\(detail)); its edits may no longer fit"
        case .documentExists(let path): "\(path) already exists"
        case .nothingToUndo: "nothing to undo"
        case .nothingToRedo: "nothing to redo"
        case .io(let path, let reason): "\(path): \(reason)"
        case .locked(let path):
            "\(path) is being changed by another slowpoke process; try again when it has finished"
        case .invalidRecipe(let path, let reason): "\(path): not a valid recipe: \(reason)"
        }
    }
}

extension ProjectError: LocalizedError, CustomStringConvertible {
    public var errorDescription: String? { description }
}
