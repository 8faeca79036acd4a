import Foundation

extension TestSupport {
    /// Each decoded frame's MD5 of a file's first video stream, in presentation order, by
    /// ffmpeg's own decoder (`-fps_mode passthrough`: the null muxer would otherwise report false
    /// "non monotonically increasing dts" on sections faster than the nominal rate), with what
    /// ffmpeg said on `-v error` (empty when it decoded cleanly).
    public static func frameMD5s(_ file: URL) throws -> (md5s: [String], errors: String) {
        let result = try tool("ffmpeg", ["-v", "error", "-i", file.path, "-map", "0:v:0", "-fps_mode", "passthrough",
                                         "-f", "framemd5", "-"])
        let md5s = result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
        return (md5s, result.status == 0 ? result.stderr : "exit \(result.status): \(result.stderr)")
    }
}
