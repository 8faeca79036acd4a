import Foundation
import Testing
import TestSupport

/// A transport stream's AAC carries an ADTS header on every frame and no config of its own: an
/// edited export into an mp4 copies its unchanged frames without their headers, states the
/// config once (as `ffmpeg -c copy` does), and encodes only the edit (issue 52). Before, such
/// audio was encoded whole: 3 hours of it took most of three minutes against a 3 s remux.
@Suite struct TransportStreamAudioTests {
    func packetHashes(_ file: URL) throws -> [String] {
        let result = try TestSupport.tool("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_packets", "-show_data_hash", "md5",
                                                      "-show_entries", "packet=data_hash", "-of", "csv=p=0", file.path])
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test func unchangedADTSFramesAreCopiedWithoutTheirHeaders() throws {
        let folder = try TemporaryFolder("ts-audio")
        let movie = folder.file("rec.ts")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=160x120:r=10:d=30", "-f", "lavfi",
                                                   "-i", "anoisesrc=r=48000:d=30:seed=3", "-c:v", "libx264", "-preset", "ultrafast", "-g", "20",
                                                   "-c:a", "aac", "-ac", "2", movie.path])
        #expect(made.status == 0, "\(made.stderr)")
        for edit in [["open", "rec.ts"], ["scale", "--range", "12-14", "--rate", "0.5"]] {
            #expect(try TestSupport.run(TestSupport.slowpoke, edit, in: folder.url).status == 0)
        }
        let export = try TestSupport.run(TestSupport.slowpoke, ["export", "-o", "out.mp4", "--progress", "none"], in: folder.url)
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stdout.contains("audio copied where unchanged"), "\(export.stdout)")
        // ffmpeg's own remux strips the headers: its packets are the frames themselves.
        let remux = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", movie.path, "-map", "0:a", "-c", "copy", folder.file("remux.mp4").path])
        #expect(remux.status == 0, "\(remux.stderr)")
        let source = Set(try packetHashes(folder.file("remux.mp4"))), output = try packetHashes(folder.file("out.mp4"))
        let copied = output.filter(source.contains).count
        // 32 s of 21.3 ms frames: 1500 packets; the 4 s the edit plays (188) and a few guard
        // frames at each seam are encoded.
        #expect(output.count > 1400 && copied >= output.count - 188 - 24, "\(copied) of \(output.count) audio packets copied")
        let config = try TestSupport.ffprobe(folder.file("out.mp4"), ["-select_streams", "a:0", "-show_entries", "stream=extradata_size"])
        #expect(((config["streams"] as? [[String: Any]])?.first?["extradata_size"] as? Int) == 2)
        let decode = try TestSupport.tool("ffmpeg", ["-v", "error", "-xerror", "-i", folder.file("out.mp4").path, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")
    }
}
