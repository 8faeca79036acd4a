import Foundation
internal import CFFmpeg

/// Encodes the edited stretches of a smart-audio track (see ``SplicedAudio``), one after the
/// other, on the thread that calls ``take(_:)``: each with a fresh encoder fed a lead-in before
/// the stretch and a tail after it, keeping only the packets that fill the stretch, timed in
/// output samples, followed by a ``SplicedAudio/Item/pieceEnd``.
final class SpanEncoder {
    enum Job {
        /// A stretch of output samples starts: its rendered audio (``rendered(_:)``) follows.
        case start(Range<Int64>)
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
    private func lead(_ output: Range<Int64>) -> Int64 {
        output.lowerBound <= 0 || frame == 1 ? 0 : frame * ((delay + 8 * frame + frame - 1) / frame) - delay
    }

    /// Two frames after a stretch's last, but at the end of the timeline and for PCM.
    private func tail(_ output: Range<Int64>) -> Int64 { output.upperBound >= total || frame == 1 ? 0 : 2 * frame }

    /// The output samples to render for stretch `output`: with its lead-in and tail.
    func rendered(_ output: Range<Int64>) -> Range<Int64> {
        (output.lowerBound - lead(output))..<(output.upperBound + tail(output))
    }

    func take(_ job: Job) throws {
        switch job {
        case .start(let output):
            let lead = lead(output)
            let keep = (output.lowerBound <= 0 ? Int64.min : 0)..<(output.upperBound >= total ? Int64.max : Int64(output.count))
            encoder = try make()
            deliver = { [queue] p in
                let relative = p.pointee.pts - lead
                guard keep.contains(relative) else { return }
                let copy = try Packet()
                av_packet_move_ref(copy.pointer, p)
                copy.pointer.pointee.pts = output.lowerBound + relative
                copy.pointer.pointee.dts = copy.pointer.pointee.pts
                try queue.push(.packet(copy))
            }
        case .samples(let samples, let count):
            try encoder?.write(samples, count: count, deliver: deliver!)
        case .finish:
            try encoder?.finish(deliver: deliver!)
            encoder = nil
            deliver = nil
            try queue.push(.pieceEnd)
        }
    }
}
