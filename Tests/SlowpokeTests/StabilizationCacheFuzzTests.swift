import Foundation
import TestSupport
import Testing

/// The stabilization analysis kept beside the document (`clip.slowpoke-stab/*.trf`) is an input
/// anyone who can write the folder controls. Seeded cases replace a good analysis with a
/// truncated, bit-flipped, oversized, another movie's, or forged one (sealed with a correct
/// checksum around lines libvidstab's grammar does not allow), a symbolic link (to a file
/// outside, or dangling), a FIFO or a folder, or make the cache folder a link to a folder
/// outside, and run `export --fps 30 --stabilize`. Besides ``FuzzRun``'s checks (no crash, no
/// hang, nothing written but the output and the analysis, nothing outside touched), every case
/// must be analysed again (the file left is a regular file sealed for this movie) or refused
/// with a fact (a folder where the analysis goes, a linked cache folder: exit 1, nothing
/// written). `make test` runs 9 cases, `make test-long` 45.
@Suite(.serialized) struct StabilizationCacheFuzzTests {
    /// A 1 s 320x240 clip with a fixed modification time (part of the analysis's name), its
    /// document, and the analysis a first export kept; the analysis's name.
    static func template() throws -> (TemporaryFolder, String) {
        let folder = try TemporaryFolder("stab-cache-template")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=1",
                                                   "-vf", "crop=288:216:16+8*sin(n):12+6*cos(1.7*n),scale=320:240",
                                                   "-c:v", "libx264", "-pix_fmt", "yuv420p", folder.file("clip.mp4").path])
        try #require(made.status == 0, "\(made.stderr)")
        try Self.pinDate(folder.file("clip.mp4"))
        for arguments in [["open", "clip.mp4"], ["export", "--fps", "30", "--stabilize", "-o", "first.mp4", "--progress", "none"]] {
            let run = try TestSupport.run(TestSupport.slowpoke, arguments, in: folder.url)
            try #require(run.status == 0, "\(arguments): \(run.stderr)")
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.file("clip.slowpoke-stab").path)
        return (folder, try #require(names.first { $0.hasSuffix(".trf") }, "\(names)"))
    }

    static func pinDate(_ file: URL) throws {
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_700_000_000)], ofItemAtPath: file.path)
    }

    /// The CRC-32 (ISO 3309) the seal holds.
    static func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            c ^= UInt32(byte)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return c ^ 0xFFFF_FFFF
    }

    /// `good` with its body replaced by `body` and sealed again with a correct checksum.
    static func forged(_ good: String, body: String) -> Data {
        let lines = good.split(separator: "\n", omittingEmptySubsequences: false)
        let key = lines[1].split(separator: " ").dropLast().joined(separator: " ")
        return Data((lines[0] + "\n" + key + " crc32=\(crc32(Array(body.utf8)))\n" + body).utf8)
    }

    /// Lines libvidstab's grammar does not allow, for frame `k`.
    static func forgeries(_ k: Int) -> [String] {
        ["Frame \(k) (List 1 [(LM 99999999 0 1 1 32 0.5 0.5)])", "Frame \(k) (List 2 [(LM 0 0 1 1 32 0.5 0.5)])",
         "Frame \(k) (List 1 [(LM 0 0 1 1 0 0.5 0.5)])", "Frame \(k) (List 1 [(LM 0 0 1 1 32 nan 0.5)])",
         "Frame \(k) (List 0 [])%n%n%s%s", "Frame \(k) (List 1 [(LM 0 0 1 1 32 0.5 0.5),])", "Frame \(k + 1) (List 0 [])",
         "# a comment among the frames"]
    }

    /// The good analysis's body (after the seal) with one frame's line replaced by a forgery.
    static func forgedBody(_ good: String, _ m: inout HostileMutator) -> String {
        var lines = good.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(2).map(String.init)
        let frames = lines.indices.filter { lines[$0].hasPrefix("Frame ") }
        let at = frames[m.below(frames.count)]
        lines[at] = m.pick(forgeries(frames.firstIndex(of: at)! + 1))
        return lines.joined(separator: "\n")
    }

    @Test func badAnalysesAreRedoneOrRefused() throws {
        let run = try FuzzRun(kind: "stabilization-cache", defaultCases: TestTier.count(9, long: 45))
        let (template, name) = try Self.template()
        let good = try Data(contentsOf: template.file("clip.slowpoke-stab/\(name)"))
        let goodText = String(decoding: good, as: UTF8.self)
        // Every kind in turn, so that the quick tier's nine cases cover them all.
        var next = 0
        try run.each { mutator, sandbox in
            let kind = next % 9
            next += 1
            let work = sandbox.work
            for file in ["clip.mp4", "clip.slowpoke"] {
                try FileManager.default.copyItem(at: template.file(file), to: work.appendingPathComponent(file))
            }
            try Self.pinDate(work.appendingPathComponent("clip.mp4"))
            let cache = work.appendingPathComponent("clip.slowpoke-stab"), analysis = cache.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
            var input = Data()
            var refusal: String?
            switch kind {
            case 0: input = good.prefix(mutator.below(good.count - 1))
            // An odd number of flips always changes a bit.
            case 1: input = mutator.flipBits(good, count: 1 + 2 * mutator.below(2))
            case 2: input = good + Data(repeating: 0x20, count: 2 << 20)
            case 3: input = Data(goodText.replacingOccurrences(of: "movie=", with: "movie=1\(mutator.below(9))").utf8)
            case 4: input = Self.forged(goodText, body: Self.forgedBody(goodText, &mutator))
            case 5:
                let target = mutator.pick(["../../outside/precious.slowpoke", sandbox.outside.appendingPathComponent("precious.mp4").path, "nowhere.trf"])
                try FileManager.default.createSymbolicLink(atPath: analysis.path, withDestinationPath: target)
            case 6: #expect(mkfifo(analysis.path, 0o644) == 0)
            case 7:
                try FileManager.default.createDirectory(at: analysis, withIntermediateDirectories: true)
                refusal = "is a folder"
            default:
                try FileManager.default.removeItem(at: cache)
                try FileManager.default.createSymbolicLink(atPath: cache.path, withDestinationPath: sandbox.outside.path)
                refusal = "which is a symbolic link"
            }
            if [0, 1, 2, 3, 4].contains(kind) { try input.write(to: analysis) }
            var fuzzCase = FuzzCase(arguments: ["export", "--fps", "30", "--stabilize", "-o", "out.mp4", "--progress", "none"],
                                    input: input, inputName: "analysis-\(kind).trf",
                                    outputs: refusal == nil ? ["work/out.mp4", "work/clip.slowpoke-stab/\(name)"] : [])
            fuzzCase.verdict = { outcome in
                if let refusal {
                    return outcome.status == 1 && outcome.stderr.contains(refusal) ? nil : "was not refused with \"\(refusal)\": exit \(outcome.status)"
                }
                guard outcome.status == 0 else { return "failed instead of analysing again: exit \(outcome.status)" }
                // Analysed again: a regular file, sealed for this movie, in place of what was there.
                var info = stat()
                guard lstat(analysis.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
                      let text = try? String(contentsOf: analysis, encoding: .utf8) else { return "left no regular analysis file" }
                let lines = text.split(separator: "\n")
                return lines.count > 30 && lines[0] == "VID.STAB 1" && lines[1] == goodText.split(separator: "\n")[1]
                    ? nil : "left an analysis that is not this movie's: \(lines.prefix(2))"
            }
            return fuzzCase
        }
    }
}
