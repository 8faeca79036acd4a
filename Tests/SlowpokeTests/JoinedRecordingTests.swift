import Foundation
import Testing
import TestSupport

/// A recording whose audio clock jumps a few samples at each join (`ffmpeg -stream_loop N -c
/// copy`, as long recordings are often made or repaired): an edit anywhere in it still copies
/// every unchanged audio packet (issue 52). Before, every packet after the first join was off
/// the copied grid and re-encoded, so the export cost grew with the file's length.
@Suite struct JoinedRecordingTests {
    func slowpoke(_ arguments: [String], in folder: TemporaryFolder) throws -> TestSupport.Result {
        try TestSupport.run(TestSupport.slowpoke, arguments, in: folder.url)
    }

    func packetHashes(_ file: URL) throws -> [String] {
        let result = try TestSupport.tool("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_packets", "-show_data_hash", "md5",
                                                      "-show_entries", "packet=data_hash", "-of", "csv=p=0", file.path])
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// Edits before, across and after the joins of a 20 s recording looped four times.
    @Test(arguments: ["10-12", "39.9-41", "70-71.5"])
    func everyUnchangedPacketIsCopied(range: String) throws {
        let folder = try TemporaryFolder("joined-recording")
        let piece = folder.file("piece.mp4"), joined = folder.file("joined.mp4")
        var made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=160x120:r=5:d=20", "-f", "lavfi",
                                                   "-i", "anoisesrc=r=16000:d=20:seed=7", "-c:v", "libx264", "-preset", "ultrafast", "-g", "25",
                                                   "-c:a", "aac", "-ac", "1", piece.path])
        #expect(made.status == 0, "\(made.stderr)")
        made = try TestSupport.tool("ffmpeg", ["-v", "error", "-stream_loop", "3", "-i", piece.path, "-c", "copy", joined.path])
        #expect(made.status == 0, "\(made.stderr)")
        for edit in [["open", "joined.mp4"], ["scale", "--range", range, "--rate", "0.5"]] { #expect(try slowpoke(edit, in: folder).status == 0) }
        let export = try slowpoke(["export", "-o", "out.mp4", "--progress", "none"], in: folder)
        #expect(export.status == 0 && !export.stderr.contains("re-encoded, not copied"), "\(export.stderr)")
        let source = Set(try packetHashes(joined)), output = try packetHashes(folder.file("out.mp4"))
        let copied = output.filter(source.contains).count
        // 80 s of 64 ms frames: 1250 packets. Only the slowed range (twice its length) and a few
        // guard frames at each of its seams are encoded; a join no edit touches costs nothing.
        let bounds = range.split(separator: "-").compactMap { Double($0) }
        let edited = Int(((bounds[1] - bounds[0]) * 2 / 0.064).rounded(.up))
        #expect(output.count > 1200 && output.count - copied <= edited + 24, "\(copied) of \(output.count) audio packets copied; the edit covers \(edited)")
    }
}
