import Foundation
import Testing
import TestSupport

/// A damaged timestamp does not stretch the timeline (issue 51): one flipped bit in a transport
/// stream's PES header put a frame of a 2 s recording 2982 s later, and the clip opened as
/// 2986 s, its exports 50 minutes of held frame and silence. The packet whose time alone jumps
/// away and back is read where its stream's clock stood: the clip keeps its length, every frame
/// its place, and `open` and `info` say so.
@Suite struct DamagedTimestampTests {
    func slowpoke(_ arguments: [String], in folder: TemporaryFolder) throws -> TestSupport.Result {
        try TestSupport.run(TestSupport.slowpoke, arguments, in: folder.url)
    }

    /// `ts` with bit 28 of the PTS (and, unless `ptsOnly`, the DTS) of its `n`-th video PES
    /// packet flipped (+2982.6 s).
    static func flippingTimestamp(of ts: Data, videoPacket n: Int, ptsOnly: Bool = false) -> Data {
        var bytes = [UInt8](ts)
        var count = 0
        for offset in stride(from: 0, to: bytes.count - 187, by: 188) where bytes[offset] == 0x47 && bytes[offset + 1] & 0x40 != 0 {
            let control = (bytes[offset + 3] >> 4) & 3
            let start = offset + 4 + (control & 2 != 0 ? 1 + Int(bytes[offset + 4]) : 0)
            guard control & 1 != 0, start + 19 < offset + 188, bytes[start..<(start + 4)] == [0, 0, 1, 0xE0] else { continue }
            count += 1
            guard count == n else { continue }
            let flags = bytes[start + 7], pts = start + 9
            if flags & 0x80 != 0 { bytes[pts + 1] ^= 0x40 }
            if flags & 0xC0 == 0xC0 && !ptsOnly { bytes[pts + 6] ^= 0x40 }
            break
        }
        return Data(bytes)
    }

    @Test func aDamagedTimestampKeepsTheClipsLength() throws {
        let folder = try TemporaryFolder("damaged-timestamp")
        let clean = folder.file("clean.ts")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=160x120:r=25:d=2", "-f", "lavfi", "-i", "sine=d=2",
                                                   "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-bf", "0", "-c:a", "mp2", clean.path])
        #expect(made.status == 0, "\(made.stderr)")
        try Self.flippingTimestamp(of: Data(contentsOf: clean), videoPacket: 21).write(to: folder.file("damaged.ts"))
        // ffprobe sees the jump: one frame 2982 s out.
        let times = try TestSupport.tool("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time", "-of", "csv=p=0",
                                                     folder.file("damaged.ts").path]).stdout.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: CharacterSet(charactersIn: ","))) }
        #expect(times.count == 50 && times.filter { $0 > 100 }.count == 1, "\(times.filter { $0 > 100 })")

        let opened = try slowpoke(["open", "damaged.ts"], in: folder)
        #expect(opened.status == 0 && opened.stdout.contains("damaged.slowpoke for damaged.ts: 2 s,") && opened.stdout.contains("1 packet with a damaged timestamp put back in place"), "\(opened.stdout)")
        let info = try slowpoke(["info"], in: folder)
        #expect(info.stdout.contains("1 packet with a damaged timestamp (at about 0.800 s): read on its neighbours' clock"), "\(info.stdout)")
        let export = try slowpoke(["export", "-o", "out.mp4", "--progress", "none"], in: folder)
        #expect(export.status == 0 && export.stdout.contains("50 frames, 2 s"), "\(export.stdout)\(export.stderr)")
        // Every frame the clean recording shows, in order.
        #expect(try TestSupport.frameMD5s(folder.file("out.mp4")).md5s == TestSupport.frameMD5s(clean).md5s)
    }

    /// The movie fuzzer's case (seed 0xee76f2b7d8708b31): a flipped bit in one B-frame
    /// stream's presentation time alone (its decode time right). The clip keeps its 2 s; the
    /// damaged frame, and the frames decoded from it up to the next keyframe, are left out of
    /// passthrough and said (the damage check's rule), every other frame kept.
    @Test func aDamagedPresentationTimeKeepsTheClipsLength() throws {
        let folder = try TemporaryFolder("damaged-pts")
        let clean = folder.file("clean.ts")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=160x120:r=30:d=2", "-f", "lavfi", "-i", "sine=d=2",
                                                   "-c:v", "libx264", "-preset", "ultrafast", "-g", "15", "-bf", "2", "-c:a", "aac", clean.path])
        #expect(made.status == 0, "\(made.stderr)")
        try Self.flippingTimestamp(of: Data(contentsOf: clean), videoPacket: 40, ptsOnly: true).write(to: folder.file("damaged.ts"))
        let opened = try slowpoke(["open", "damaged.ts"], in: folder)
        #expect(opened.status == 0 && opened.stdout.contains("damaged.slowpoke for damaged.ts: 2 s,"), "\(opened.stdout)")
        let export = try slowpoke(["export", "-o", "out.mp4", "--progress", "none"], in: folder)
        #expect(export.status == 0 && export.stderr.contains("passthrough leaves them out") && export.stdout.contains(", 2 s ("), "\(export.stdout)\(export.stderr)")
        let kept = try TestSupport.frameMD5s(folder.file("out.mp4")).md5s, all = Set(try TestSupport.frameMD5s(clean).md5s)
        // At most the damaged frame's GOP (15 frames) goes.
        #expect(kept.count >= 45 && kept.count < 60 && kept.allSatisfy(all.contains), "\(kept.count) frames")
    }
}
