import ArgumentParser
import Composition
import Export
import Foundation
import SafeFiles
import TimePitch

extension TimePitchAlgorithm: ExpressibleByArgument {}

struct Stretch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play an audio file at another rate, keeping or shifting its pitch.",
        discussion: """
            Reads any audio file libav can decode (wav, flac, mp3, m4a, ogg, or a movie's audio) \
            and writes WAV or FLAC. The output is exactly input length ÷ rate. With - as the \
            input, the sound is read from standard input: saved to a private file in the \
            temporary folder (it is read more than once), and removed when the command ends.

            Algorithms:
              spectral    Rubber Band R3: the best quality, pitch kept (default)
              timeDomain  Rubber Band R2: faster, pitch kept, suits speech
              varispeed   resampling, like tape: pitch follows the rate

            Files of 1 Hz to 768 kHz and 1 to 64 channels are read (a header saying otherwise is \
            refused); spectral and timeDomain need 8 kHz or more. NaN and infinite samples in a \
            float file are played as silence, and a warning says how many there were.

            Examples:
              slowpoke stretch solo.wav solo-slow.wav --rate 0.5
              slowpoke stretch bark.m4a growl.wav --rate 1/4 --algorithm varispeed
              slowpoke stretch song.flac song-up.flac --rate 1 --semitones 2
              ffmpeg -i solo.mp3 -f flac - | slowpoke stretch - slow.wav --rate 0.5
            """)

    @Argument(help: "The audio file to read; - reads it from standard input (saved to a private temporary file first).", completion: .file())
    var input: String

    @Argument(help: "The file to write: .wav or .flac.", completion: .file(extensions: ["wav", "flac"]))
    var output: String

    @Option(name: [.customLong("rate"), .customLong("speed")], parsing: .unconditional, help: ArgumentHelp("Playback rate from 1/32 to 32: 0.5 is half speed (twice as long); --speed is the same.", valueName: "rate"), completion: RateArgument.completion, transform: RateArgument.init(parsing:))
    var rate: RateArgument

    @OptionGroup var audio: AudioOutputOptions

    func run() throws {
        let settings = try audio.settings()
        let spooled = input == "-" ? try Self.spoolStandardInput() : nil
        defer { spooled?.remove() }
        let job = try StretchJob(input: spooled?.url ?? URL(fileURLWithPath: input), output: URL(fileURLWithPath: output),
                                 rate: rate.value, settings: settings, force: audio.force)
        let reporter = ProgressReporter(style: audio.progress, label: "stretch", mediaSeconds: 0)
        let result = try job.run(started: { reporter.mediaSeconds = $0 }, progress: { try reporter.update($0) },
                                 warning: { reporter.warning($0) })
        let seconds = Double(result.outputFrames) / Double(result.format.sampleRate)
        print("wrote \(output): \(result.outputFrames) frames (\(String(format: "%.3f", seconds)) s) at \(result.format.sampleRate) Hz, \(rate.value.readable)x \(audio.algorithm.rawValue)")
        reporter.done(output: result.output.path, duration: seconds)
    }

    /// `stretch -`: standard input saved to a private file, refused from a terminal (a sound
    /// typed at the keyboard is never what was meant) or when nothing arrives.
    private static func spoolStandardInput() throws -> SpooledInput {
        guard isatty(0) == 0 else {
            throw CLIError("standard input is a terminal; pipe a sound into it (`ffmpeg -i in.mp3 -f flac - | slowpoke stretch - out.wav --rate 0.5`) or name the file")
        }
        let spooled = try SpooledInput(check: Interrupt.check)
        guard spooled.bytes > 0 else {
            spooled.remove()
            throw CLIError("standard input was empty: no sound arrived through the pipe")
        }
        return spooled
    }
}
