/// Sample rate and channel count of planar 32-bit float audio, slowpoke's working format.
public struct AudioFormat: Sendable, Hashable {
    public let sampleRate: Int
    public let channels: Int

    public init(sampleRate: Int, channels: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
    }
}

extension AudioFormat {
    /// The sample rates slowpoke reads: 1 Hz to 768 kHz (16 × 48 kHz, the highest rate audio
    /// interfaces and formats use). A header outside it is damaged or hostile: 2,000,000,000 Hz
    /// would overflow the resampler's and the timeline's 32-bit rates.
    public static let sampleRates = 1...768_000
    /// The channel counts slowpoke reads: 1 to 64 (seventh-order ambisonics has 64). Every
    /// channel costs buffers and, with timeDomain, a Rubber Band thread; a header claiming 65535
    /// channels would ask for gigabytes before reading a sample.
    public static let channelCounts = 1...64

    /// Why a file whose header says `sampleRate` Hz and `channels` channels is not read, or nil
    /// when both are within ``sampleRates`` and ``channelCounts``.
    public static func refusal(sampleRate: Int, channels: Int) -> String? {
        if !sampleRates.contains(sampleRate) {
            return "its header says \(sampleRate) Hz; slowpoke reads sample rates from 1 Hz to 768 kHz"
        }
        if !channelCounts.contains(channels) {
            return "its header says \(channels) channels; slowpoke reads 1 to 64"
        }
        return nil
    }
}

/// Audio that can be read at any frame position, such as a decoded file. Reading twice from
/// the same place gives the same samples; frames before 0 or past the end read as silence.
public protocol AudioSource: AnyObject {
    var format: AudioFormat { get }
    /// Reads `count` frames starting at `frame` into `buffer`, which has one array per channel,
    /// each at least `count` long.
    func read(at frame: Int64, count: Int, into buffer: inout [[Float]]) throws
}

/// An in-memory ``AudioSource``.
public final class MemoryAudioSource: AudioSource {
    public let format: AudioFormat
    public let samples: [[Float]]

    public init(sampleRate: Int, samples: [[Float]]) {
        self.format = AudioFormat(sampleRate: sampleRate, channels: samples.count)
        self.samples = samples
    }

    public var frameCount: Int { samples.first?.count ?? 0 }

    public func read(at frame: Int64, count: Int, into buffer: inout [[Float]]) {
        let total = Int64(frameCount)
        for channel in 0..<format.channels {
            samples[channel].withUnsafeBufferPointer { source in
                buffer[channel].withUnsafeMutableBufferPointer { target in
                    for i in 0..<count {
                        let position = frame + Int64(i)
                        target[i] = position >= 0 && position < total ? source[Int(position)] : 0
                    }
                }
            }
        }
    }
}

/// Receives rendered audio in order: `count` frames of planar `samples`.
public typealias AudioSink = (_ samples: [[Float]], _ count: Int) throws -> Void
