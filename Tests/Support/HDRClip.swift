import Foundation

extension TestSupport {
    /// Encodes the lavfi `picture` as a 10-bit HEVC clip in BT.2020 with the transfer `transfer`
    /// (ffmpeg's name: `smpte2084` for PQ, `arib-std-b67` for HLG), converted by zscale from
    /// BT.709 at 100 nits, as a camera or grading tool would tag it. Returns ffmpeg's result.
    public static func encodeHDR(_ picture: String, transfer: String, to url: URL) throws -> Result {
        try tool("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", picture,
            "-vf", "format=yuv420p,zscale=tin=bt709:min=bt709:pin=bt709:rin=tv:t=\(transfer):p=bt2020:m=bt2020nc:r=tv:npl=100,format=yuv420p10le",
            "-c:v", "libx265", "-x265-params", "log-level=error", "-preset", "ultrafast",
            "-color_primaries", "bt2020", "-color_trc", transfer, "-colorspace", "bt2020nc", "-y", url.path])
    }
}
