/// Where an audio stream's format changes mid-file (a broadcast recording's 5.1 film between
/// stereo adverts, camcorder clips at 44.1 and 48 kHz joined with `cat`), as its frames' headers
/// say: from `time` on (seconds from the movie's start), the stream is at `sampleRate` with
/// `channels` channels laid out as `channelLayout` (nil when the header names no layout).
/// A stream's list starts with its first format.
public struct AudioFormatChange: Sendable, Hashable, Codable {
    public var time: Double
    public var sampleRate: Int
    public var channels: Int
    public var channelLayout: String?

    public init(time: Double, sampleRate: Int, channels: Int, channelLayout: String?) {
        self.time = time
        self.sampleRate = sampleRate
        self.channels = channels
        self.channelLayout = channelLayout
    }

    /// How `info` and the export's warning name the format: `48000 Hz 5.1(side)`.
    public var formatName: String { "\(sampleRate) Hz \(channelLayout ?? "\(channels) channels")" }
}

extension AudioFormatChange {
    /// The one format a stream with `changes` plays in: the widest layout among them (the first
    /// with that many channels) at the first rate.
    public static func declared(_ changes: [AudioFormatChange]) -> AudioFormatChange {
        let widest = changes.reduce(changes[0]) { $1.channels > $0.channels ? $1 : $0 }
        return AudioFormatChange(time: 0, sampleRate: changes[0].sampleRate, channels: widest.channels, channelLayout: widest.channelLayout)
    }

    /// What a warning says about `changes`: `changes format mid-file (48000 Hz 5.1(side) at 0.000 s,
    /// 48000 Hz stereo at 2.000 s) and plays as 48000 Hz 5.1(side), mixed and resampled by libswresample`.
    public static func summary(_ changes: [AudioFormatChange]) -> String {
        let list = changes.map { "\($0.formatName) at \(Self.seconds($0.time)) s" }.joined(separator: ", ")
        return "changes format mid-file (\(list)) and plays as \(declared(changes).formatName), mixed and resampled by libswresample"
    }

    static func seconds(_ t: Double) -> String {
        let thousandths = Int64((t * 1000).rounded())
        let fraction = String(thousandths % 1000)
        return "\(thousandths / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}
