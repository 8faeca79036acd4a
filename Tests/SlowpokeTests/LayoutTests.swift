import Foundation
import TestSupport
import Testing

/// The layout rules of docs/architecture.md hold for every source file: no file over 400 lines,
/// no function over 80, no initialiser over 10 parameters, one command per CLI file.
@Suite struct LayoutTests {
    @Test func everySourceFileKeepsTheLayoutRules() throws {
        let check = try TestSupport.tool("python3", [TestSupport.root.appendingPathComponent("tools/layout-check.py").path])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        // The checker read the tree: a planted breach is found.
        let folder = try TemporaryFolder("layout")
        let sources = folder.url.appendingPathComponent("Sources/slowpoke")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        let body = String(repeating: "    _ = 1\n", count: 81) + "}\n"
        // Plain, with a default closure argument and a shift in the signature, and after a
        // protocol requirement without a body: each long body is measured from its own start.
        let long = "func tooLong() {\n" + body
            + "protocol P {\n    func required(_ x: Int)\n}\n"
            + "func withClosure(mask: Int = 1 << 4,\n                 progress: @escaping (Double) -> Void = { _ in }) {\n" + body
        try long.write(to: sources.appendingPathComponent("Long.swift"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("tools"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: TestSupport.root.appendingPathComponent("tools/layout-check.py"),
                                         to: folder.url.appendingPathComponent("tools/layout-check.py"))
        let planted = try TestSupport.tool("python3", [folder.url.appendingPathComponent("tools/layout-check.py").path])
        #expect(planted.status == 1 && planted.stdout.contains("Long.swift:1: func tooLong is 83 lines"), "\(planted.stdout)")
        #expect(planted.stdout.contains("Long.swift:87: func withClosure is 84 lines"), "\(planted.stdout)")
        #expect(!planted.stdout.contains("func required"), "\(planted.stdout)")
    }
}
