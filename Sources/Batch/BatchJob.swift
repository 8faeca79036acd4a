public import Foundation
public import Composition
import SafeFiles

/// One movie's work in a batch, planned before anything runs (see ``BatchPlan``).
public struct BatchJob: Sendable {
    /// Its place in the plan, from 1.
    public let number: Int
    /// The movie as the recipe names it (after glob expansion).
    public let name: String
    public let movie: URL
    public let edits: [BatchRecipe.EditSpec]
    public let export: BatchRecipe.ExportSpec
    public let output: URL
    /// Why the job cannot run at all (a pattern that matched nothing, a clashing output).
    public let problem: String?

    /// Records that `output` was made from this very job, beside it: `.<output>.slowpoke-batch`.
    public var marker: URL {
        output.deletingLastPathComponent().appendingPathComponent(".\(output.lastPathComponent).slowpoke-batch")
    }

    /// A digest of everything the output depends on: the movie (path, size, modification
    /// time), the edits, the export settings and the output name. A changed recipe entry or a
    /// replaced movie gives another digest, and the job is done again. Nil when the movie
    /// cannot be looked at (the job then fails on opening it).
    public func digest() -> String? {
        struct Key: Encodable {
            let version = 1
            let movie: String
            let size: Int64
            let modified: Double
            let edits: [BatchRecipe.EditSpec]
            let export: BatchRecipe.ExportSpec
            let output: String
        }
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: movie.path) else { return nil }
        let key = Key(movie: movie.standardizedFileURL.path, size: (attributes[.size] as? NSNumber)?.int64Value ?? -1,
                      modified: (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0,
                      edits: edits, export: export, output: output.lastPathComponent)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(key) else { return nil }
        return BatchRecipe.digest(data)
    }

    /// Whether a run may skip the job: its output exists, is at least as new as its movie, and
    /// was recorded as made from this very job (see ``digest()``).
    public func isUpToDate() -> Bool {
        let fm = FileManager.default
        guard fm.fileExists(atPath: output.path), let digest = digest(), recordedDigest() == digest,
              let made = (try? fm.attributesOfItem(atPath: output.path))?[.modificationDate] as? Date,
              let changed = (try? fm.attributesOfItem(atPath: movie.path))?[.modificationDate] as? Date
        else { return false }
        return made >= changed
    }

    /// Why writing the output, or the record beside it, would reach outside the output folder,
    /// or nil. Their names are plain file names (the recipe refuses others), so only a symbolic
    /// link already in the folder can lead elsewhere; links are followed to the end, and a link
    /// to a file inside the folder (or to a folder inside it) is fine.
    public func outputEscape() -> String? {
        let folder = output.deletingLastPathComponent().path
        let root = Self.realPath(folder) ?? folder
        for file in [output, marker] {
            let name = file.lastPathComponent
            if let why = BatchRecipe.MovieSpec.notAFileName(name) { return "its output name \"\(name)\" \(why)" }
            guard let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: file.path) else { continue }
            let absolute = destination.hasPrefix("/") ? destination : folder + "/" + destination
            let parent = (absolute as NSString).deletingLastPathComponent
            let resolved = Self.realPath(absolute)
                ?? Self.realPath(parent).map { $0 + "/" + (absolute as NSString).lastPathComponent }
                ?? (absolute as NSString).standardizingPath
            if !resolved.hasPrefix(root == "/" ? "/" : root + "/") {
                return "\(name) in \(folder) is a symbolic link to \(destination), which is outside the output folder; remove the link (or give the job another \"output\")"
            }
        }
        return nil
    }

    /// `realpath(3)`: the path with every symbolic link and `.`/`..` resolved; nil if it does
    /// not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The digest recorded beside the output by the run that wrote it, if any: a finished
    /// job's digest, or `pending:<digest>` for one that was writing it (see ``journal(_:)``).
    public func recordedDigest() -> String? {
        guard let text = try? String(contentsOf: marker, encoding: .utf8) else { return nil }
        return text.split(separator: "\n").first.map(String.init)?.trimmingCharacters(in: .whitespaces)
    }

    /// Records, before the output is written, that this batch is writing it: a process killed
    /// between putting the output in place and ``record(_:)`` leaves an output the next run
    /// knows as its own (and redoes, as the record is not a finished digest), not a file it
    /// must refuse to replace. Returns what the record said before, for ``restore(_:)``.
    /// A journal that did not replace an earlier record is removed if a signal ends the
    /// process before the job does (the output it stands for is removed too).
    public func journal(_ digest: String) throws -> Journal {
        let before = recordedDigest()
        try write("pending:" + digest)
        return Journal(before: before, slot: before == nil ? Signals.removeOnSignal(marker.path) : -1)
    }

    /// What ``journal(_:)`` replaced, for ``restore(_:)`` or ``record(_:after:)``.
    public struct Journal: Sendable {
        let before: String?
        let slot: Int32
    }

    /// Puts back the record as it was before ``journal(_:)``, when the job failed.
    public func restore(_ journal: Journal) {
        Signals.forget(journal.slot)
        if let before = journal.before { try? write(before) } else { unlink(marker.path) }
    }

    /// Records `digest` once the output the journal stood for is in place.
    public func record(_ digest: String, after journal: Journal) throws {
        Signals.forget(journal.slot)
        try record(digest)
    }

    /// Records `digest` beside the output, so that a rerun skips the job while nothing changes.
    public func record(_ digest: String) throws {
        do {
            try write(digest)
        } catch {
            throw BatchError.job("\(output.lastPathComponent) was written, but \(marker.lastPathComponent) recording it could not be (\(error.localizedDescription)); the next run will make it again")
        }
    }

    private func write(_ line: String) throws {
        try OutputFile.write(Data((line + "\n").utf8), to: marker, replacing: true, inputs: [movie])
    }
}

/// What became of a job.
public enum BatchOutcome: Sendable {
    /// Exported, in `seconds`; `detail` says what was written, `warnings` what the export noted.
    case done(seconds: Double, detail: String, warnings: [String])
    /// Its output is complete and was made from the same recipe entry.
    case skipped
    /// Failed: the facts, with the batch's advice in recipe keys, and what only the command
    /// that runs the batch can ask for (replacing an output).
    case failed(Notice)
    /// Not started: the batch was interrupted first.
    case notRun
}

/// Why a batch job failed, beyond the errors of the document, the edits and the export.
public enum BatchError: Error, Equatable, Sendable, CustomStringConvertible {
    case job(String)
    /// The output is there and was not written by a batch, so it is the user's file.
    case notWrittenByBatch(output: String)

    public var description: String {
        switch self {
        case .job(let message): message
        case .notWrittenByBatch(let output): "\(output) exists and was not written by slowpoke batch; remove it"
        }
    }
}

extension BatchError: LocalizedError {
    public var errorDescription: String? { description }
}
