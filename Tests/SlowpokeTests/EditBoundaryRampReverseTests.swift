import Foundation
import Testing
import TestSupport

/// Issue 50 for a ramp and a reversed range: a beep just after a ramp is not heard in the
/// ramp's end, and beeps just outside a reversed range are not heard inside it, next to its
/// edges (where its own content is silent).
@Suite struct EditBoundaryRampReverseTests {
    let cases = EditBoundaryAudioTests()

    /// A WAV clip with 20 ms 1 kHz beeps starting at `beeps` (seconds), 10 s long.
    func clip(in folder: TemporaryFolder, beeps: [Double]) throws -> String {
        let on = beeps.map { "between(t,\($0),\($0 + 0.02))" }.joined(separator: "+")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "aevalsrc='if(\(on),sin(2*PI*1000*t),0)':s=48000:d=10",
                                                   "-y", folder.file("beeps.wav").path])
        try #require(made.status == 0, "\(made.stderr)")
        return "beeps.wav"
    }

    func render(_ edit: [String], beeps: [Double], algorithm: String) throws -> [Float] {
        let folder = try TemporaryFolder("edit-boundary-ramp")
        let movie = try clip(in: folder, beeps: beeps)
        for step in [["open", movie], edit, ["export", "-o", "out.wav", "--progress", "none", "--algorithm", algorithm]] {
            let result = try cases.slowpoke(step, in: folder)
            try #require(result.status == 0, "\(step) \(result.stderr)")
        }
        return try TestSupport.decodeAudio(folder.file("out.wav"))
    }

    /// The ramp 3-5 s from 1x to 1/4 lasts 2839/768 s (30 steps), so the 5.0 s beep plays at
    /// 3 + 2839/768 s; the ramp's last 50 ms stay 30 dB under it, and it starts within 2 ms.
    @Test(arguments: ["spectral", "timeDomain", "varispeed"])
    func aBeepAfterARampIsNotHeardInIt(algorithm: String) throws {
        let output = try render(["ramp", "--range", "3-5", "--from", "1", "--to", "0.25"], beeps: [1, 2, 3, 4, 5], algorithm: algorithm)
        let beep = 3 + 2839.0 / 768
        let (peak, rms, onset) = EditBoundaryAudioTests.measure(output, beep: beep, quiet: -0.05...0)
        print("ramp \(algorithm): ramp's end \(String(format: "%.1f", peak)) dB peak, \(String(format: "%.1f", rms)) dB RMS; onset \(onset.map { String(format: "%.2f ms", $0) } ?? "missing")")
        #expect(peak < -30 && rms < -30, "\(algorithm): \(peak) dB peak, \(rms) dB RMS")
        #expect(onset.map { abs($0) <= 2 } ?? false, "\(algorithm): onset \(String(describing: onset))")
    }

    /// Reversing 2.5-4.5 s with beeps at 2.46 s (ending 20 ms before it) and 4.5 s (on its end):
    /// the range's own audio next to its edges (2.5-2.55 and 4.45-4.5 s) is silent, so its first
    /// and last 50 ms must stay 30 dB under the beeps; the 4.5 s beep keeps its place.
    @Test(arguments: ["spectral", "timeDomain", "varispeed"])
    func beepsNextToAReversedRangeAreNotHeardInIt(algorithm: String) throws {
        let output = try render(["reverse", "--range", "2.5-4.5"], beeps: [2.46, 4.5], algorithm: algorithm)
        // Quiet windows relative to the 4.5 s beep: the range's last 50 ms, and its first 50 ms
        // (1.95-2.0 s before it).
        for quiet in [-0.05...0, -2.0...(-1.95)] {
            let (peak, rms, onset) = EditBoundaryAudioTests.measure(output, beep: 4.5, quiet: quiet)
            print("reverse \(algorithm) \(quiet): \(String(format: "%.1f", peak)) dB peak, \(String(format: "%.1f", rms)) dB RMS; onset \(onset.map { String(format: "%.2f ms", $0) } ?? "missing")")
            #expect(peak < -30 && rms < -30, "\(algorithm) \(quiet): \(peak) dB peak, \(rms) dB RMS")
            #expect(onset.map { abs($0) <= 2 } ?? false, "\(algorithm): onset \(String(describing: onset))")
        }
    }
}
