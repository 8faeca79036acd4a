import Foundation
import TestSupport
import Testing

/// `export -o -`: the movie streamed to standard output (Matroska, fragmented mp4, MPEG-TS),
/// readable from a pipe, decoding to the frames a file export writes; every word on stderr.
@Suite struct StandardOutputExportTests {
    /// Runs `script` in `sh` in the folder, with `$SLOWPOKE` set.
    func shell(_ script: String, in folder: TemporaryFolder) throws -> TestSupport.Result {
        try TestSupport.run(URL(fileURLWithPath: "/bin/sh"), ["-c", script], in: folder.url,
                            environment: ["SLOWPOKE": TestSupport.slowpoke.path])
    }

    /// The frames of `stream` (v or a) of `file`: (timestamp, hash) lines of ffmpeg's framemd5.
    func frames(_ file: URL, _ stream: String, hashesOnly: Bool = false) throws -> [String] {
        let result = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", file.path, "-map", "0:\(stream)", "-fps_mode", "passthrough", "-f", "framemd5", "-"])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return hashesOnly ? fields.last ?? "" : "\(fields[1]) \(fields.last ?? "")"
        }
    }

    func scaledDocument() throws -> TemporaryFolder {
        let folder = try folderWithDocument()
        #expect(try slowpoke("scale", "--range", "3.2-5", "--rate", "0.25", in: folder).status == 0)
        return folder
    }

    @Test func aPipeIntoFFprobeReadsTheWholeMovie() throws {
        let folder = try scaledDocument()
        // The default for an .mp4 movie: fragmented mp4.
        let piped = try shell(#""$SLOWPOKE" export -o - --progress none 2>err.txt | ffprobe -v error -count_packets -show_entries stream=codec_name,nb_read_packets:format=format_name -of compact -"#, in: folder)
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdout.contains("stream|codec_name=h264|nb_read_packets=600"), "\(piped.stdout)")
        #expect(piped.stdout.contains("codec_name=aac"), "\(piped.stdout)")
        #expect(piped.stdout.contains("format_name=mov,mp4"), "\(piped.stdout)")
        let said = try String(contentsOf: folder.file("err.txt"), encoding: .utf8)
        #expect(said.hasPrefix("wrote standard output (mp4): 600 frames, 15.397 s"), "\(said)")
        // Nothing but the movie on stdout, nothing left beside the document.
        #expect(try folder.listing().sorted() == ["clip.mp4", "clip.slowpoke", "err.txt"])
    }

    @Test func eachStreamDecodesToTheFileExportsFrames() throws {
        let folder = try scaledDocument()
        for file in ["file.mkv", "file.mp4"] {
            #expect(try slowpoke("export", "-o", file, "--progress", "none", in: folder).status == 0)
        }
        // The file exports' frames, decoded once each (the formats compare with them five times).
        var decoded: [String: [String]] = [:]
        func fileFrames(_ name: String, _ stream: String, hashesOnly: Bool = false) throws -> [String] {
            let key = "\(name) \(stream)"
            let lines = try decoded[key] ?? frames(folder.file(name), stream)
            decoded[key] = lines
            return hashesOnly ? lines.map { String($0.split(separator: " ").last ?? "") } : lines
        }
        var checked = 0
        for format in ["mkv", "mp4", "ts"] {
            let run = try shell(#""$SLOWPOKE" export -o - --format \#(format) --progress json > out.\#(format) 2> err.\#(format)"#, in: folder)
            #expect(run.status == 0, "\(format): \(run.stderr)")
            let events = try String(contentsOf: folder.file("err.\(format)"), encoding: .utf8).split(separator: "\n")
            #expect(events.allSatisfy { $0.hasPrefix("{") }, "\(format): every stderr line is JSON: \(events)")
            #expect(events.contains { $0.contains(#""event":"done""#) && $0.contains(#""output":"-""#) }, "\(events)")
            let out = folder.file("out.\(format)")
            switch format {
            case "mkv":
                // The stream is the file export: every video and audio frame, at the same times.
                #expect(try frames(out, "v") == fileFrames("file.mkv", "v"))
                #expect(try frames(out, "a") == fileFrames("file.mkv", "a"))
            case "mp4":
                // Video as the mp4 file's; audio as the Matroska file's (the encoder's priming
                // left out, so the sound starts on time; see MovieWriter.isPriming).
                #expect(try frames(out, "v") == fileFrames("file.mp4", "v"))
                #expect(try frames(out, "a", hashesOnly: true) == fileFrames("file.mkv", "a", hashesOnly: true))
            default:
                // 90 kHz timestamps: the same pictures in the same order, and the audio's frames
                // after the priming frame that MPEG-TS plays before the picture starts.
                #expect(try frames(out, "v", hashesOnly: true) == fileFrames("file.mp4", "v", hashesOnly: true))
                #expect(try Array(frames(out, "a", hashesOnly: true).dropFirst()) == fileFrames("file.mp4", "a", hashesOnly: true))
            }
            checked += 1
        }
        #expect(checked == 3)
    }

    @Test func aConstantRateExportStreamsToo() throws {
        let folder = try scaledDocument()
        let piped = try shell(#""$SLOWPOKE" export --fps 30 -o - --format ts --progress none 2>/dev/null | ffprobe -v error -count_packets -select_streams v -show_entries stream=codec_name,nb_read_packets -of csv=p=0 -"#, in: folder)
        #expect(piped.status == 0 && piped.stdout.hasPrefix("h264,462"), "\(piped.stdout)\(piped.stderr)")
    }

    @Test(arguments: [
        (["export", "--format", "ts"], 64, "--format ts chooses the stream written to standard output; add -o -"),
        (["export", "-o", "-", "--format", "avi"], 64, "--format takes mkv, mp4, ts, not avi"),
        (["export", "-o", "-", "--verify"], 64, "--verify reads the written movie back, and standard output cannot be read back"),
        // Standard input is no movie slowpoke can read: it reads its movie several times.
        (["open", "-"], 1, "slowpoke reads a movie from a file, which it reads more than once"),
        // `stretch -` saves standard input first; the tests' standard input is /dev/null.
        (["stretch", "-", "out.wav", "--rate", "0.5"], 1, "standard input was empty"),
    ])
    func misusesAreRefused(_ arguments: [String], _ status: Int32, _ said: String) throws {
        let folder = try folderWithDocument()
        let result = try TestSupport.run(TestSupport.slowpoke, arguments, in: folder.url)
        #expect(result.status == status)
        #expect(result.stderr.hasPrefix("slowpoke: error: " + said), "\(result.stderr)")
    }

    /// `stretch -` reads the sound from a pipe: the output is the same file, byte for byte, as
    /// `stretch` of the file itself, and no saved copy is left in the temporary folder.
    @Test func aSoundStretchesFromStandardInput() throws {
        let folder = try TemporaryFolder("stretch-stdin")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=1.5",
                                                   "-c:a", "flac", folder.file("tone.flac").path])
        #expect(made.status == 0, "\(made.stderr)")
        let scratch = { try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory()).filter { $0.contains("-stdin-") } }
        let before = try scratch()
        let piped = try shell(#"cat tone.flac | "$SLOWPOKE" stretch - piped.wav --rate 0.5 --progress none"#, in: folder)
        #expect(piped.status == 0 && piped.stdout.hasPrefix("wrote piped.wav: 132300 frames (3.000 s)"), "\(piped.stdout)\(piped.stderr)")
        let named = try TestSupport.run(TestSupport.slowpoke, ["stretch", "tone.flac", "named.wav", "--rate", "0.5", "--progress", "none"], in: folder.url)
        #expect(named.status == 0, "\(named.stderr)")
        let pipedBytes = try Data(contentsOf: folder.file("piped.wav")), namedBytes = try Data(contentsOf: folder.file("named.wav"))
        #expect(pipedBytes.count > 250_000 && pipedBytes == namedBytes, "\(pipedBytes.count) and \(namedBytes.count) bytes")
        #expect(try scratch() == before, "a saved copy of standard input was left behind")
    }
}
