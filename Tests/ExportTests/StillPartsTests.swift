import Foundation
import FlowInterpolation
@testable import Export
import Testing

/// The parts of `slowpoke still` that need no movie: the merge's function type against its
/// header, and the capture metadata read from phones' tags.
@Suite struct StillPartsTests {
    @Test func mergeFunctionTypeIsTheHeaders() {
        let merge: MergeLibrary.Merge = sp_flow_merge
        _ = merge
    }

    @Test func captureTagsAsPhonesWriteThem() {
        let apple = CaptureMetadata(tags: ["com.apple.quicktime.creationdate": "2024-05-01T14:34:56+0200",
                                           "creation_time": "2024-05-01T12:34:56.000000Z",
                                           "com.apple.quicktime.location.iso6709": "+37.3349-122.0090+010.000/",
                                           "com.apple.quicktime.make": "Apple", "com.apple.quicktime.model": "iPhone 15 Pro"])
        #expect(apple.dateTime == "2024:05:01 14:34:56" && apple.offset == "+02:00")
        #expect(apple.latitude == 37.3349 && apple.longitude == -122.009 && apple.altitude == 10)
        #expect(apple.make == "Apple" && apple.model == "iPhone 15 Pro")
        let android = CaptureMetadata(tags: ["creation_time": "2023-11-02T08:00:01.000000Z", "location": "+48.8584+002.2945/"])
        #expect(android.dateTime == "2023:11:02 08:00:01" && android.offset == "+00:00")
        #expect(android.latitude == 48.8584 && android.longitude == 2.2945 && android.altitude == nil)
        #expect(android.found == ["date", "location"])
        #expect(CaptureMetadata(tags: ["location": "+95.0+10.0/", "creation_time": "yesterday"]).isEmpty)
    }

    @Test func exifDirectoriesPointAtEachOther() {
        var m = CaptureMetadata(tags: [:])
        m.make = "Apple"
        m.dateTime = "2024:05:01 14:34:56"
        m.latitude = -33.8568
        m.longitude = 151.2153
        let b = ExifBlock.standalone(m)
        func u16(_ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
        func u32(_ i: Int) -> Int { u16(i) | u16(i + 2) << 16 }
        #expect(Array(b[0..<4]) == [0x49, 0x49, 0x2A, 0])
        let ifd0 = u32(4)
        let entries = (0..<u16(ifd0)).map { (tag: u16(ifd0 + 2 + 12 * $0), value: u32(ifd0 + 2 + 12 * $0 + 8)) }
        #expect(entries.map(\.tag) == entries.map(\.tag).sorted())
        let gps = try! #require(entries.first { $0.tag == 0x8825 }).value
        let exif = try! #require(entries.first { $0.tag == 0x8769 }).value
        #expect(u16(exif + 2) == 0x9003)
        // GPS: version, then latitude reference "S".
        #expect(u16(gps + 2) == 0 && u16(gps + 14) == 1 && b[gps + 14 + 8] == UInt8(ascii: "S"))
        #expect(ExifBlock.degrees(33.8568).map(\.0) == [33, 51, 244_800])
    }
}
