import Foundation
import TestSupport
import Testing

/// Issue 34, item 4: a number read from a file or the command line that slowpoke cannot use is
/// an error naming the file and the field, never a trap (exit 132), a hang, or NaN in the output.
@Suite struct BrokenNumberTests {
    /// Runs `slowpoke` in `folder` with a 20 s limit, so that a hang fails the test instead of
    /// stalling the suite.
    func bounded(_ arguments: [String], in folder: TemporaryFolder) throws -> BoundedRun.Outcome {
        try BoundedRun.run(TestSupport.slowpoke, arguments, in: folder.url, environment: [:], limit: 20)
    }

    /// A number on the command line is read whole.
    @Test(arguments: ["4/2/2", "1//2", "1/2/", "0.5x", "1/2 3"])
    func aRateWithTrailingGarbageIsAnError(rate: String) throws {
        let folder = try TemporaryFolder("broken-rate")
        try Data(WAVBytes.make(.s16, channels: 1, sampleRate: 48000, frames: 4800)).write(to: folder.file("in.wav"))
        let result = try slowpoke("stretch", "in.wav", "out.wav", "--rate", rate, in: folder)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("slowpoke: error: The value '\(rate)' is invalid for '--rate <rate>': \"\(rate)\" is not a number"),
                "\(result.stderr)")
        #expect(try folder.listing() == ["in.wav"])
    }
}
