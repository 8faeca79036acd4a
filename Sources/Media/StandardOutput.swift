public import Foundation

/// Standard output as an export's output (`export -o -`): a movie written front to back as a
/// stream (Matroska, a fragmented mp4, or an MPEG transport stream) to file descriptor 1, for a
/// pipe (`slowpoke export -o - | ffplay -`). Its URL names no file (`stdout:-.mkv`, the scheme
/// says where, the extension which stream form), so that no path a user types can mean it.
public enum StandardOutput {
    /// The stream forms, as `--format` names them: Matroska, fragmented mp4, MPEG-TS.
    public static let formats = ["mkv", "mp4", "ts"]

    /// The output URL for standard output in `format` (one of ``formats``).
    public static func url(format: String) -> URL {
        precondition(formats.contains(format), "no stream form \(format)")
        return URL(string: "stdout:-.\(format)")!
    }

    /// Whether `output` is standard output rather than a file.
    public static func isStandardOutput(_ output: URL) -> Bool { output.scheme == "stdout" }

    /// The stream form that suits a movie: an mp4, mov or m4v source streams as fragmented mp4,
    /// a transport stream (.ts, .m2ts, .mts) as MPEG-TS, and anything else (mkv, webm, avi …) as
    /// Matroska, which holds every codec and stream kind.
    public static func defaultFormat(forMovie movie: URL) -> String {
        switch movie.pathExtension.lowercased() {
        case "mp4", "mov", "m4v": "mp4"
        case "ts", "m2ts", "mts": "ts"
        default: "mkv"
        }
    }

    /// How messages name it.
    package static let displayName = "standard output"
}
