import Foundation
import Synchronization
import TestSupport

/// Clips that ffmpeg generates once per test process: the first test to ask for a clip makes it
/// (from the ffmpeg arguments, which are its key), and every test copies it into its own
/// folder, so a suite whose tests each start from the same `lavfi` clip encodes it once. The
/// copies are the tests' own (a test may edit or delete its copy); the made clips (and the
/// helper programs made with ``shared(_:extension:make:)``) live in one folder, removed when
/// the process exits. (Here, beside the suites that use it; it moves to Tests/Support when
/// another test target needs it.)
enum GeneratedMedia {
    /// One clip: made under its lock, so two tests asking at once make it once.
    private final class Entry: Sendable {
        let made = Mutex<URL?>(nil)
    }

    private static let entries = Mutex<[[String]: Entry]>([:])
    private static let folder: URL = {
        let url = path()
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: GeneratedMedia.path()) }
        return url
    }()

    /// This process's folder of made files.
    private static func path() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("slowpoke-generated-\(getpid())")
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Copies into `folder`, as `name`, the clip `ffmpeg -v error -y <arguments> <file>` makes
    /// (made on the first call with these arguments and extension, copied on later ones).
    @discardableResult
    static func copy(_ arguments: [String], as name: String, in folder: TemporaryFolder) throws -> URL {
        let target = folder.file(name)
        try FileManager.default.copyItem(at: try made(arguments, extension: (name as NSString).pathExtension), to: target)
        return target
    }

    /// The shared clip for `arguments`, made on first use; not to be written to.
    static func made(_ arguments: [String], extension ext: String) throws -> URL {
        try shared(["ffmpeg"] + arguments, extension: ext) { file in
            let result = try TestSupport.tool("ffmpeg", ["-v", "error", "-y"] + arguments + [file.path])
            guard result.status == 0 else { throw Failure(description: "ffmpeg \(arguments.joined(separator: " ")): \(result.stderr)") }
        }
    }

    /// A file `make` writes once per process (at the path it is given) for the key `key`: a
    /// clip, or a helper program compiled for the tests. Shared: not to be written to.
    static func shared(_ key: [String], extension ext: String, make: (URL) throws -> Void) throws -> URL {
        let key = key + [ext]
        let entry = entries.withLock { table in
            if let entry = table[key] { return entry }
            let entry = Entry()
            table[key] = entry
            return entry
        }
        return try entry.made.withLock { made in
            if let made { return made }
            let file = Self.folder.appendingPathComponent(UUID().uuidString + (ext.isEmpty ? "" : ".\(ext)"))
            try make(file)
            made = file
            return file
        }
    }
}
