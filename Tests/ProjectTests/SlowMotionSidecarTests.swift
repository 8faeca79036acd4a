import Composition
import Foundation
import Project
import Testing
import TestSupport

/// A sidecar in the shape Photos writes (as far as it is known): an XML plist whose
/// `adjustmentData` is a binary plist. `slowMotion` replaces the inner `slowMotion` entry.
private func sidecar(slowMotion: Any? = nil, identifier: String = "com.apple.video.slomo", inner: Any? = nil) throws -> Data {
    let time: (Int, Int) -> [String: Any] = { ["value": $0, "timescale": $1, "flags": 1, "epoch": 0] }
    let slow = slowMotion ?? ["rate": Float(0.125), "regions": [["timeRange": ["start": time(1200, 600), "duration": time(3000, 600)]]]]
    let payload = try PropertyListSerialization.data(fromPropertyList: inner ?? ["slowMotion": slow], format: .binary, options: 0)
    let outer: [String: Any] = ["adjustmentBaseVersion": 0, "adjustmentData": payload, "adjustmentEditorBundleID": "com.apple.mobileslideshow",
                                "adjustmentFormatIdentifier": identifier, "adjustmentFormatVersion": "1.1"]
    return try PropertyListSerialization.data(fromPropertyList: outer, format: .xml, options: 0)
}

/// The Photos slow-motion sidecar, read defensively (issue 24, part 3).
@Suite struct SlowMotionSidecarTests {
    @Test func theRegionAndRateAreReadExactly() throws {
        let parsed = try SlowMotionSidecar(data: try sidecar(), path: "IMG_0042.AAE")
        #expect(parsed.rate == r("1/8") && parsed.region == range("2", "7"))
        // A float rate such as 0.2 comes back as the fraction it stands for.
        let fifth = try SlowMotionSidecar(data: try sidecar(slowMotion: ["rate": Float(0.2), "regions": [["timeRange": [
            "start": ["value": 0, "timescale": 30000], "duration": ["value": 1001, "timescale": 30000]]]]]), path: "x.AAE")
        let expected = try TimeRange(start: .zero, duration: Time(value: 1001, timescale: 30000))
        #expect(fifth.rate == r("1/5") && fifth.region == expected)
    }

    @Test func theSidecarBesideTheMovieIsFoundByItsStem() throws {
        let folder = try TemporaryFolder("aae")
        let movie = folder.file("IMG_0042.MOV")
        #expect(SlowMotionSidecar.url(besideMovie: movie) == nil)
        try sidecar().write(to: folder.file("IMG_0042.AAE"))
        #expect(SlowMotionSidecar.url(besideMovie: movie)?.lastPathComponent == "IMG_0042.AAE")
        let read = try SlowMotionSidecar(contentsOf: folder.file("IMG_0042.AAE"))
        #expect(read.rate == r("1/8"))
    }

    static var time: [String: Any] { ["value": 600, "timescale": 600] }

    @Test(arguments: [
        ("a dictionary that is not a slow-motion adjustment", try! sidecar(identifier: "com.apple.photo"),
         "its adjustmentFormatIdentifier is com.apple.photo, not com.apple.video.slomo: it is not a slow-motion adjustment"),
        ("no slowMotion", try! sidecar(inner: ["other": 1]), "its adjustmentData has no slowMotion"),
        ("no rate", try! sidecar(slowMotion: ["regions": []]), "its slowMotion has no positive numeric rate"),
        ("a zero rate", try! sidecar(slowMotion: ["rate": 0, "regions": []]), "its slowMotion has no positive numeric rate"),
        ("no regions", try! sidecar(slowMotion: ["rate": 0.25]), "its slowMotion has no regions"),
        ("two regions", try! sidecar(slowMotion: ["rate": 0.25, "regions": [["timeRange": ["start": time, "duration": time]], ["timeRange": ["start": time, "duration": time]]]]),
         "its slowMotion has 2 regions; slowpoke reads exactly one"),
        ("no timeRange", try! sidecar(slowMotion: ["rate": 0.25, "regions": [["range": 1]]]), "its slow-motion region has no timeRange"),
        ("a zero timescale", try! sidecar(slowMotion: ["rate": 0.25, "regions": [["timeRange": ["start": ["value": 1, "timescale": 0], "duration": time]]]]),
         "its region's start is not a CMTime with a whole value and a positive timescale"),
        ("an invalid CMTime", try! sidecar(slowMotion: ["rate": 0.25, "regions": [["timeRange": ["start": time, "duration": ["value": 1, "timescale": 600, "flags": 0]]]]]),
         "its region's duration is not a valid numeric CMTime (flags 0)"),
        ("an empty region", try! sidecar(slowMotion: ["rate": 0.25, "regions": [["timeRange": ["start": time, "duration": ["value": 0, "timescale": 600]]]]]),
         "its slow-motion region lasts 0 s"),
        ("a bare string (an OpenStep plist)", Data("hello".utf8), "its property list is not a dictionary"),
        ("not a plist", Data([0x3C, 0x3F, 0x78, 0x6D, 0xFF, 0x00]), "it is not a property list"),
    ])
    func departuresFromTheShapeAreErrorsNamingTheFile(what: String, data: Data, reason: String) {
        do {
            _ = try SlowMotionSidecar(data: data, path: "/photos/IMG_0042.AAE")
            Issue.record("read a sidecar with \(what)")
        } catch {
            #expect(error.errorDescription == "/photos/IMG_0042.AAE is not a slow-motion sidecar slowpoke can read (\(reason)); the document was left unchanged", "\(what)")
        }
    }
}
