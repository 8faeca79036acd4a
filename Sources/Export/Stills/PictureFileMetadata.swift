import Foundation
import Media

/// Puts a still's EXIF, XMP (``XMPPacket``) and colour tags (``StillColour``) into the bytes
/// an encoder wrote: JPEG gets an APP1 `Exif` segment after its JFIF header, an APP1 XMP
/// segment and an APP2 `ICC_PROFILE` segment; PNG `cICP` (and `sRGB`), `eXIf` and an `iTXt`
/// `XML:com.adobe.xmp` chunk after IHDR; TIFF a new first IFD holding the encoder's entries,
/// the EXIF ones, the XMP (tag 700) and the ICC profile (tag 34675), appended to the file, with
/// the EXIF and GPS IFDs after it.
enum PictureFileMetadata {
    static func add(_ metadata: CaptureMetadata, colour: StillColour, to bytes: Data, format: StillFormat) -> Data {
        let xmp = XMPPacket.packet(metadata, profile: format == .png ? nil : colour.profile)
        switch format {
        case .jpeg: return jpeg(bytes, metadata, colour: colour, xmp: xmp)
        case .png: return png(bytes, metadata, colour: colour, xmp: xmp)
        case .tiff: return tiff(bytes, metadata, colour: colour, xmp: xmp)
        }
    }

    private static func jpeg(_ bytes: Data, _ m: CaptureMetadata, colour: StillColour, xmp: [UInt8]) -> Data {
        let b = [UInt8](bytes)
        guard b.count > 4, b[0] == 0xFF, b[1] == 0xD8 else { return bytes }
        var at = 2
        // After a JFIF APP0 segment, which readers expect first.
        if b.count > 6, b[2] == 0xFF, b[3] == 0xE0 { at = 4 + (Int(b[4]) << 8 | Int(b[5])) }
        var segments = segment(0xE1, Array("Exif".utf8) + [0, 0] + ExifBlock.standalone(m, colorSpace: colour.exifColorSpace))
        segments += segment(0xE1, Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + xmp)
        // One ICC segment (sequence 1 of 1) holds the small profiles written here.
        if let profile = colour.profile { segments += segment(0xE2, Array("ICC_PROFILE".utf8) + [0, 1, 1] + profile.bytes) }
        return Data(b[..<at] + segments + b[at...])
    }

    /// A JPEG marker segment; empty when the payload is too long for one.
    private static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        guard length < 0xFFFF else { return [] }
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    private static func png(_ bytes: Data, _ m: CaptureMetadata, colour: StillColour, xmp: [UInt8]) -> Data {
        let b = [UInt8](bytes)
        // The signature (8 bytes), then IHDR: length, type, 13 bytes, CRC.
        guard b.count > 33, Array(b[12..<16]) == Array("IHDR".utf8) else { return bytes }
        var chunks: [UInt8] = []
        if let cicp = colour.cicp { chunks += chunk("cICP", cicp) }
        // Rendering intent 0 (perceptual).
        if colour.profile == .sRGB { chunks += chunk("sRGB", [0]) }
        if !m.isEmpty { chunks += chunk("eXIf", ExifBlock.standalone(m)) }
        // Keyword, then no compression, no language and no translated keyword.
        chunks += chunk("iTXt", Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + xmp)
        return Data(b[..<33] + chunks + b[33...])
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        let n = UInt32(data.count), crc = CRC32.of(typed)
        return [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + typed
            + [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
    }

    private static func tiff(_ bytes: Data, _ m: CaptureMetadata, colour: StillColour, xmp: [UInt8]) -> Data {
        var b = [UInt8](bytes)
        // libavcodec writes little-endian TIFF.
        guard b.count > 8, b[0] == 0x49, b[1] == 0x49 else { return bytes }
        func u16(_ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
        func u32(_ i: Int) -> Int { u16(i) | u16(i + 2) << 16 }
        let first = u32(4)
        guard first + 2 <= b.count else { return bytes }
        let count = u16(first)
        guard first + 2 + 12 * count + 4 <= b.count else { return bytes }
        let kept = (0..<count).map { k -> ExifBlock.Entry in
            let e = first + 2 + 12 * k
            return ExifBlock.Entry(tag: UInt16(u16(e)), type: UInt16(u16(e + 2)), count: UInt32(u32(e + 4)),
                                   value: Array(b[(e + 8)..<(e + 12)]), raw: true)
        }
        var extra = [ExifBlock.bytes(700, xmp)]
        if let profile = colour.profile { extra.append(ExifBlock.undefined(34675, profile.bytes)) }
        if b.count % 2 == 1 { b.append(0) }
        let offset = b.count
        b += ExifBlock.directories(m, colorSpace: colour.exifColorSpace, kept: kept, extra: extra, at: offset)
        b.replaceSubrange(4..<8, with: ExifBlock.le(UInt32(offset)))
        return Data(b)
    }
}
