import Foundation
public import TimePitch

/// What `slowpoke stretch` and the read-ahead need of an audio file reader: libav's, or the
/// native WAV one.
public protocol AudioFileSource: AudioSource {
    /// Told about damaged input.
    var onWarning: ((String) -> Void)? { get set }
    /// The name of the file's sample format as libav reports it, such as `s16`.
    var sampleFormatName: String { get }
    /// Whether the samples are 16-bit integers or coarser.
    var hasCoarseQuantisation: Bool { get }
    /// Where the audio ends, in frames from time 0 (its length, when it starts at 0).
    func exactLength() throws -> Int64
}

extension AudioFileReader: AudioFileSource {}
extension WAVFileReader: AudioFileSource {}
