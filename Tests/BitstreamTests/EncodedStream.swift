@testable import Bitstream
import Foundation
import TestSupport
import Testing

/// A short stream libx264 or libx265 makes at test time in a shape a smart cut meets (B-pyramids,
/// several slices, open GOPs, 10 bits): its NAL units as written (Annex B) and the configuration
/// record (avcC, hvcC) ffmpeg's mp4 muxer makes of them.
struct EncodedStream {
    enum Codec: String { case h264, hevc }

    let name: String
    let codec: Codec
    let units: [[UInt8]]
    let record: [UInt8]

    static let h264Shapes: [(name: String, args: [String])] = [
        ("pyramid", ["-x264-params", "keyint=24:bframes=3:b-pyramid=normal:ref=4:weightp=2"]),
        ("slices-cavlc", ["-x264-params", "slices=4:cabac=0:bframes=2:keyint=10"]),
        ("open-gop", ["-x264-params", "keyint=12:min-keyint=12:open-gop=1:bframes=3:scenecut=0"]),
        ("high10", ["-pix_fmt", "yuv420p10le", "-profile:v", "high10", "-x264-params", "bframes=3:b-pyramid=normal:keyint=8"]),
    ]

    static let hevcShapes: [(name: String, args: [String])] = [
        ("pyramid", ["-x265-params", "log-level=error:keyint=16:bframes=4:b-pyramid=1"]),
        ("slices", ["-x265-params", "log-level=error:slices=3:keyint=8:bframes=2:ctu=16"]),
        ("open-gop", ["-x265-params", "log-level=error:keyint=8:min-keyint=8:open-gop=1:bframes=3"]),
        ("main10", ["-pix_fmt", "yuv420p10le", "-profile:v", "main10", "-x265-params", "log-level=error:keyint=8:bframes=3:weightb=1"]),
    ]

    /// Encodes `frames` frames of testsrc2 at `size` in `shape`.
    init(_ codec: Codec, _ shape: (name: String, args: [String]), size: String = "128x96", frames: Int = 25, in folder: TemporaryFolder) throws {
        let raw = folder.file("\(codec)-\(shape.name).\(codec == .h264 ? "h264" : "hevc")")
        let mp4 = folder.file("\(codec)-\(shape.name).mp4")
        let encoder = codec == .h264 ? "libx264" : "libx265"
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=25", "-frames:v", "\(frames)",
                                                   "-c:v", encoder] + shape.args + ["-y", raw.path])
        try #require(made.status == 0, "\(made.stderr)")
        let muxed = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", raw.path, "-c", "copy", "-y", mp4.path])
        try #require(muxed.status == 0, "\(muxed.stderr)")
        name = "\(codec) \(shape.name)"
        self.codec = codec
        units = try Data(contentsOf: raw).withUnsafeBytes { AnnexBUnits.units($0.bindMemory(to: UInt8.self)) }
        record = try #require(Self.box(codec == .h264 ? "avcC" : "hvcC", in: [UInt8](Data(contentsOf: mp4))))
    }

    /// The payload of the first box of type `type` in an mp4 file's bytes.
    static func box(_ type: String, in file: [UInt8]) -> [UInt8]? {
        let tag = Array(type.utf8)
        guard let at = (4..<max(4, file.count - 4)).first(where: { Array(file[$0 ..< $0 + 4]) == tag }) else { return nil }
        let size = file[at - 4 ..< at].reduce(0) { $0 << 8 | Int($1) }
        guard size >= 8, at - 4 + size <= file.count else { return nil }
        return Array(file[at + 4 ..< at - 4 + size])
    }
}
