public import Foundation

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

    /// The digest recorded beside the output by the run that wrote it, if any.
    public func recordedDigest() -> String? {
        (try? String(contentsOf: marker, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Records `digest` beside the output, so that a rerun skips the job while nothing changes.
    public func record(_ digest: String) throws {
        do {
            try Data((digest + "\n").utf8).write(to: marker, options: .atomic)
        } catch {
            throw BatchError.job("\(output.lastPathComponent) was written, but \(marker.lastPathComponent) recording it could not be (\(error.localizedDescription)); the next run will make it again")
        }
    }
}

/// What became of a job.
public enum BatchOutcome: Sendable {
    /// Exported, in `seconds`; `detail` says what was written, `warnings` what the export noted.
    case done(seconds: Double, detail: String, warnings: [String])
    /// Its output is complete and was made from the same recipe entry.
    case skipped
    case failed(String)
    /// Not started: the batch was interrupted first.
    case notRun
}

/// Why a batch job failed, beyond the errors of the document, the edits and the export.
public enum BatchError: Error, Equatable, Sendable, CustomStringConvertible {
    case job(String)

    public var description: String {
        switch self {
        case .job(let message): message
        }
    }
}

extension BatchError: LocalizedError {
    public var errorDescription: String? { description }
}
