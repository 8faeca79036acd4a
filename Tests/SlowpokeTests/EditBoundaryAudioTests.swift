import Foundation
import Testing
import TestSupport

/// No sound crosses an edit boundary (issue 50): what a segment plays comes from its own source
/// range, so a beep just after a slowed range, just before one, or just after a cut is heard
/// once, at its place, and nothing of it (or of removed audio) sounds inside the neighbouring
/// segment. End to end on a clip with a 20 ms 1 kHz beep at each whole second, decoded by ffmpeg.
@Suite struct EditBoundaryAudioTests {
    static let sampleRate = 48000

    /// How a case's audio is checked: a beep whose place on the output timeline is known, and a
    /// window that must stay quiet next to it (seconds, relative to the beep's start).
    struct Case: CustomStringConvertible, Sendable {
        let name: String
        let wav: Bool
        let edit: [String]
        let export: [String]
        /// The beep's output time with `--exact`, and how much of the edit's added length the
        /// default export may change by fitting it to whole AAC frames (moves the beep with it).
        let beep: Double
        let moves: Bool
        /// The window that must stay quiet, relative to the beep's start.
        let quiet: ClosedRange<Double>
        var description: String { "\(name) \(export.joined(separator: " "))" }
    }

    static var cases: [Case] {
        var cases: [Case] = []
        for algorithm in ["spectral", "timeDomain", "varispeed"] {
            for exact in [false, true] {
                let export = ["--algorithm", algorithm] + (exact ? ["--exact"] : [])
                // The end side: the 5.0 s beep follows the range 3.2-5.0 slowed 4x, at 3.2 + 7.2.
                cases.append(Case(name: "after a slowed range", wav: false, edit: ["scale", "--range", "3.2-5.0", "--rate", "0.25"],
                                  export: export, beep: 10.4, moves: !exact, quiet: -0.05...0))
                // The start side: the 3.0 s beep ends 10 ms before the range 3.03-4.9 slowed 4x;
                // the range's first 50 ms must not hear it.
                cases.append(Case(name: "before a slowed range", wav: false, edit: ["scale", "--range", "3.03-4.9", "--rate", "0.25"],
                                  export: export, beep: 3.0, moves: false, quiet: 0.03...0.08))
            }
            cases.append(Case(name: "after a slowed range (wav)", wav: true, edit: ["scale", "--range", "3.2-5.0", "--rate", "0.25"],
                              export: ["--algorithm", algorithm], beep: 10.4, moves: false, quiet: -0.05...0))
            cases.append(Case(name: "before a slowed range (wav)", wav: true, edit: ["scale", "--range", "3.03-4.9", "--rate", "0.25"],
                              export: ["--algorithm", algorithm], beep: 3.0, moves: false, quiet: 0.03...0.08))
        }
        // A cut that removes the 4.0 s beep (4.0-4.98): the 5.0 s beep plays at 4.02, and the
        // removed beep's start must not be heard at the cut.
        for (wav, exact) in [(false, true), (true, false)] {
            cases.append(Case(name: "after a cut\(wav ? " (wav)" : "")", wav: wav, edit: ["remove", "--range", "4.0-4.98"],
                              export: exact ? ["--exact"] : [], beep: 4.02, moves: false, quiet: -0.05...0))
        }
        return cases
    }

    /// The clip: 10 s of 320x240 30 fps H.264 with AAC at 192 kb/s, or a 10 s WAV, with the beeps.
    func clip(in folder: TemporaryFolder, wav: Bool) throws -> String {
        let beeps = ["-f", "lavfi", "-i", "aevalsrc='if(lt(mod(t,1),0.02),sin(2*PI*1000*t),0)':s=48000:d=10"]
        let name = wav ? "beeps.wav" : "beeps.mp4"
        let arguments = wav ? beeps : ["-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=10"] + beeps
            + ["-c:v", "libx264", "-preset", "veryfast", "-g", "30", "-c:a", "aac", "-b:a", "192k"]
        let made = try TestSupport.tool("ffmpeg", ["-v", "error"] + arguments + ["-y", folder.file(name).path])
        try #require(made.status == 0, "\(made.stderr)")
        return name
    }

