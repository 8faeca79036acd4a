import Foundation
import TestSupport
import Testing

/// A still carries the movie's capture date, place, make and model as EXIF, and a 10-bit
/// source's bits in 16-bit PNG and TIFF with its colour tags.
@Suite struct StillMetadataTests {
    static func phoneClip(in folder: TemporaryFolder) throws {
        let made = try TestSupport.tool("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=2", "-c:v", "libx264", "-pix_fmt", "yuv420p10le",
            "-color_primaries", "bt2020", "-color_trc", "arib-std-b67", "-colorspace", "bt2020nc", "-movflags", "use_metadata_tags",
            "-metadata", "creation_time=2024-05-01T12:34:56Z", "-metadata", "com.apple.quicktime.location.ISO6709=+37.3349-122.0090+010.000/",
            "-metadata", "com.apple.quicktime.make=Apple", "-metadata", "com.apple.quicktime.model=iPhone 15 Pro",
            "-metadata", "com.apple.quicktime.creationdate=2024-05-01T14:34:56+0200", folder.file("phone.mov").path])
        #expect(made.status == 0, "\(made.stderr)")
    }

    /// FFmpeg's reading of a picture's first frame: its fields and tags.
    static func probe(_ file: URL) throws -> String {
        try TestSupport.tool("ffprobe", ["-v", "error", "-show_frames", "-show_streams", file.path]).stdout
    }

    /// The chunk types of a PNG file, in order.
    static func chunks(_ file: URL) throws -> [String] {
        let b = [UInt8](try Data(contentsOf: file))
        var types: [String] = []
        var i = 8
        while i + 8 <= b.count {
            let n = Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
            types.append(String(decoding: b[(i + 4)..<(i + 8)], as: UTF8.self))
            i += 12 + n
        }
        return types
    }

    @Test func exifAndDeepSamplesAreKept() throws {
        let folder = try TemporaryFolder("still-exif")
        try Self.phoneClip(in: folder)
        #expect(try TestSupport.run(TestSupport.slowpoke, ["open", "phone.mov"], in: folder.url).status == 0)
        var checked = 0
        for ext in ["jpg", "png", "tiff"] {
            let run = try TestSupport.run(TestSupport.slowpoke, ["still", "--at", "1", "-o", "still.\(ext)"], in: folder.url)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("EXIF and XMP: date, location, make, model"), "\(run.stdout)")
            #expect(run.stdout.contains(ext == "jpg" ? "8-bit JPEG" : "16-bit RGB"), "\(run.stdout)")
            let probed = try Self.probe(folder.file("still.\(ext)"))
            switch ext {
            case "jpg":
                for tag in ["TAG:Make=Apple", "TAG:Model=iPhone 15 Pro", "TAG:DateTimeOriginal=2024:05:01 14:34:56",
                            "TAG:GPSLatitudeRef=N", "TAG:GPSLongitudeRef=W", "GPSLatitude=     37:1      ,      20:1      ,   56400:10000"] {
                    #expect(probed.contains(tag), "\(tag) in \(probed)")
                }
            case "png":
                #expect(probed.contains("pix_fmt=rgb48be"), "\(probed)")
                let types = try Self.chunks(folder.file("still.png"))
                #expect(types.first == "IHDR" && types.contains("eXIf") && types.contains("cICP"), "\(types)")
                #expect(types.firstIndex(of: "eXIf")! < types.firstIndex(of: "IDAT")!)
                let b = [UInt8](try Data(contentsOf: folder.file("still.png")))
                // cICP: BT.2020 primaries (9), HLG transfer (18), RGB (0), full range (1).
                let at = try #require(b.indices.first { b[$0] == 0x63 && b[$0 + 1] == 0x49 && b[$0 + 2] == 0x43 && b[$0 + 3] == 0x50 })
                #expect(Array(b[(at + 4)..<(at + 8)]) == [9, 18, 0, 1])
            default:
                #expect(probed.contains("pix_fmt=rgb48le"), "\(probed)")
                for tag in ["TAG:make=Apple", "TAG:model=iPhone 15 Pro", "TAG:date=2024:05:01 14:34:56"] {
                    #expect(probed.contains(tag), "\(tag) in \(probed)")
                }
            }
            checked += 1
        }
        #expect(checked == 3)
        // 16 bits that hold the source's 10: not 8-bit values stretched (more than 256 levels in use).
        let raw = folder.file("still.rgb48")
        #expect(try TestSupport.tool("ffmpeg", ["-v", "error", "-i", folder.file("still.png").path, "-f", "rawvideo", "-pix_fmt", "rgb48le", raw.path]).status == 0)
        let samples = [UInt8](try Data(contentsOf: raw))
        var levels = Set<UInt16>()
        for k in stride(from: 0, to: samples.count - 1, by: 2) { levels.insert(UInt16(samples[k]) | UInt16(samples[k + 1]) << 8) }
        #expect(levels.count > 256, "\(levels.count) levels")
    }
}
