import Foundation

/// Hands audio to an ``AudioFileWriter`` on a thread of its own, so that encoding (AAC is most
/// of an export's audio cost) runs on one core while decoding and stretching run on another.
/// At most `capacity` blocks wait between the two, so memory stays bounded.
final class BackgroundAudioEncoder: @unchecked Sendable {
    // @unchecked: after `init`, `writer` is touched only by the worker thread; everything the
    // two threads share (`queue`, `closed`, `failure`, `finished`) is read and written under
    // `condition`'s lock.
    private let writer: AudioFileWriter
    private let condition = NSCondition()
    private var queue: [(samples: [[Float]], count: Int)] = []
    private var closed = false
    private var failure: (any Error)?
    private var finished = false
    private var cancelled = false
    private let capacity: Int

    init(writer: AudioFileWriter, capacity: Int = 16) {
        self.writer = writer
        self.capacity = capacity
        let thread = Thread { [self] in work() }
        thread.name = "slowpoke audio encoder"
        thread.start()
    }

    /// Stops the worker without finishing the file, when the producer gives up (an error or an
    /// interrupt), and waits for it, so the writer and its file are released.
    func cancel() {
        condition.lock()
        defer { condition.unlock() }
        cancelled = true
        closed = true
        condition.broadcast()
        while !finished { condition.wait() }
    }

    /// Queues `count` frames of `samples`, waiting while the queue is full. Throws the worker's
    /// error, if it has failed.
    func write(_ samples: [[Float]], count: Int) throws {
        condition.lock()
        defer { condition.unlock() }
        while queue.count >= capacity && failure == nil { condition.wait() }
        if let failure { throw failure }
        queue.append((samples, count))
        condition.broadcast()
    }

    /// Waits until everything queued is encoded and the file is finished.
    func finish() throws {
        condition.lock()
        defer { condition.unlock() }
        closed = true
        condition.broadcast()
        while !finished { condition.wait() }
        if let failure { throw failure }
    }

    private func work() {
        while true {
            condition.lock()
            while queue.isEmpty && !closed { condition.wait() }
            if cancelled {
                condition.unlock()
                stop(with: nil)
                return
            }
            if queue.isEmpty {
                condition.unlock()
                break
            }
            let block = queue.removeFirst()
            condition.broadcast()
            condition.unlock()
            do { try writer.write(block.samples, count: block.count) } catch {
                stop(with: error)
                return
            }
        }
        do { try writer.finish(commit: false) } catch {
            stop(with: error)
            return
        }
        stop(with: nil)
    }

    private func stop(with error: (any Error)?) {
        condition.lock()
        if failure == nil { failure = error }
        finished = true
        condition.broadcast()
        condition.unlock()
    }
}
