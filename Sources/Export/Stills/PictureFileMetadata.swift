import Foundation

/// Puts a still's EXIF (and PNG's colour tags) into the bytes an encoder wrote: JPEG gets an
/// APP1 `Exif` segment after its JFIF header; PNG an `eXIf` chunk and a `cICP` chunk (the
/// colour primaries and transfer as coded, ITU-T H.273) after IHDR; TIFF a new first IFD
/// holding the encoder's entries and the EXIF ones, appended to the file, with the EXIF and
/// GPS IFDs after it.
enum PictureFileMetadata {
    static func add(_ metadata: CaptureMetadata, colour: (primaries: UInt8, transfer: UInt8)?,
                    to bytes: Data, format: StillFormat) -> Data {
        switch format {
        case .jpeg: jpeg(bytes, metadata)
        case .png: png(bytes, metadata, colour: colour)
        case .tiff: tiff(bytes, metadata)
        }
    }

    private static func jpeg(_ bytes: Data, _ m: CaptureMetadata) -> Data {
        let b = [UInt8](bytes)
        guard b.count > 4, b[0] == 0xFF, b[1] == 0xD8 else { return bytes }
        var at = 2
        // After a JFIF APP0 segment, which readers expect first.
        if b.count > 6, b[2] == 0xFF, b[3] == 0xE0 { at = 4 + (Int(b[4]) << 8 | Int(b[5])) }
        let payload = Array("Exif".utf8) + [0, 0] + ExifBlock.standalone(m)
        let length = payload.count + 2
        guard length < 0xFFFF else { return bytes }
        let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        return Data(b[..<at] + segment + b[at...])
    }

    private static func png(_ bytes: Data, _ m: CaptureMetadata, colour: (primaries: UInt8, transfer: UInt8)?) -> Data {
        let b = [UInt8](bytes)
        // The signature (8 bytes), then IHDR: length, type, 13 bytes, CRC.
        guard b.count > 33, Array(b[12..<16]) == Array("IHDR".utf8) else { return bytes }
        var chunks: [UInt8] = []
        if let colour { chunks += chunk("cICP", [colour.primaries, colour.transfer, 0, 1]) }
        if !m.isEmpty { chunks += chunk("eXIf", ExifBlock.standalone(m)) }
        return Data(b[..<33] + chunks + b[33...])
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        let n = UInt32(data.count), crc = CRC32.of(typed)
        return [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + typed
            + [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
    }

    private static func tiff(_ bytes: Data, _ m: CaptureMetadata) -> Data {
        var b = [UInt8](bytes)
        // libavcodec writes little-endian TIFF.
        guard !m.isEmpty, b.count > 8, b[0] == 0x49, b[1] == 0x49 else { return bytes }
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
        if b.count % 2 == 1 { b.append(0) }
        let offset = b.count
        b += ExifBlock.directories(m, kept: kept, at: offset)
        b.replaceSubrange(4..<8, with: ExifBlock.le(UInt32(offset)))
        return Data(b)
    }
}

/// The CRC-32 of PNG chunks (ISO 3309, as zlib computes it).
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func of(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes { c = table[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}
