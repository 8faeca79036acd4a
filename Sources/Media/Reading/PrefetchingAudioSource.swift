import Foundation
public import TimePitch

/// A file reader (``AudioFileReader`` or ``WAVFileReader``) read ahead on a thread of its own:
/// while the caller works on one block, the next ones are being decoded. Reads that follow on
/// from the previous one are served from the decoded blocks; a read anywhere else restarts the
/// read-ahead there.
///
/// `slowpoke stretch` reads its input twice, once for Rubber Band's study pass and once to
/// process it. During the study pass only one core is busy, so decoding on the other one takes
/// it off the critical path. Memory stays bounded: a few blocks per channel.
public final class PrefetchingAudioSource: AudioSource {
    public let format: AudioFormat
    private let reader: Unchecked<any AudioFileSource>
    private let blockFrames: Int
    private let depth: Int
    private let warning: (String) -> Void

    /// A decoded block, with the warnings its reading raised.
    private struct Block {
        let start: Int64
        let samples: [[Float]]
        let warnings: [String]
    }

    /// The running read-ahead: its queue, and the signal that its thread has ended.
    private var running: (queue: BlockingQueue<Block>, ended: DispatchSemaphore)?
    private var current: Block?
    /// Where the next read must start to follow on.
    private var expected: Int64?

    /// Reads `reader`, which nobody else may use from now on, `blockFrames` at a time and up to
    /// `depth` blocks ahead. `warning` hears about damaged input, on the caller's thread.
    public init(_ reader: any AudioFileSource, blockFrames: Int = 16_384, depth: Int = 4,
                warning: @escaping (String) -> Void = { _ in }) {
        precondition(blockFrames > 0 && depth > 0)
        format = reader.format
        self.reader = Unchecked(reader)
        self.blockFrames = blockFrames
        self.depth = depth
        self.warning = warning
    }

    deinit { stop() }

    public func read(at frame: Int64, count: Int, into buffer: inout [[Float]]) throws {
        if frame != expected { restart(at: frame) }
        var done = 0
        while done < count {
            let position = frame + Int64(done)
            if current.map({ position >= $0.start + Int64($0.samples[0].count) }) ?? true {
                current = try next()
            }
            let block = current!
            let offset = Int(position - block.start)
            let n = min(count - done, block.samples[0].count - offset)
            for c in 0..<format.channels {
                block.samples[c].withUnsafeBufferPointer { source in
                    buffer[c].withUnsafeMutableBufferPointer { target in
                        (target.baseAddress! + done).update(from: source.baseAddress! + offset, count: n)
                    }
                }
            }
            done += n
        }
        expected = frame + Int64(count)
    }

    /// The next decoded block; throws the reader's error, or waits for the block.
    private func next() throws -> Block {
        guard let running else { preconditionFailure("read-ahead not started") }
        switch try running.queue.pop() {
        case .item(let block):
            block.warnings.forEach(warning)
            return block
        case .end, .timedOut:
            preconditionFailure("the read-ahead never ends by itself")
        }
    }

    /// Stops any read-ahead and starts one at `frame`.
    private func restart(at frame: Int64) {
        stop()
        current = nil
        let queue = BlockingQueue<Block>(capacity: depth)
        let ended = DispatchSemaphore(value: 0)
        let reader = self.reader, blockFrames = self.blockFrames, channels = format.channels
        let thread = Thread {
            defer { ended.signal() }
            var warnings: [String] = []
            reader.value.onWarning = { warnings.append($0) }
            var position = frame
            do {
                // Past the end the reader gives silence, so this runs until stopped; the queue
                // keeps it at most `depth` blocks ahead.
                while true {
                    var samples = [[Float]](repeating: [Float](repeating: 0, count: blockFrames), count: channels)
                    try reader.value.read(at: position, count: blockFrames, into: &samples)
                    try queue.push(Block(start: position, samples: samples, warnings: warnings))
                    warnings.removeAll()
                    position += Int64(blockFrames)
                }
            } catch {
                queue.fail(error)
            }
        }
        thread.name = "slowpoke audio read-ahead"
        thread.start()
        running = (queue, ended)
    }

    /// Stops the read-ahead thread and waits for it, so that the reader is free again.
    private func stop() {
        guard let running else { return }
        running.queue.fail(MediaError.interrupted)
        running.ended.wait()
        self.running = nil
        expected = nil
    }
}
