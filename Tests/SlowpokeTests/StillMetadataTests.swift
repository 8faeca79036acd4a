import Foundation
import TestSupport
import Testing

/// A still carries the movie's capture date, place, make and model as EXIF, and a 10-bit
/// source's bits in 16-bit PNG and TIFF with its colour tags.
@Suite struct StillMetadataTests {
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

    /// The phone clip's stills (``PhoneStills``, shared with StillTagsReadBackTests), read by FFmpeg.
    @Test func exifAndDeepSamplesAreKept() throws {
        let stills = try PhoneStills.made()
        var checked = 0
        for ext in PhoneStills.formats {
            let said = try stills.said(ext)
            #expect(said.contains("EXIF and XMP: date, location, make, model"), "\(said)")
            #expect(said.contains(ext == "jpg" ? "8-bit JPEG" : "16-bit RGB"), "\(said)")
            let probed = try Self.probe(stills.still(ext))
            switch ext {
            case "jpg":
                for tag in ["TAG:Make=Apple", "TAG:Model=iPhone 15 Pro", "TAG:DateTimeOriginal=2024:05:01 14:34:56",
                            "TAG:GPSLatitudeRef=N", "TAG:GPSLongitudeRef=W", "GPSLatitude=     37:1      ,      20:1      ,   56400:10000"] {
                    #expect(probed.contains(tag), "\(tag) in \(probed)")
                }
            case "png":
                #expect(probed.contains("pix_fmt=rgb48be"), "\(probed)")
                let types = try Self.chunks(stills.still("png"))
                #expect(types.first == "IHDR" && types.contains("eXIf") && types.contains("cICP"), "\(types)")
                #expect(types.firstIndex(of: "eXIf")! < types.firstIndex(of: "IDAT")!)
                let b = [UInt8](try Data(contentsOf: stills.still("png")))
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
        let folder = try TemporaryFolder("still-exif")
        let raw = folder.file("still.rgb48")
        #expect(try TestSupport.tool("ffmpeg", ["-v", "error", "-i", stills.still("png").path, "-f", "rawvideo", "-pix_fmt", "rgb48le", raw.path]).status == 0)
        let samples = [UInt8](try Data(contentsOf: raw))
        var levels = Set<UInt16>()
        for k in stride(from: 0, to: samples.count - 1, by: 2) { levels.insert(UInt16(samples[k]) | UInt16(samples[k + 1]) << 8) }
        #expect(levels.count > 256, "\(levels.count) levels")
    }
}
