import Foundation
internal import CFFmpeg
import Media

/// Encodes the edited stretches of a smart-audio track (see ``SplicedAudio``), one after the
/// other, on the thread that calls ``take(_:)``: each with a fresh encoder fed a lead-in before
/// the stretch and a tail after it, keeping only the packets that fill the stretch, timed in
/// output samples, followed by a ``SplicedAudio/Item/pieceEnd``. A stretch with a bridge (see
/// ``BridgeFeed``) marks the samples the decoder must drop.
final class SpanEncoder {
    enum Job {
        /// A stretch of output samples starts: its rendered audio (``rendered(_:bridge:)``) follows.
        case start(Range<Int64>, AudioSplicePlan.Bridge?)
        /// How many samples the bridge inserts (before they come).
        case inserted(Int)
        case samples([[Float]], Int)
        case finish
    }

    private let make: () throws -> AudioEncoder
    private let frame: Int64
    private let delay: Int64
    private let total: Int64
    private let queue: BlockingQueue<SplicedAudio.Item>
    private var encoder: AudioEncoder?
    private var deliver: ((UnsafeMutablePointer<AVPacket>) throws -> Void)?
    private var inserted: Int64?

    init(make: @escaping () throws -> AudioEncoder, frame: Int, delay: Int64, total: Int64, queue: BlockingQueue<SplicedAudio.Item>) {
        self.make = make
        self.frame = Int64(frame)
        self.delay = delay
        self.total = total
        self.queue = queue
    }

    /// Eight whole frames of real audio before a stretch's first kept frame, on the frame grid,
    /// so that the encoder has settled by the seam (with one frame, the seam had audible noise);
    /// none at the start of the timeline and for PCM.
    func lead(_ output: Range<Int64>) -> Int64 {
        output.lowerBound <= 0 || frame == 1 ? 0 : frame * ((delay + 8 * frame + frame - 1) / frame) - delay
    }

    /// The output samples to render for stretch `output`: with its lead-in, and a tail of two
    /// frames (and what a bridge looks ahead) but at the end of the timeline and for PCM.
    func rendered(_ output: Range<Int64>, bridge: AudioSplicePlan.Bridge?) -> Range<Int64> {
        let tail = output.upperBound >= total || frame == 1 ? 0 : 2 * frame + (bridge.map { Int64($0.surplus) + 7 * frame } ?? 0)
        return (output.lowerBound - lead(output))..<(output.upperBound + tail)
    }

    func take(_ job: Job) throws {
        switch job {
        case .start(let output, let bridge):
            encoder = try make()
            inserted = nil
            deliver = packets(for: output, bridge: bridge)
        case .inserted(let count):
            inserted = Int64(count)
        case .samples(let samples, let count):
            try encoder?.write(samples, count: count, deliver: deliver!)
        case .finish:
            try encoder?.finish(deliver: deliver!)
            encoder = nil
            deliver = nil
            try queue.push(.pieceEnd)
        }
    }

    /// What happens to each packet the encoder makes for stretch `output`: kept when it falls
    /// in the stretch, timed in output; with a bridge, the packet that ends in it and the whole
    /// packets inside it are told to drop those samples, and the packets after move back by them.
    private func packets(for output: Range<Int64>, bridge: AudioSplicePlan.Bridge?) -> (UnsafeMutablePointer<AVPacket>) throws -> Void {
        let lead = lead(output), f = frame, first = output.lowerBound <= 0, last = output.upperBound >= total
        let surplus = Int64(bridge?.surplus ?? 0)
        // The frame that ends with the first bridged sample, in input samples after the lead-in.
        let bridged = bridge.map { $0.at + surplus - f } ?? .max
        return { [queue, unowned self] p in
            let relative = p.pointee.pts - lead
            let added = self.inserted ?? surplus
            guard relative >= (first ? .min : 0), last || relative < Int64(output.count) + added else { return }
            let copy = try Packet()
            LibAVCodec.packetMoveRef(copy.pointer, p)
            let q = copy.pointer
            if relative >= bridged && relative < bridged + f + added - surplus {
                let dropped = relative == bridged ? surplus : f
                q.pointee.duration = f - dropped
                try Self.discardEnd(dropped, of: q)
                q.pointee.pts = output.lowerBound + min(relative, bridged + f - surplus)
            } else if relative >= bridged {
                q.pointee.pts = output.lowerBound + relative - added
            } else {
                q.pointee.pts = output.lowerBound + relative
            }
            q.pointee.dts = q.pointee.pts
            try queue.push(.packet(copy))
        }
    }

    /// Asks the decoder to drop the last `count` samples of packet `p`'s output (Matroska
    /// writes it as DiscardPadding).
    private static func discardEnd(_ count: Int64, of p: UnsafeMutablePointer<AVPacket>) throws {
        guard let data = LibAVCodec.packetNewSideData(p, AV_PKT_DATA_SKIP_SAMPLES, 10) else {
            throw ExportError.libav(AVFailure(code: sp_averror(ENOMEM), operation: "marking samples to discard"))
        }
        for i in 0..<10 { data[i] = 0 }
        for i in 0..<4 { data[4 + i] = UInt8((UInt64(count) >> (8 * UInt64(i))) & 0xff) }
    }
}
