import Foundation
import TestSupport
import Testing

/// The unmutated inputs the cases start from.
enum FuzzTemplates {
    /// A folder with `clip.mp4` (the 60 fps test clip), its document after a scale, a gap, a
    /// freeze and a ramp (so the history holds every kind of number a document keeps), and that
    /// timeline exported as `clip.otio`.
    static func documentFolder() throws -> TemporaryFolder {
        let folder = try TemporaryFolder("fuzz-template")
        try folder.copy(media: "clip60.mp4", as: "clip.mp4")
        for arguments in [["open", "clip.mp4"], ["scale", "--range", "3.2-5.0", "--rate", "1/4"],
                          ["insert-gap", "--at", "1", "--duration", "0.5"], ["freeze", "--at", "2", "--duration", "1"],
                          ["ramp", "--range", "8-10", "--from", "1", "--to", "1/4"], ["otio", "export", "-o", "clip.otio"]] {
            let result = try TestSupport.run(TestSupport.slowpoke, arguments, in: folder.url)
            try #require(result.status == 0, "slowpoke \(arguments.joined(separator: " ")): \(result.stderr)")
        }
        return folder
    }

    /// Each seed's mutation of `base`, converted to OTIO by OpenTimelineIO's CMX 3600 adapter
    /// at 30 fps, by seed; EDLs the adapter refuses are left out.
    static func convertEDLs(seeds: [UInt64], base: String, outsidePaths: [String]) throws -> [UInt64: Data] {
        let folder = try TemporaryFolder("fuzz-edl")
        var names: [String] = []
        for seed in seeds {
            var mutator = HostileMutator(seed: seed, outsidePaths: outsidePaths)
            try Data(mutator.mutateLines(base).utf8).write(to: folder.file("\(seed).edl"))
            names.append("\(seed)")
        }
        try OTIOPython.run("""
            for name in sys.argv[1:]:
                try:
                    otio.adapters.write_to_file(otio.adapters.read_from_file(name + ".edl", rate=30), name + ".otio")
                except Exception:
                    pass
            """, names, in: folder.url)
        var result: [UInt64: Data] = [:]
        for seed in seeds {
            if let data = try? Data(contentsOf: folder.file("\(seed).otio")) { result[seed] = data }
        }
        return result
    }

    /// Small movies of the shapes slowpoke reads its own way, made with ffmpeg: H.264 with
    /// B-frames and open GOPs in a faststart mp4, 10-bit HEVC (`hvc1`) in mov, Opus in Matroska,
    /// interlaced H.264 in a transport stream; each 2 s of 160x96 with stereo audio, named
    /// `movie.<container>` in the folder returned.
    static func movies() throws -> (folder: TemporaryFolder, names: [String]) {
        let folder = try TemporaryFolder("fuzz-movies")
        let source = ["-f", "lavfi", "-i", "testsrc2=s=160x96:r=30:d=2", "-f", "lavfi", "-i", "sine=f=440:d=2:r=48000", "-ac", "2"]
        let shapes: [(String, [String])] = [
            ("mp4", ["-c:v", "libx264", "-bf", "3", "-x264-params", "keyint=12:open-gop=1", "-c:a", "aac", "-movflags", "+faststart"]),
            ("mov", ["-c:v", "libx265", "-preset", "ultrafast", "-pix_fmt", "yuv420p10le", "-tag:v", "hvc1",
                     "-x265-params", "log-level=error:keyint=15", "-c:a", "aac"]),
            ("mkv", ["-c:v", "libx264", "-bf", "2", "-g", "15", "-c:a", "libopus"]),
            ("ts", ["-c:v", "libx264", "-flags", "+ildct+ilme", "-x264-params", "interlaced=1", "-g", "15", "-c:a", "aac"]),
        ]
        var names: [String] = []
        for (container, codecs) in shapes {
            let name = "movie.\(container)"
            let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-y"] + source + codecs + ["-shortest", folder.file(name).path])
            try #require(made.status == 0, "ffmpeg \(name): \(made.stderr)")
            names.append(name)
        }
        return (folder, names)
    }
}
