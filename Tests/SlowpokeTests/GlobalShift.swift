import Foundation
import TestSupport
import Testing

/// The global translation between consecutive grey pictures, found by block matching: the mean
/// absolute difference over the middle of the picture, searched coarse (a quarter size, ±12 px
/// there, every second pixel) then fine (±3 px, every second pixel), with a parabola through the
/// best and its neighbours for the fraction. A shift `d` is such that `b(p) ≈ a(p + d)`.
///
/// The matching is Tests/Measures/global-shift.c, compiled with optimisation once per test
/// process: the same arithmetic in Swift took some 170 ms a pair in a debug build (four passes
/// were 60 of StabilizeTests' 74 s of CPU); the C program gives the same shifts, bit for bit
/// (checked on the suite's clips when it replaced the Swift), in under 3 ms a pair.
enum GlobalShift {
    /// The shifts between each picture of `file` (packed 8-bit grey pictures of `width` x
    /// `height`) and the one before.
    static func between(picturesIn file: URL, width: Int, height: Int) throws -> [(x: Double, y: Double)] {
        let run = try TestSupport.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "'\(try program().path)' \(width) \(height) < '\(file.path)'"])
        try #require(run.status == 0, "global-shift: \(run.stderr)")
        return run.stdout.split(separator: "\n").map { line in
            let values = line.split(separator: " ").compactMap { Double($0) }
            return values.count == 2 ? (values[0], values[1]) : (.nan, .nan)
        }
    }

    /// The shift between two packed 8-bit grey pictures of `width` x `height` (`b` against `a`).
    static func between(_ a: [UInt8], _ b: [UInt8], width: Int, height: Int) throws -> (x: Double, y: Double) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("global-shift-\(UUID().uuidString).gray")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(a + b).write(to: file)
        let shifts = try between(picturesIn: file, width: width, height: height)
        try #require(shifts.count == 1, "global-shift gave \(shifts.count) shifts for one pair")
        return shifts[0]
    }

    /// The matching program, compiled on first use.
    private static func program() throws -> URL {
        let source = TestSupport.root.appendingPathComponent("Tests/Measures/global-shift.c")
        let flags = ["-O2", "-ffp-contract=off"]
        return try GeneratedMedia.shared(["cc"] + flags + [source.path], extension: "") { binary in
            let built = try TestSupport.tool("cc", flags + ["-o", binary.path, source.path])
            try #require(built.status == 0, "building the block matcher: \(built.stderr)")
        }
    }
}
