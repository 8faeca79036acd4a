@testable import Bitstream
import Foundation
import TestSupport
import Testing

/// ``CroppingWindow`` on streams x264 and x265 make at test time: read, narrowed, written into
/// the SPS and read again; every element other than the window's keeps its value, and writing
/// the original window back gives the original bytes.
@Suite struct CroppingWindowTests {
    static let windowNames: Set<String> = ["frame_cropping_flag", "frame_crop_left_offset", "frame_crop_right_offset", "frame_crop_top_offset",
                                           "frame_crop_bottom_offset", "conformance_window_flag", "conf_win_left_offset", "conf_win_right_offset",
                                           "conf_win_top_offset", "conf_win_bottom_offset"]

    /// 120x90 has a window already (x264 codes 128x96, x265 120x96); 128x96 has none.
    @Test(arguments: ["120x90", "128x96"], [false, true]) func roundTrip(size: String, hevc: Bool) throws {
        let folder = try TemporaryFolder("cropping-window")
        let shapes = hevc ? EncodedStream.hevcShapes : EncodedStream.h264Shapes
        var checked = 0
        for shape in shapes where ["pyramid", "high10", "main10"].contains(shape.name) {
            let stream = try EncodedStream(hevc ? .hevc : .h264, shape, size: size, frames: 4, in: folder)
            let window = try CroppingWindow(record: stream.record, hevc: hevc)
            let parts = size.split(separator: "x").map { Int($0)! }
            #expect(window.width == parts[0] && window.height == parts[1], "\(stream.name) \(size)")
            #expect(window.unitX == 2 && window.unitY == 2)
            let narrowed = try window.cropped(width: 64, height: 48, x: 16, y: 8)
            #expect(narrowed.width == 64 && narrowed.height == 48 && narrowed.left == window.left + 16 && narrowed.top == window.top + 8)
            let units = stream.units.filter { CroppingWindow.isSPS($0[0], hevc: hevc) }
            #expect(!units.isEmpty)
            for unit in units {
                let rewritten = try narrowed.written(into: unit, hevc: hevc)
                let (again, after, _) = try CroppingWindow.read(rewritten, hevc: hevc)
                #expect(again == narrowed, "\(stream.name)")
                let (_, before, _) = try CroppingWindow.read(unit, hevc: hevc)
                let kept = { (list: [SyntaxReader.Element]) in list.filter { !Self.windowNames.contains($0.name) }.map { "\($0.name)=\($0.value)" } }
                #expect(kept(after) == kept(before) && kept(before).count >= 20, "\(stream.name)")
                // What follows the elements read (HEVC's VUI and extensions) is kept too.
                #expect(try window.written(into: rewritten, hevc: hevc) == unit, "\(stream.name): the original window written back")
                checked += 1
            }
            // The record: every SPS states the new window.
            let record = try narrowed.written(intoRecord: stream.record, hevc: hevc)
            #expect(try CroppingWindow(record: record, hevc: hevc) == narrowed)
            #expect(try window.written(intoRecord: record, hevc: hevc) == (hevc ? try #require(HEVCParameterSets(hvcC: stream.record)).hvcC : stream.record))
        }
        #expect(checked >= 2)
    }

    @Test func offGridAndOutsideAreRefused() throws {
        let window = CroppingWindow(codedWidth: 128, codedHeight: 96, unitX: 2, unitY: 2)
        #expect(throws: CropRefusal.offGrid("the crop's left edge (1) is not a multiple of 2, the grid the stream's chroma samples allow a cropping window on")) {
            try window.cropped(width: 64, height: 48, x: 1, y: 0)
        }
        #expect(throws: CropRefusal.offGrid("the crop's bottom edge (49) is not a multiple of 2, the grid the stream's chroma samples allow a cropping window on")) {
            try window.cropped(width: 64, height: 47, x: 0, y: 2)
        }
        #expect(throws: CropRefusal.outside("the crop (64x48 at 80,0) does not fit the 128x96 picture")) {
            try window.cropped(width: 64, height: 48, x: 80, y: 0)
        }
        let full = CroppingWindow(codedWidth: 128, codedHeight: 96, unitX: 1, unitY: 1)
        #expect(try full.cropped(width: 63, height: 47, x: 1, y: 1).right == 64)
    }

    /// A sample holding an in-band SPS gets it rewritten; one without is left alone (nil).
    @Test func inBandSets() throws {
        let folder = try TemporaryFolder("cropping-window-sample")
        let stream = try EncodedStream(.h264, EncodedStream.h264Shapes[0], frames: 4, in: folder)
        let window = try CroppingWindow(record: stream.record, hevc: false)
        let narrowed = try window.cropped(width: 32, height: 32, x: 2, y: 4)
        let sample = LengthPrefixedUnits.sample(stream.units.prefix(4).map { $0 }, lengthSize: 4)
        let out = try #require(try sample.withUnsafeBufferPointer { try narrowed.written(intoSample: $0, lengthSize: 4, hevc: false) })
        let units = out.withUnsafeBufferPointer { Array(LengthPrefixedUnits($0, lengthSize: 4)).map { Array($0) } }
        let sps = try #require(units.first { CroppingWindow.isSPS($0[0], hevc: false) })
        #expect(try CroppingWindow.read(sps, hevc: false).window == narrowed)
        #expect(units.filter { !CroppingWindow.isSPS($0[0], hevc: false) } == stream.units.prefix(4).filter { !CroppingWindow.isSPS($0[0], hevc: false) })
        let slices = LengthPrefixedUnits.sample(stream.units.filter { H264NALType.of($0[0])?.isPictureSlice ?? false }.prefix(1).map { $0 }, lengthSize: 4)
        #expect(try slices.withUnsafeBufferPointer { try narrowed.written(intoSample: $0, lengthSize: 4, hevc: false) } == nil)
    }
}
