import Foundation
import TestSupport
import Testing

/// A still's XMP and colour tags, read back by an independent reader (exiftool, from Debian's
/// libimage-exiftool-perl, which `make test-deps` installs): every field present with the
/// source's value, in PNG, JPEG and TIFF.
@Suite struct StillTagsReadBackTests {
    /// exiftool's reading of `file`: every tag by group (`XMP-tiff:Make`), values unconverted.
    static func exiftool(_ file: URL) throws -> [String: Any] {
        let run = try TestSupport.tool("exiftool", ["-j", "-G1", "-n", "-a", file.path])
        #expect(run.status == 0, "exiftool: \(run.stderr)")
        let list = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]]
        return try #require(list?.first)
    }

    static func number(_ tags: [String: Any], _ key: String) -> Double? {
        (tags[key] as? NSNumber)?.doubleValue ?? (tags[key] as? String).flatMap(Double.init)
    }

    /// XMP with the phone clip's date, place, make and model in every format, beside the EXIF:
    /// the stills StillMetadataTests reads with FFmpeg (``PhoneStills``), read by exiftool.
    @Test func xmpHoldsTheCaptureMetadata() throws {
        let stills = try PhoneStills.made()
        var checked = 0
        for ext in PhoneStills.formats {
            let tags = try Self.exiftool(stills.still(ext))
            // What `still` said of the tags ("EXIF and XMP: date, location, make, model") is
            // StillMetadataTests' check; here, what it said of the colour.
            let said = try stills.said(ext)
            #expect(tags["XMP-tiff:Make"] as? String == "Apple", "\(ext): \(tags)")
            #expect(tags["XMP-tiff:Model"] as? String == "iPhone 15 Pro", "\(ext)")
            #expect(tags["XMP-exif:DateTimeOriginal"] as? String == "2024:05:01 14:34:56+02:00", "\(ext): \(tags["XMP-exif:DateTimeOriginal"] ?? "none")")
            #expect(tags["XMP-xmp:CreateDate"] as? String == "2024:05:01 14:34:56+02:00", "\(ext)")
            #expect(abs((Self.number(tags, "XMP-exif:GPSLatitude") ?? 0) - 37.3349) < 1e-6, "\(ext): \(tags["XMP-exif:GPSLatitude"] ?? "none")")
            #expect(abs((Self.number(tags, "XMP-exif:GPSLongitude") ?? 0) + 122.0090) < 1e-6, "\(ext): \(tags["XMP-exif:GPSLongitude"] ?? "none")")
            #expect(Self.number(tags, "XMP-exif:GPSAltitude") == 10, "\(ext): \(tags["XMP-exif:GPSAltitude"] ?? "none")")
            // The EXIF, read by the same reader.
            #expect(tags["IFD0:Make"] as? String == "Apple" && tags["IFD0:Model"] as? String == "iPhone 15 Pro", "\(ext)")
            #expect(tags["ExifIFD:DateTimeOriginal"] as? String == "2024:05:01 14:34:56", "\(ext)")
            #expect(abs((Self.number(tags, "GPS:GPSLatitude") ?? 0) - 37.3349) < 1e-4, "\(ext)")
            // BT.2020 HLG: PNG says it in cICP; JPEG and TIFF have no ICC form for it.
            #expect(tags["ICC_Profile:ProfileDescription"] == nil, "\(ext)")
            if ext != "png" {
                #expect(Self.number(tags, "ExifIFD:ColorSpace") == 65535, "\(ext): \(tags["ExifIFD:ColorSpace"] ?? "none")")
                #expect(said.contains("colour: uncalibrated"), "\(said)")
            } else {
                #expect(said.contains("colour: cICP 9/18"), "\(said)")
            }
            checked += 1
        }
        #expect(checked == 3)
    }

    /// A BT.709 source: JPEG and TIFF carry an sRGB ICC profile (its colorants the sRGB
    /// primaries adapted to D50, as the ICC's own sRGB profiles have them) and EXIF ColorSpace
    /// sRGB; PNG a cICP chunk (1/1) and an sRGB chunk.
    @Test func bt709StillsCarryAnSRGBProfile() throws {
        let folder = try TemporaryFolder("still-icc")
        let made = try TestSupport.tool("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=1", "-c:v", "libx264", "-pix_fmt", "yuv420p",
            "-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709", folder.file("hd.mp4").path])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try TestSupport.run(TestSupport.slowpoke, ["open", "hd.mp4"], in: folder.url).status == 0)
        var checked = 0
        for ext in ["jpg", "png", "tiff"] {
            let run = try TestSupport.run(TestSupport.slowpoke, ["still", "--at", "0.5", "-o", "hd.\(ext)"], in: folder.url)
            #expect(run.status == 0, "\(run.stderr)")
            let tags = try Self.exiftool(folder.file("hd.\(ext)"))
            if ext == "png" {
                #expect(Self.number(tags, "PNG:SRGBRendering") == 0, "\(tags)")
                #expect(run.stdout.contains("colour: cICP 1/1 and sRGB"), "\(run.stdout)")
            } else {
                #expect(tags["ICC_Profile:ProfileDescription"] as? String == "sRGB IEC61966-2.1", "\(ext): \(tags)")
                #expect(tags["XMP-photoshop:ICCProfileName"] as? String == "sRGB IEC61966-2.1", "\(ext)")
                #expect(Self.number(tags, "ExifIFD:ColorSpace") == 1, "\(ext)")
                #expect(tags["ICC-header:ProfileClass"] as? String == "mntr" && (tags["ICC-header:ColorSpaceData"] as? String)?.hasPrefix("RGB") == true, "\(ext): \(tags)")
                let red = (tags["ICC_Profile:RedMatrixColumn"] as? String)?.split(separator: " ").compactMap { Double($0) } ?? []
                let expected = [0.43607, 0.22249, 0.01392]
                #expect(red.count == 3 && zip(red, expected).allSatisfy { abs($0 - $1) < 3e-4 }, "\(ext): red \(red)")
                #expect(run.stdout.contains("colour: ICC sRGB IEC61966-2.1"), "\(run.stdout)")
            }
            checked += 1
        }
        #expect(checked == 3)
    }
}
