import Foundation
import Testing
import TestSupport

/// Libraries state facts; only the command line names its flags (issue 53, item 3). A batch
/// recipe has no `--fps`, so advice in flags from a library would mislead a batch's user: the
/// CLI (`FlagAdvice`) and the batch (`RecipeAdvice`) each word a library's ``Remedy`` themselves.
@Suite struct LibraryFlagTests {
    /// Literals the scan lets through, by file name (wherever the file moves) and text. Each
    /// is in a file this change could not edit and says why.
    static let allowed: [(file: String, text: String)] = []

    /// Every Swift string literal under Sources/, outside Sources/slowpoke, holds no `--`
    /// followed by a letter; a failure names the file and line.
    @Test func noLibraryStringNamesAFlag() throws {
        let sources = TestSupport.root.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)!
            .compactMap { $0 as? URL }
            .filter { $0.pathExtension == "swift" && !$0.path.contains("/Sources/slowpoke/") }
        var literals = 0, allowedSeen = 0
        for file in files {
            let (hits, count) = StringLiteralScanner.flags(in: try String(contentsOf: file, encoding: .utf8))
            literals += count
            for hit in hits {
                let relative = file.path.replacingOccurrences(of: TestSupport.root.path + "/", with: "")
                if Self.allowed.contains(where: { $0.file == file.lastPathComponent && $0.text == hit.text }) {
                    allowedSeen += 1
                    continue
                }
                Issue.record("\(relative):\(hit.line) names the flag \(hit.text) in a string; state the fact and give the front ends a Remedy")
            }
        }
        // The scan read the libraries, not an empty or moved folder.
        #expect(files.count >= 200, "scanned only \(files.count) files")
        #expect(literals >= 2000, "read only \(literals) string literals")
        #expect(allowedSeen <= Self.allowed.count)
    }

    /// The scanner finds a flag in every kind of literal and nowhere else.
    @Test func scannerSeesEveryLiteral() {
        let source = #"""
        // a comment naming --fps is not a literal
        /* nor is --frames /* nested --codec */ here */
        let a = "export with --fps"
        let b = "\(f("--keyframe-cuts")) and \(x)"
        let c = #"raw --force \(not) "quoted" "#
        let d = """
            multi-line
            then --movie
            """
        let e = "a -- b, x--1, ---" + "a\"--quoted"
        """#
        let (hits, literals) = StringLiteralScanner.flags(in: source)
        #expect(hits == [.init(line: 3, text: "--fps"), .init(line: 4, text: "--keyframe-cuts"), .init(line: 5, text: "--force"),
                         .init(line: 8, text: "--movie"), .init(line: 10, text: "--quoted")], "\(hits)")
        #expect(literals == 7)
    }
}
