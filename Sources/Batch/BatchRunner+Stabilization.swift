import Foundation
import Export
import Media
import Project

extension BatchRunner {
    /// The steadying a recipe's `stabilize` and `stabilize_borders` ask for (as `export
    /// --stabilize=S --stabilize-borders b` would), or nil. The analysis is kept in
    /// `.slowpoke-stab` in the output folder, which a batch writes to, and used again by later
    /// runs (and by other jobs of the same movie) until the movie changes.
    static func stabilization(_ spec: BatchRecipe.ExportSpec, movie: URL, output: URL) throws -> Stabilization? {
        guard let strength = spec.stabilize else {
            if spec.stabilizeBorders != nil {
                throw BatchError.job("\"stabilize_borders\" says how \"stabilize\" fills the edges; set \"stabilize\" too")
            }
            return nil
        }
        let name = spec.stabilizeBorders ?? Stabilization.Borders.zoom.rawValue
        guard let borders = Stabilization.Borders(rawValue: name) else {
            throw BatchError.job("\"stabilize_borders\": \(BatchRecipe.ExportSpec.quoted(name)) is not one of \(Stabilization.Borders.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let fingerprint: Fingerprint
        do { fingerprint = try Fingerprint(of: movie) } catch { throw BatchError.job("\(error.localizedDescription)") }
        do {
            return try Stabilization(strength: strength, borders: borders, cache: cacheFolder(for: output),
                                     movieKey: Stabilization.movieKey(size: fingerprint.size, modified: fingerprint.modified,
                                                                      digest: fingerprint.sha256HeadTail))
        } catch {
            throw BatchError.job("\"stabilize\": \(error.description)")
        }
    }

    /// Where a batch keeps its stabilization analyses: `.slowpoke-stab` beside its outputs.
    static func cacheFolder(for output: URL) -> URL {
        output.deletingLastPathComponent().appendingPathComponent(".slowpoke-stab", isDirectory: true)
    }
}
