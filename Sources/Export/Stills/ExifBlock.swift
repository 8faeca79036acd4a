import Foundation

/// EXIF as a TIFF structure (little-endian), built from ``CaptureMetadata``: IFD0 with the
/// make, model, software and date, an EXIF IFD with its version, the original date and its UTC
/// offset and the colour space (``StillColour/exifColorSpace``), and a GPS IFD with latitude,
/// longitude and altitude. ``standalone(_:)`` is the block JPEG's APP1
/// and PNG's eXIf chunk hold; ``TIFFDirectory`` adds the same entries to a TIFF file.
enum ExifBlock {
    struct Entry {
        let tag: UInt16
        let type: UInt16
        let count: UInt32
        /// The value's bytes, little-endian; when `raw`, the 4-byte value field as found.
        let value: [UInt8]
        var raw = false
    }

    static func ascii(_ tag: UInt16, _ text: String) -> Entry {
        let bytes = Array(text.utf8.filter { $0 >= 0x20 && $0 < 0x7F }) + [0]
        return Entry(tag: tag, type: 2, count: UInt32(bytes.count), value: bytes)
    }

    static func long(_ tag: UInt16, _ value: UInt32) -> Entry {
        Entry(tag: tag, type: 4, count: 1, value: le(value))
    }

    static func rationals(_ tag: UInt16, _ values: [(UInt32, UInt32)]) -> Entry {
        Entry(tag: tag, type: 5, count: UInt32(values.count), value: values.flatMap { le($0.0) + le($0.1) })
    }

    static func bytes(_ tag: UInt16, _ values: [UInt8]) -> Entry {
        Entry(tag: tag, type: 1, count: UInt32(values.count), value: values)
    }

    static func undefined(_ tag: UInt16, _ values: [UInt8]) -> Entry {
        Entry(tag: tag, type: 7, count: UInt32(values.count), value: values)
    }

    static func short(_ tag: UInt16, _ value: UInt16) -> Entry {
        Entry(tag: tag, type: 3, count: 1, value: le(value))
    }

    static func le(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }
    static func le(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }

    /// The entries of IFD0 (without the pointers to the other two), the EXIF IFD and the GPS IFD.
    static func entries(_ m: CaptureMetadata, colorSpace: UInt16?) -> (main: [Entry], exif: [Entry], gps: [Entry]) {
        var main: [Entry] = []
        if let make = m.make { main.append(ascii(0x010F, make)) }
        if let model = m.model { main.append(ascii(0x0110, model)) }
        main.append(ascii(0x0131, "slowpoke"))
        var exif: [Entry] = []
        if let colorSpace { exif += [undefined(0x9000, Array("0232".utf8)), short(0xA001, colorSpace)] }
        if let date = m.dateTime {
            main.append(ascii(0x0132, date))
            exif.append(ascii(0x9003, date))
            if let offset = m.offset { exif.append(ascii(0x9011, offset)) }
        }
        var gps: [Entry] = []
        if let latitude = m.latitude, let longitude = m.longitude {
            gps.append(bytes(0x0000, [2, 3, 0, 0]))
            gps.append(ascii(0x0001, latitude < 0 ? "S" : "N"))
            gps.append(rationals(0x0002, degrees(abs(latitude))))
            gps.append(ascii(0x0003, longitude < 0 ? "W" : "E"))
            gps.append(rationals(0x0004, degrees(abs(longitude))))
            if let altitude = m.altitude {
                gps.append(bytes(0x0005, [altitude < 0 ? 1 : 0]))
                gps.append(rationals(0x0006, [(UInt32(min(abs(altitude) * 1000, 4e9).rounded()), 1000)]))
            }
        }
        return (main, exif, gps)
    }

    /// Degrees, minutes and seconds (to 1/10000 s) as three rationals.
    static func degrees(_ value: Double) -> [(UInt32, UInt32)] {
        let whole = value.rounded(.down)
        let minutes = ((value - whole) * 60).rounded(.down)
        let seconds = ((value - whole) * 60 - minutes) * 60
        return [(UInt32(whole), 1), (UInt32(minutes), 1), (UInt32((seconds * 10000).rounded()), 10000)]
    }

    /// The bytes of one IFD placed at `offset` (from the TIFF header's start): its entries
    /// sorted by tag, the next-IFD pointer `next`, then the values longer than 4 bytes.
    static func directory(_ entries: [Entry], at offset: Int, next: UInt32 = 0) -> [UInt8] {
        let sorted = entries.sorted { $0.tag < $1.tag }
        var head = le(UInt16(sorted.count))
        var tail: [UInt8] = []
        let dataStart = offset + 2 + 12 * sorted.count + 4
        for e in sorted {
            head += le(e.tag) + le(e.type) + le(e.count)
            if e.raw || e.value.count <= 4 {
                head += e.value + [UInt8](repeating: 0, count: 4 - e.value.count)
            } else {
                head += le(UInt32(dataStart + tail.count))
                tail += e.value
                if tail.count % 2 == 1 { tail.append(0) }
            }
        }
        return head + le(next) + tail
    }

    /// The size ``directory(_:at:next:)`` takes.
    static func size(_ entries: [Entry]) -> Int {
        2 + 12 * entries.count + 4 + entries.reduce(0) { $0 + ($1.raw || $1.value.count <= 4 ? 0 : ($1.value.count + 1) / 2 * 2) }
    }

    /// IFD0 with `main` (plus `kept`, entries already in a file, and `extra`, entries of this
    /// file's own such as TIFF's XMP and ICC profile) and the EXIF and GPS IFDs after it, IFD0
    /// at `offset`; the bytes from `offset` on.
    static func directories(_ m: CaptureMetadata, colorSpace: UInt16? = nil, kept: [Entry] = [], extra: [Entry] = [],
                            at offset: Int) -> [UInt8] {
        let (main, exif, gps) = entries(m, colorSpace: colorSpace)
        let keptTags = Set(kept.map(\.tag))
        var first = kept + (main + extra).filter { !keptTags.contains($0.tag) }
        let pointers = (exif.isEmpty ? 0 : 1) + (gps.isEmpty ? 0 : 1)
        let exifOffset = offset + size(first) + 12 * pointers
        let gpsOffset = exifOffset + (exif.isEmpty ? 0 : size(exif))
        if !exif.isEmpty { first.append(long(0x8769, UInt32(exifOffset))) }
        if !gps.isEmpty { first.append(long(0x8825, UInt32(gpsOffset))) }
        var out = directory(first, at: offset)
        if !exif.isEmpty { out += directory(exif, at: exifOffset) }
        if !gps.isEmpty { out += directory(gps, at: gpsOffset) }
        return out
    }

    /// A TIFF header and the directories: the EXIF block of JPEG's APP1 and PNG's eXIf.
    static func standalone(_ m: CaptureMetadata, colorSpace: UInt16? = nil) -> [UInt8] {
        [0x49, 0x49, 0x2A, 0x00] + le(UInt32(8)) + directories(m, colorSpace: colorSpace, at: 8)
    }
}
