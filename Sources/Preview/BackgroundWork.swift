import Foundation

/// Work the player must not wait for (making an audio track, reading a film's subtitles, which
/// means reading the whole file), done on a thread of its own; the player asks each turn of its
/// loop whether it is finished.
///
/// `@unchecked Sendable`: `result` is written once by the working thread and read only while
/// `lock` is held; the value is handed over whole, and only the player uses it after that (the
/// working thread keeps no reference to it).
final class BackgroundWork<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<Value, Error>?

    init(name: String, _ work: @escaping @Sendable () throws -> Value) {
        let thread = Thread { [self] in
            let made = Result { try work() }
            lock.withLock { result = made }
        }
        thread.name = name
        thread.start()
    }

    /// The value once made (or why it could not be), nil while still at work.
    var finished: Result<Value, Error>? { lock.withLock { result } }
}
