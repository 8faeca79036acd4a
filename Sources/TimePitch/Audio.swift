/// Sample rate and channel count of planar 32-bit float audio, slowpoke's working format.
public struct AudioFormat: Sendable, Hashable {
    public let sampleRate: Int
    public let channels: Int

    public init(sampleRate: Int, channels: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
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
