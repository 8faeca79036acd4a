import Foundation
import Testing
import TestSupport

/// The oracle's beep measure in lossily coded sound (seed 0x8337b087a2fa8971): an audio-only
/// `.m4a --exact` export re-encodes a slowed beep as AAC, and FFmpeg's encoder puts pre-echo
/// (0.05-0.09 of full scale, from the transform block the attack falls in) 3 ms before it. The
/// fixed level of the onsets (0.05) hears the beep early there; the attack (a quarter of the
/// beep's peak) is on time, as in the WAV export of the same project. Re-encoding that WAV
/// with FFmpeg's AAC at 64 to 256 kb/s leaves pre-echo of 0.04-0.05 too, and the source's
/// own AAC shows under 0.01 at its beeps only because they fall elsewhere in its blocks: the
/// codec, not slowpoke's timing or its 48 kb/s. A beep really moved 3 ms is still caught.
@Suite struct OracleOnsetTests {
    @Test func preEchoMovesTheOnsetNotTheAttackAndAMovedBeepIsCaught() throws {
        let folder = try TemporaryFolder("oracle-onsets")
        let beeps = OracleSource(seed: 0).beeps  // 3 s, as the case's source
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", beeps, "-c:a", "aac", "-b:a", "128k", "-ac", "1",
                                                   "-y", folder.file("source.mkv").path])
        #expect(made.status == 0, "\(made.stderr)")
        let song = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", folder.file("source.mkv").path, "-vn", "-c:a", "copy", "-y", folder.file("m.m4a").path])
        #expect(song.status == 0, "\(song.stderr)")
        for command in [["open", "m.m4a"], ["scale", "--range", "393/210-1.980", "--rate", "1/2"], ["remove", "--range", "400/210-1.960"],
                        ["scale", "--range", "1.960-2.959", "--rate", "1/2"],
                        ["export", "--exact", "-o", "out.m4a", "--progress", "none"], ["export", "--exact", "-o", "out.wav", "--progress", "none"]] {
            let result = try TestSupport.run(TestSupport.slowpoke, command, in: folder.url)
            #expect(result.status == 0, "\(command): \(result.stderr)")
        }
        // The beep of source 2 s, slowed: where the lossless export has it, and the AAC one.
        let wav = try OracleDecode.beeps(folder.file("out.wav")), aac = try OracleDecode.beeps(folder.file("out.m4a"))
        #expect(!wav.lossy && aac.lossy)
        let reference = try #require(wav.onsets.firstIndex { $0 > 2.1 && $0 < 2.3 })
        let heard = try #require(aac.onsets.firstIndex { abs($0 - wav.onsets[reference]) < 0.01 })
        #expect(wav.onsets[reference] - aac.onsets[heard] > 0.002, "the AAC pre-echo no longer crosses the onsets' level early: \(aac.onsets[heard]) against \(wav.onsets[reference])")
        #expect(abs(aac.attacks[heard] - wav.attacks[reference]) < 0.0005, "attack \(aac.attacks[heard]) against \(wav.attacks[reference])")

        // The same decoded sound with the beep moved 3 ms earlier (144 samples cut before it):
        // its attack is 3 ms early, past the 2 ms a stretched beep is allowed.
        var samples = try TestSupport.decodeAudio(folder.file("out.m4a"))
        let offset = try OracleDecode.soundOffset(folder.file("out.m4a"))
        let at = Int(((aac.onsets[heard] - offset) * 48000).rounded())
        samples.removeSubrange((at - 400)..<(at - 256))
        let onsets = Signals.onsets(samples, threshold: 0.05, quiet: 1200)
        let moved = try #require(onsets.first { abs($0 - at) < 480 })
        let attack = Double(OracleDecode.attacks(samples, onsets: [moved])[0]) / 48000 + offset
        #expect(wav.attacks[reference] - attack > 0.0025, "a beep moved 3 ms earlier measures \(attack), the reference \(wav.attacks[reference])")
    }
}
