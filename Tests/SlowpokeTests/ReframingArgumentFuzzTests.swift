import Foundation
import TestSupport
import Testing

/// `export --crop` and `--zoom` given what a stranger (or a script gone wrong) might pass:
/// random strings, huge, negative, odd and fractional values, missing and extra parts, NaN
/// and infinity. Every such argument is refused with exit 64 before any work: the document is
/// not read for it and nothing is written (``FuzzRun``'s sandbox checks every file). An
/// argument that happens to be a good crop is skipped. `make test` runs 40 cases, `make
/// test-long` 200.
@Suite struct ReframingArgumentFuzzTests {
    /// Whether `text` is a crop slowpoke must take (the parse the refusal is checked against,
    /// written from the documented form: W:H[:X:Y], whole pixels, even sides up to 32768).
    static func isGoodCrop(_ text: String) -> Bool {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2 || parts.count == 4, parts.allSatisfy({ $0 != nil }) else { return false }
        let v = parts.map { $0! }
        return v[0] > 0 && v[1] > 0 && v.allSatisfy { $0 >= 0 && $0 <= 32768 } && v[0] % 2 == 0 && v[1] % 2 == 0
    }

    static func randomCrop(_ m: inout HostileMutator) -> String {
        let numbers = ["0", "-2", "3", "161", "2", "40000", "99999999999999999999", "1.5", "1e3", "0x10", "", " ", "+", "-0", "nan", "٣", "２"]
        switch m.below(4) {
        case 0:
            // Printable bytes and the separators, at random.
            let alphabet = Array("0123456789:-+. x,abc/\\%$'\"") + ["é", "\u{0}", "\n"]
            return String((0..<m.below(12)).map { _ in m.pick(alphabet) })
        case 1: return (0..<m.pick([1, 2, 3, 4, 5, 6])).map { _ in m.pick(numbers) }.joined(separator: ":")
        case 2: return "\(m.pick(["2", "4", "3", "-4", "40000"])):\(m.pick(["2", "5", "0", "-2", "32770"]))"
        default: return "160:120:\(m.pick(["-2", "40000", "1.0", "x", ""])):\(m.pick(["0", "-1", "99999999999999999999"]))"
        }
    }

    @Test func badCropsAndZoomsAreRefusedBeforeAnyWork() throws {
        let run = try FuzzRun(kind: "reframing-arguments", defaultCases: TestTier.count(40, long: 200))
        let template = try TemporaryFolder("reframing-fuzz-template")
        try template.copy(media: "clip60.mp4", as: "clip.mp4")
        #expect(try TestSupport.run(TestSupport.slowpoke, ["open", "clip.mp4"], in: template.url).status == 0)
        let zooms = ["nan", "-nan", "inf", "-inf", "0", "-1", "0.999", "8.0001", "9", "1e308", "-0", "abc", "", "1,5", "0x", "2e"]
        var refused = 0
        try run.each(minimum: run.seeds.count * 3 / 4) { mutator, sandbox in
            for file in ["clip.mp4", "clip.slowpoke"] {
                try FileManager.default.copyItem(at: template.file(file), to: sandbox.work.appendingPathComponent(file))
            }
            let value: [String]
            if mutator.below(3) == 0 {
                value = ["--zoom", mutator.pick(zooms)]
            } else {
                let crop = Self.randomCrop(&mutator)
                guard !Self.isGoodCrop(crop), !crop.contains("\u{0}") else { return nil }
                value = ["--crop", crop]
            }
            let fps = mutator.below(2) == 0 ? ["--fps", "30"] : []
            var fuzzCase = FuzzCase(arguments: ["export", "-o", "out.mp4", "--progress", "none"] + fps + value,
                                    input: Data(value[1].utf8), inputName: "argument.txt", outputs: [])
            fuzzCase.verdict = { outcome in
                guard outcome.status == 64 else { return "was not refused as a bad argument: exit \(outcome.status)" }
                refused += 1
                return outcome.seconds < 5 ? nil : "took \(outcome.seconds) s to refuse"
            }
            return fuzzCase
        }
        #expect(refused >= run.seeds.count * 3 / 4, "\(refused) refused")
    }

    /// A well-formed crop that does not fit the 1280x720 picture: wider or taller than it (W:H,
    /// centred, or W:H:X:Y), or reaching past its right or bottom edge. Each is refused as a bad
    /// argument (exit 64) once the movie is opened, before any work (well within the 5 s a
    /// refusal may take, and nothing written), naming the picture's size and a crop that fits.
    @Test func cropsThatDoNotFitThePictureAreRefusedBeforeAnyWork() throws {
        let run = try FuzzRun(kind: "reframing-misfits", defaultCases: TestTier.count(12, long: 60))
        let template = try TemporaryFolder("reframing-misfit-template")
        try template.copy(media: "clip60.mp4", as: "clip.mp4")
        #expect(try TestSupport.run(TestSupport.slowpoke, ["open", "clip.mp4"], in: template.url).status == 0)
        let (width, height) = (1280, 720)
        var refused = 0
        try run.each(minimum: run.seeds.count) { m, sandbox in
            for file in ["clip.mp4", "clip.slowpoke"] {
                try FileManager.default.copyItem(at: template.file(file), to: sandbox.work.appendingPathComponent(file))
            }
            func even(_ range: ClosedRange<Int>) -> Int { (range.lowerBound / 2 + m.below((range.upperBound - range.lowerBound) / 2 + 1)) * 2 }
            let crop: String
            switch m.below(4) {
            case 0: crop = "\(even(1282...32768)):\(even(2...720))"
            case 1: let w = even(2...1280); crop = "\(w):\(even(2...720)):\(width - w + 1 + m.below(2000)):0"
            case 2: let h = even(2...720); crop = "\(even(2...1280)):\(h):0:\(height - h + 1 + m.below(2000))"
            default: crop = "\(even(1282...32768)):\(even(722...32768)):\(m.below(100)):\(m.below(100))"
            }
            let fps = m.below(2) == 0 ? ["--fps", "30"] : []
            var fuzzCase = FuzzCase(arguments: ["export", "-o", "out.mp4", "--progress", "none"] + fps + ["--crop", crop],
                                    input: Data(crop.utf8), inputName: "argument.txt", outputs: [])
            fuzzCase.verdict = { outcome in
                guard outcome.status == 64 else { return "--crop \(crop) was not refused as a bad argument: exit \(outcome.status): \(outcome.stderr)" }
                guard outcome.stderr.contains("the \(width)x\(height) picture") else { return "the refusal does not name the picture's size: \(outcome.stderr)" }
                // The crop it offers fits, checked here from the documented form.
                guard let offered = outcome.stderr.split(separator: "such as --crop ").last?.split(whereSeparator: { $0 == "\n" || $0 == " " }).first else {
                    return "the refusal offers no crop: \(outcome.stderr)"
                }
                let v = offered.split(separator: ":").compactMap { Int($0) }
                let fits = (v.count == 2 && v[0] <= width && v[1] <= height) || (v.count == 4 && v[0] + v[2] <= width && v[1] + v[3] <= height)
                guard fits, v.allSatisfy({ $0 >= 0 }), v[0] % 2 == 0, v[1] % 2 == 0 else { return "the crop offered, \(offered), does not fit" }
                refused += 1
                return outcome.seconds < 5 ? nil : "took \(outcome.seconds) s to refuse"
            }
            return fuzzCase
        }
        #expect(refused == run.seeds.count, "\(refused) of \(run.seeds.count) refused")
    }
}
