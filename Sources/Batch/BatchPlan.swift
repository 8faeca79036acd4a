public import Foundation
import Export
import Media
import Project

/// Expands a recipe into jobs: one per movie, one per matching file for a pattern, in recipe
/// order, each with its output resolved and checked: for clashes, and for a symbolic link that
/// would lead the write outside `output_dir` (see ``BatchJob/outputEscape()``).
public enum BatchPlan {
    /// One job per movie (per matching file for a pattern), in recipe order. Paths are relative
    /// to `base`, the recipe's folder.
    public static func jobs(for recipe: BatchRecipe, base: URL) -> [BatchJob] {
        let outputFolder = outputFolder(of: recipe, base: base)
        let folderEscape = escape(of: outputFolder, from: base)
        var jobs: [BatchJob] = []
        var outputs: [String: Int] = [:]
        for spec in recipe.movies {
            let export = recipe.export.overridden(by: spec.export)
            let edits = spec.edits ?? recipe.edits
            var matches: [(String, URL)] = []
            if spec.path.contains("*") || spec.path.contains("?") {
                matches = expand(spec.path, base: base)
                if matches.isEmpty {
                    jobs.append(BatchJob(number: jobs.count + 1, name: spec.path, movie: resolve(spec.path, base: base), edits: edits,
                                         export: export, output: outputFolder, problem: "\(spec.path) matches no file"))
                    continue
                }
            } else {
                matches = [(spec.path, resolve(spec.path, base: base))]
            }
            for (name, movie) in matches {
                let fileName = (matches.count == 1 ? spec.output : nil)
                    ?? OutputNaming.defaultMovieName(for: movie, container: export.container, encodingVideo: export.fps != nil)
                let output = outputFolder.appendingPathComponent(fileName).standardizedFileURL
                var problem: String?
                let job = BatchJob(number: jobs.count + 1, name: name, movie: movie, edits: edits, export: export, output: output, problem: nil)
                if let folderEscape {
                    problem = folderEscape
                } else if let escape = job.outputEscape() {
                    problem = escape
                } else if let earlier = outputs[output.path] {
                    problem = "its output \(fileName) is also the output of job \(earlier); give one of them an \"output\" name"
                } else {
                    outputs[output.path] = jobs.count + 1
                }
                jobs.append(BatchJob(number: jobs.count + 1, name: name, movie: movie, edits: edits, export: export,
                                     output: output, problem: problem))
            }
        }
        // An output must never be a movie the recipe reads, its own or another job's, even
        // with --force (which replaces earlier outputs, never inputs).
        let inputs = Dictionary(jobs.map { ($0.movie.resolvingSymlinksInPath().path, $0.number) }, uniquingKeysWith: { first, _ in first })
        return jobs.map { job in
            let target = job.output.resolvingSymlinksInPath().path
            guard job.problem == nil, let reader = inputs[target] else { return job }
            let whose = target == job.movie.resolvingSymlinksInPath().path ? "its own movie" : "the movie of job \(reader)"
            return BatchJob(number: job.number, name: job.name, movie: job.movie, edits: job.edits, export: job.export, output: job.output,
                            problem: "its output \(job.output.lastPathComponent) is \(whose); give it another \"output\" name")
        }
    }

    /// Where the recipe's outputs go: `output_dir` (relative, checked when the recipe was read)
    /// inside `base`, the recipe's folder, or `base` itself.
    public static func outputFolder(of recipe: BatchRecipe, base: URL) -> URL {
        recipe.outputDirectory.map { base.appendingPathComponent($0).standardizedFileURL } ?? base.standardizedFileURL
    }

    /// Why `folder` leads outside `base` once symbolic links are followed (as far as the
    /// folder exists), or nil.
    public static func escape(of folder: URL, from base: URL) -> String? {
        guard let root = BatchJob.realPath(base.path) else { return nil }
        var existing = folder.standardizedFileURL
        var rest: [String] = []
        while BatchJob.realPath(existing.path) == nil, existing.pathComponents.count > 1 {
            rest.insert(existing.lastPathComponent, at: 0)
            existing = existing.deletingLastPathComponent()
        }
        guard let real = BatchJob.realPath(existing.path) else { return nil }
        let resolved = ([real] + rest).joined(separator: "/")
        guard resolved != root, !resolved.hasPrefix(root == "/" ? "/" : root + "/") else { return nil }
        return "the output folder \(folder.path) leads outside the recipe's folder (to \(resolved), through a symbolic link)"
    }

    /// `path` (`~` expanded) against `base` unless it is absolute.
    public static func resolve(_ path: String, base: URL) -> URL {
        let expanded = NSString(string: path).expandingTildeInPath
        return (expanded.hasPrefix("/") ? URL(fileURLWithPath: expanded) : base.appendingPathComponent(expanded)).standardizedFileURL
    }

    /// The files a pattern (`clips/*.mp4`) matches, sorted, with their names as written.
    static func expand(_ pattern: String, base: URL) -> [(String, URL)] {
        let absolute = resolve(pattern, base: base).path
        var result = glob_t()
        defer { globfree(&result) }
        guard glob(absolute, 0, nil, &result) == 0 else { return [] }
        var paths: [String] = []
        for index in 0..<Int(result.gl_pathc) {
            if let p = result.gl_pathv[index] { paths.append(String(cString: p)) }
        }
        let prefix = base.standardizedFileURL.path + "/"
        return paths.sorted().map { path in
            (path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path, URL(fileURLWithPath: path))
        }
    }
}
