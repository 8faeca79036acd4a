import Foundation
public import Composition

/// What `export --verify` proved about a passthrough output (``ExportVerifier``): every count
/// is of things checked in the written file against the ``PassthroughPlan``.
public struct ExportVerification: Sendable, Equatable {
    /// Video frames shown, each at the plan's presentation time, exact in the output timescale.
    public let frames: Int
    /// Copied packets whose bytes equal the source packet the plan names.
    public let copiedIdentical: Int
    /// Copied packets the exporter rewrote (open-GOP recovery points made IDR pictures and the
    /// pictures renumbered after them; HEVC packets given the stream's parameter sets in band
    /// where copying resumes): decoded, and their pictures equal the source's bit for bit.
    public let rewrittenIdentical: Int
    /// Re-encoded frames decoded and compared with the source frame they show.
    public let reencoded: Int
    /// With a crop: copied frames decoded (cropped by the rewritten window) whose pictures equal
    /// the source's, cut to the same region, bit for bit.
    public var croppedIdentical = 0
    /// The lowest PSNR (luma and chroma samples together, in dB) of a re-encoded frame; nil
    /// when none is re-encoded, infinity when every one decodes to its source's picture.
    public let minimumPSNR: Double?
    /// Streams in the output (their kinds as the plan says they are written).
    public let streams: Int
    /// The largest difference between the audio's start and end and the video's, in seconds;
    /// nil without audio.
    public let sync: Double?

    /// One line of proof: `verified: 3156 frames, 3138 copied byte-identical, 18 re-encoded at
    /// 54.1 dB or better, 4 streams, sync within 0.3 ms`.
    public var line: String {
        var parts = ["\(frames) frames", "\(copiedIdentical) copied byte-identical"]
        if croppedIdentical > 0 { parts.append("\(croppedIdentical) decoded identical to the source's pictures cropped the same way") }
        if rewrittenIdentical > 0 { parts.append("\(rewrittenIdentical) rewritten cop\(rewrittenIdentical == 1 ? "y" : "ies") decoded identical") }
        if reencoded > 0, let psnr = minimumPSNR {
            parts.append(psnr.isInfinite ? "\(reencoded) re-encoded and decoded identical"
                         : "\(reencoded) re-encoded at \(String(format: "%.1f", psnr)) dB or better")
        }
        parts.append("\(streams) stream\(streams == 1 ? "" : "s")")
        if let sync { parts.append("sync within \(String(format: "%.1f", sync * 1000)) ms") }
        return "verified: " + parts.joined(separator: ", ")
    }

    /// The lowest PSNR a re-encoded frame may have.
    public static let minimumAllowedPSNR = 45.0

    /// One way the output differs from its plan, stated as a fact that names the frame.
    public enum Difference: Sendable, Equatable, CustomStringConvertible {
        /// The output shows another number of video frames than the plan.
        case frameCount(planned: Int, found: Int)
        /// Shown frame `frame` (0-based, presentation order) is at another time.
        case frameTime(frame: Int, planned: Time, found: Time)
        /// The copied packet of the frame at `time` differs from source packet `source`.
        case copiedBytes(time: Time, source: Time)
        /// A frame at `time` that the plan re-encodes decodes to `psnr` dB against source frame
        /// `source` (-infinity: another size or format); a rewritten copy (`rewritten`, psnr
        /// not measured) to another picture than the source's, where it must be identical.
        case picture(time: Time, source: Time, psnr: Double, rewritten: Bool)
        /// The frame at `time` could not be decoded from the output, or source frame `source`.
        case undecodable(time: Time, source: Time)
        /// The output's streams are not those the plan writes (kinds, as libavutil names them).
        case streams(planned: [String], found: [String])
        /// The audio starts or ends `offset` seconds from the video, more than `allowed`.
        case sync(edge: String, offset: Double, allowed: Double)

        public var description: String {
            switch self {
            case .frameCount(let planned, let found): "the output shows \(found) video frames; the plan has \(planned)"
            case .frameTime(let frame, let planned, let found): "video frame \(frame) is at \(found.readable); the plan puts it at \(planned.readable)"
            case .copiedBytes(let time, let source): "the copied packet of the frame at \(time.readable) differs from the source packet at \(source.readable)"
            case .picture(let time, let source, let psnr, let rewritten):
                rewritten ? "the rewritten copy at \(time.readable) decodes to another picture than source \(source.readable) (it must decode identically)"
                    : "the re-encoded frame at \(time.readable) decodes to \(psnr.isFinite ? String(format: "%.1f dB", psnr) : "a picture of another size or format") against source \(source.readable) (at least \(String(format: "%.0f", minimumAllowedPSNR)) dB needed)"
            case .undecodable(let time, let source): "the frame at \(time.readable) (source \(source.readable)) could not be decoded"
            case .streams(let planned, let found): "the output has streams \(found.joined(separator: ", ")); the plan writes \(planned.joined(separator: ", "))"
            case .sync(let edge, let offset, let allowed):
                "the audio \(edge) \(String(format: "%.1f", offset * 1000)) ms from the video's (at most \(String(format: "%.1f", allowed * 1000)) ms allowed)"
            }
        }
    }

    /// What verification found wrong: every difference, first ones first.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public let differences: [Difference]
        /// Things checked before the differences were found (frames, packets), for the message.
        public let checked: Int

        public var description: String {
            let shown = differences.prefix(3).map(\.description).joined(separator: "; ")
            let more = differences.count > 3 ? "; and \(differences.count - 3) more differences" : ""
            return "verification failed: \(shown)\(more)"
        }
    }
}