    func slowpoke(_ arguments: [String], in folder: TemporaryFolder) throws -> TestSupport.Result {
        try TestSupport.run(TestSupport.slowpoke, arguments, in: folder.url)
    }

    /// Level of `samples[range]` in dB relative to `reference` (peak, or RMS).
    static func decibels(_ level: Float, over reference: Float) -> Double {
        20 * log10(Double(max(level, 1e-9)) / Double(max(reference, 1e-9)))
    }

    /// The quiet window's peak and RMS relative to the beep's (in dB), and the beep's onset
    /// error (the first sample above a tenth of its peak, in ms).
    static func measure(_ samples: [Float], beep: Double, quiet: ClosedRange<Double>) -> (peak: Double, rms: Double, onset: Double?) {
        let rate = Double(sampleRate)
        let at = Int((beep * rate).rounded()), length = sampleRate / 50
        let tone = samples[at..<(at + length)]
        let window = samples[(at + Int(quiet.lowerBound * rate))..<(at + Int(quiet.upperBound * rate))]
        let beepPeak = tone.map(abs).max() ?? 0
        let peak = decibels(window.map(abs).max() ?? 0, over: beepPeak)
        let rms = decibels(Signals.rms(window), over: Signals.rms(tone))
        let search = (at - sampleRate / 20)..<(at + length)
        let first = search.first { abs(samples[$0]) > 0.1 * beepPeak }
        return (peak, rms, first.map { Double($0 - at) / rate * 1000 })
    }

    /// Each case's quiet window is 30 dB under the beep: its RMS (AAC spreads a beep over the
    /// frame around it, a coding pre-echo up to -26 dB at its peak but -45 dB in RMS), and its
    /// peak too for WAV outputs; the beep starts within 2 ms of its place. Before the renderer
    /// fed each segment only its own source, the removed beep sounded at the cut at -7 dB (peak,
    /// WAV) and the beep before a range slowed with timeDomain was heard in it at -26 dB RMS.
    @Test func nothingCrossesAnEditBoundary() throws {
        var checked = 0, failures: [String] = []
        for wav in [false, true] {
            let folder = try TemporaryFolder("edit-boundary")
            let movie = try clip(in: folder, wav: wav)
            for item in Self.cases where item.wav == wav {
                try? FileManager.default.removeItem(at: folder.file("beeps.slowpoke"))
                for step in [["open", movie], item.edit] {
                    let result = try slowpoke(step, in: folder)
                    try #require(result.status == 0, "\(item): \(step) \(result.stderr)")
                }
                let output = folder.file("out-\(checked).\(wav ? "wav" : "mp4")")
                let result = try slowpoke(["export", "-o", output.lastPathComponent, "--progress", "none"] + item.export, in: folder)
                try #require(result.status == 0, "\(item): \(result.stderr)")
                var beep = item.beep
                if item.moves {
                    // "fitted to whole AAC frames: 15.397 s for 15.4 s": the edit's length moved.
                    let line = try #require(result.stdout.split(separator: "\n").first { $0.contains("fitted to whole AAC frames: ") }, "\(result.stdout)")
                    let numbers = line.split(separator: " ").compactMap { Double($0) }
                    try #require(numbers.count >= 2, "\(line)")
                    // Whole AAC frames of the 5.4 s added: 253 frames of 1024 samples.
                    beep = item.beep + (5.4 * 48000 / 1024).rounded() * 1024 / 48000 - 5.4
                }
                let (peak, rms, onset) = Self.measure(try TestSupport.decodeAudio(output), beep: beep, quiet: item.quiet)
                let summary = "\(item): quiet window \(String(format: "%.1f", peak)) dB peak, \(String(format: "%.1f", rms)) dB RMS; onset \(onset.map { String(format: "%.2f ms", $0) } ?? "missing")"
                print(summary)
                if rms > -30 || (wav && peak > -30) || onset.map({ abs($0) > 2 }) ?? true { failures.append(summary) }
                checked += 1
            }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        #expect(checked >= 20, "only \(checked) cases checked")
    }
}
