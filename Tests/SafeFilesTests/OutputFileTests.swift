import Foundation
import Testing
import SafeFiles
import TestSupport

/// Each rule of the one writer, on real files: what it refuses, what it keeps, what it leaves.
@Suite struct OutputFileTests {
    private func write(_ text: String, _ url: URL) throws { try Data(text.utf8).write(to: url) }
    private func read(_ url: URL) -> String? { try? String(contentsOf: url, encoding: .utf8) }
    private func leftovers(_ folder: TemporaryFolder) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.contains("slowpoke-tmp") }
    }

    @Test func contentAppearsOnlyOnCommit() throws {
        let folder = try TemporaryFolder("out")
        let target = folder.file("a.txt")
        let file = try OutputFile(target, replacing: false)
        try file.write(Data("hello".utf8))
        #expect(!FileManager.default.fileExists(atPath: target.path))
        #expect(file.temporary.deletingLastPathComponent().path == folder.url.standardizedFileURL.path)
        try file.commit()
        #expect(read(target) == "hello")
        #expect(try leftovers(folder).isEmpty)
    }

    @Test func discardAndDeinitLeaveNothing() throws {
        let folder = try TemporaryFolder("out")
        do {
            let file = try OutputFile(folder.file("a.txt"), replacing: false)
            try file.write(Data("x".utf8))
            #expect(try leftovers(folder).count == 1)
        }
        #expect(try leftovers(folder).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: folder.file("a.txt").path))
    }

    @Test func temporaryNamesAreUnpredictable() throws {
        let folder = try TemporaryFolder("out")
        let names = try (0..<20).map { _ in try OutputFile(folder.file("a.txt"), replacing: false).temporary.lastPathComponent }
        #expect(Set(names).count == 20)
    }

    @Test func existingFileIsRefusedUnlessReplacing() throws {
        let folder = try TemporaryFolder("out")
        let target = folder.file("a.txt")
        try write("old", target)
        #expect(throws: SafeFileError.exists(path: target.path)) { try OutputFile(target, replacing: false) }
        try OutputFile.write(Data("new".utf8), to: target, replacing: true)
        #expect(read(target) == "new")
    }

    @Test func aFileThatAppearsMeanwhileIsNotReplaced() throws {
        let folder = try TemporaryFolder("out")
        let target = folder.file("a.txt")
        let file = try OutputFile(target, replacing: false)
        try write("theirs", target)
        #expect(throws: SafeFileError.appeared(path: target.path)) { try file.commit() }
        #expect(read(target) == "theirs")
        #expect(try leftovers(folder).isEmpty)
    }

    /// The same file by another name: a hard link, a symbolic link, `./`, `../x/`.
    @Test(arguments: ["hard", "symbolic", "dot", "parent"])
    func anInputIsRefusedByIdentity(_ alias: String) throws {
        let folder = try TemporaryFolder("out")
        let movie = folder.file("clip.mp4")
        try write("movie", movie)
        let target: URL
        switch alias {
        case "hard":
            target = folder.file("other.mp4")
            try FileManager.default.linkItem(at: movie, to: target)
        case "symbolic":
            target = folder.file("link.mp4")
            try FileManager.default.createSymbolicLink(at: target, withDestinationURL: movie)
        case "dot": target = URL(fileURLWithPath: folder.url.path + "/./clip.mp4")
        default: target = URL(fileURLWithPath: folder.url.path + "/../" + folder.url.lastPathComponent + "/clip.mp4")
        }
        #expect(throws: SafeFileError.self) {
            try OutputFile.write(Data("json".utf8), to: target, replacing: true, inputs: [movie], throughLink: true)
        }
        #expect(read(movie) == "movie")
    }

    @Test func aSymbolicLinkAtTheTargetIsRefused() throws {
        let folder = try TemporaryFolder("out")
        let precious = folder.file("precious.txt")
        try write("precious", precious)
        let target = folder.file("out.txt")
        try FileManager.default.createSymbolicLink(at: target, withDestinationURL: precious)
        #expect(throws: SafeFileError.symbolicLink(path: target.path, to: precious.path)) {
            try OutputFile.write(Data("x".utf8), to: target, replacing: true)
        }
        #expect(read(precious) == "precious")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: target.path) == precious.path)
    }

    /// The document being edited may be a link: its target gets the content, the link stays, and
    /// the target keeps its mode.
    @Test func throughLinkWritesTheTargetAndKeepsTheLinkAndMode() throws {
        let folder = try TemporaryFolder("out")
        try FileManager.default.createDirectory(at: folder.file("real"), withIntermediateDirectories: true)
        let real = folder.file("real/doc.slowpoke")
        try write("v1", real)
        chmod(real.path, 0o600)
        let link = folder.file("doc.slowpoke")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "real/doc.slowpoke")
        try OutputFile.write(Data("v2".utf8), to: link, replacing: true, throughLink: true)
        #expect(read(real) == "v2")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "real/doc.slowpoke")
        var info = stat()
        #expect(stat(real.path, &info) == 0 && info.st_mode & 0o777 == 0o600)
    }

    @Test(arguments: [0o600, 0o640, 0o755] as [mode_t])
    func aReplacedFileKeepsItsMode(_ mode: mode_t) throws {
        let folder = try TemporaryFolder("out")
        let target = folder.file("a.txt")
        try write("old", target)
        chmod(target.path, mode)
        try OutputFile.write(Data("new".utf8), to: target, replacing: true)
        var info = stat()
        #expect(stat(target.path, &info) == 0 && info.st_mode & 0o777 == mode)
    }

    @Test func aNewFileGetsTheUmasksMode() throws {
        let folder = try TemporaryFolder("out")
        let target = folder.file("a.txt")
        try OutputFile.write(Data("new".utf8), to: target, replacing: false)
        let mask = umask(0o022)
        umask(mask)
        var info = stat()
        #expect(stat(target.path, &info) == 0 && info.st_mode & 0o777 == 0o666 & ~mask)
    }

    @Test func aFolderOrFIFOAtTheTargetIsRefused() throws {
        let folder = try TemporaryFolder("out")
        try FileManager.default.createDirectory(at: folder.file("dir"), withIntermediateDirectories: true)
        #expect(throws: SafeFileError.notRegularFile(path: folder.file("dir").path)) {
            try OutputFile(folder.file("dir"), replacing: true)
        }
        #expect(mkfifo(folder.file("fifo").path, 0o600) == 0)
        #expect(throws: SafeFileError.notRegularFile(path: folder.file("fifo").path)) {
            try OutputFile(folder.file("fifo"), replacing: true)
        }
        #expect(throws: SafeFileError.notRegularInput(path: folder.file("fifo").path, kind: "a named pipe")) {
            try InputFile.requireRegular(folder.file("fifo").path)
        }
    }

    /// A temporary file of a process that no longer exists goes when the same name is written
    /// again; one of a living process stays.
    @Test func staleTemporariesOfDeadProcessesAreRemoved() throws {
        let folder = try TemporaryFolder("out")
        let dead = folder.file(".a.txt.slowpoke-tmp-\(Int32.max - 7)-zz")
        let alive = folder.file(".a.txt.slowpoke-tmp-1-zz")  // init, always alive
        try write("partial", dead)
        try write("partial", alive)
        try OutputFile.write(Data("new".utf8), to: folder.file("a.txt"), replacing: false)
        #expect(!FileManager.default.fileExists(atPath: dead.path))
        #expect(FileManager.default.fileExists(atPath: alive.path))
    }
}
