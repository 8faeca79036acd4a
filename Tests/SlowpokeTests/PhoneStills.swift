import Foundation
import TestSupport

/// A phone's clip (2 s of 10-bit BT.2020 HLG H.264 in .mov, with QuickTime's capture date,
/// place, make and model) opened as a document, and its still at 1 s in every format `still`
/// writes: made once per test process (``GeneratedMedia/shared(_:extension:make:)``) and read
/// back by two independent readers, ffprobe (StillMetadataTests) and exiftool
/// (StillTagsReadBackTests). Shared: the files are not to be written to.
struct PhoneStills {
    static let formats = ["jpg", "png", "tiff"]

    /// The clip's recipe: the ffmpeg arguments before its file name.
    static let clip = [
        "-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=2", "-c:v", "libx264", "-pix_fmt", "yuv420p10le",
        "-color_primaries", "bt2020", "-color_trc", "arib-std-b67", "-colorspace", "bt2020nc", "-movflags", "use_metadata_tags",
        "-metadata", "creation_time=2024-05-01T12:34:56Z", "-metadata", "com.apple.quicktime.location.ISO6709=+37.3349-122.0090+010.000/",
        "-metadata", "com.apple.quicktime.make=Apple", "-metadata", "com.apple.quicktime.model=iPhone 15 Pro",
        "-metadata", "com.apple.quicktime.creationdate=2024-05-01T14:34:56+0200",
    ]

    /// The folder holding phone.mov, its document, and still.jpg, still.png and still.tiff.
    let folder: URL

    /// The still of format `ext` (`slowpoke still --at 1 -o still.<ext>`).
    func still(_ ext: String) -> URL { folder.appendingPathComponent("still.\(ext)") }

    /// What `still` printed on standard output when it wrote `still(ext)`.
    func said(_ ext: String) throws -> String {
        try String(contentsOf: folder.appendingPathComponent("still.\(ext).said"), encoding: .utf8)
    }

    /// The stills, made by the first test to ask; a failure to make them fails every test that asks.
    static func made() throws -> PhoneStills {
        let folder = try GeneratedMedia.shared(["phone-stills"] + clip, extension: "") { folder in
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            try FileManager.default.copyItem(at: try GeneratedMedia.made(clip, extension: "mov"), to: folder.appendingPathComponent("phone.mov"))
            let opened = try TestSupport.run(TestSupport.slowpoke, ["open", "phone.mov"], in: folder)
            guard opened.status == 0 else { throw GeneratedMedia.Failure(description: "open phone.mov: \(opened.stderr)") }
            for ext in formats {
                let run = try TestSupport.run(TestSupport.slowpoke, ["still", "--at", "1", "-o", "still.\(ext)"], in: folder)
                guard run.status == 0 else { throw GeneratedMedia.Failure(description: "still -o still.\(ext): \(run.stderr)") }
                try run.stdout.write(to: folder.appendingPathComponent("still.\(ext).said"), atomically: true, encoding: .utf8)
            }
        }
        return PhoneStills(folder: folder)
    }
}
