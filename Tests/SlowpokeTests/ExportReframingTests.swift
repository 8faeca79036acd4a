import Foundation
import TestSupport
import Testing

/// `export --fps --crop` and `--zoom`: every output frame is the source frame it shows, cropped
/// (and for a zoom scaled back up) as FFmpeg's own crop and scale filters make it, within the
/// encoder's loss.
@Suite struct ExportReframingTests {
    /// Frames `frames` of `movie` decoded by FFmpeg as 8-bit 4:2:0, through `filter` when given.
    static func frames(_ movie: URL, _ frames: [Int], filter: String?, in folder: TemporaryFolder) throws -> [Data] {
        try frames.map { n in
            let out = folder.file("\(movie.lastPathComponent)-\(n)-\(filter?.count ?? 0).yuv")
            let chain = "select=eq(n\\,\(n))" + (filter.map { "," + $0 } ?? "")
            let run = try TestSupport.tool("ffmpeg", ["-v", "error", "-y", "-i", movie.path, "-vf", chain, "-fps_mode", "passthrough",
                                                      "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "yuv420p", out.path])
            #expect(run.status == 0, "\(run.stderr)")
            return try Data(contentsOf: out)
        }
    }

    @Test(arguments: [
        (["--crop", "160:120:40:20"], "crop=160:120:40:20", "cropped to 160x120 at 40,20", "crop=160:120:48:20"),
        (["--crop", "200:100"], "crop=200:100:60:70", "cropped to 200x100 at 60,70", "crop=200:100:60:78"),
        (["--zoom", "2"], "crop=160:120:80:60,scale=320:240:flags=lanczos+accurate_rnd+full_chroma_int", "zoomed 2x (the middle 160x120, scaled to 320x240)", nil),
    ])
    func reframedFramesAreTheSourceCropped(flags: [String], filter: String, said: String, wrong: String?) throws {
        let folder = try TemporaryFolder("reframe")
        try StillCommandTests.clip(in: folder)
        #expect(try TestSupport.run(TestSupport.slowpoke, ["open", "clip.mp4"], in: folder.url).status == 0)
        let run = try TestSupport.run(TestSupport.slowpoke, ["export", "--fps", "30", "--crf", "8", "-o", "out.mp4", "--progress", "none"] + flags, in: folder.url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains(said), "\(run.stdout)")
        let picked = [0, 17, 45, 121]
        let written = try Self.frames(folder.file("out.mp4"), picked, filter: nil, in: folder)
        let expected = try Self.frames(folder.file("clip.mp4"), picked, filter: filter, in: folder)
        // A crop 8 pixels off, or the whole picture for the zoom, is far off: the check can fail.
        let off = try Self.frames(folder.file("clip.mp4"), picked, filter: wrong, in: folder)
        var checked = 0
        for k in picked.indices {
            #expect(written[k].count == expected[k].count)
            let good = StillCommandTests.psnr(written[k], expected[k])
            #expect(good > 38, "frame \(picked[k]): \(good) dB")
            if off[k].count == written[k].count { #expect(StillCommandTests.psnr(written[k], off[k]) < good - 10) }
            checked += 1
        }
        #expect(checked == 4)
    }

    @Test func refusedReframingsSayWhy() throws {
        let folder = try TemporaryFolder("reframe-refused")
        try StillCommandTests.clip(in: folder)
        #expect(try TestSupport.run(TestSupport.slowpoke, ["open", "clip.mp4"], in: folder.url).status == 0)
        let cases: [([String], Int32, String)] = [
            (["--crop", "100:100:1:0"], 1, "cannot be cropped without re-encoding: the crop's left edge (1) is not a multiple of 2, the grid the stream's chroma samples allow a cropping window on (export with --fps to crop by re-encoding)"),
            (["--fps", "30", "--crop", "161:120"], 64, "a crop of 161x120 has an odd side; 4:2:0 video needs an even width and height"),
            // A crop that cannot fit is a usage error, said before any work with one that fits.
            (["--fps", "30", "--crop", "400:120:0:0"], 64,
             "--crop 400:120:0:0 does not fit clip.mp4: a crop of 400x120 at 0,0 reaches past the 320x240 picture (to 400,120); W+X must be at most 320 and H+Y at most 240; give a crop inside it, such as --crop 320:120:0:0"),
            (["--crop", "320:240:2:0"], 64, "give a crop inside it, such as --crop 320:240:0:0"),
            (["--fps", "30", "--zoom", "0.5"], 64, "--zoom: a zoom factor is from 1 to 8, not 0.5"),
            (["--fps", "30", "--crop", "10:10", "--zoom", "2"], 64, "--crop and --zoom both choose the part of the picture exported; give one"),
        ]
        for (flags, status, message) in cases {
            let run = try TestSupport.run(TestSupport.slowpoke, ["export", "-o", "x.mp4"] + flags, in: folder.url)
            #expect(run.status == status && run.stderr.contains(message), "\(flags): \(run.stderr)")
        }
        #expect(try folder.listing() == ["clip.mp4", "clip.slowpoke"])
    }
}
