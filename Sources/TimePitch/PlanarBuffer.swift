/// Planar float samples in memory that C code may hold pointers to: one owned allocation per
/// channel, freed on deinit, plus the pointer table Rubber Band and libswresample take.
final class PlanarBuffer {
    let channels: Int
    private(set) var capacity: Int
    private(set) var data: [UnsafeMutablePointer<Float>]
    /// `channels` pointers, for C functions that take `float **`.
    let table: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>

    init(channels: Int, capacity: Int) {
        self.channels = channels
        self.capacity = capacity
        self.data = (0..<channels).map { _ in
            let p = UnsafeMutablePointer<Float>.allocate(capacity: capacity)
            p.initialize(repeating: 0, count: capacity)
            return p
        }
        self.table = .allocate(capacity: channels)
        for c in 0..<channels { table[c] = data[c] }
    }

    deinit {
        data.forEach { $0.deallocate() }
        table.deallocate()
    }

    /// Makes room for `frames` frames (contents are not kept).
    func reserve(_ frames: Int) {
        guard frames > capacity else { return }
        for c in 0..<channels {
            data[c].deallocate()
            data[c] = .allocate(capacity: frames)
            data[c].initialize(repeating: 0, count: frames)
            table[c] = data[c]
        }
        capacity = frames
    }

    /// Copies `count` frames in from Swift arrays.
    func load(_ samples: [[Float]], count: Int) {
        reserve(count)
        for c in 0..<channels {
            samples[c].withUnsafeBufferPointer { data[c].update(from: $0.baseAddress!, count: count) }
        }
    }

    /// Copies the first `count` frames out into Swift arrays (each exactly `count` long).
    func copyOut(_ count: Int) -> [[Float]] {
        (0..<channels).map { Array(UnsafeBufferPointer(start: data[$0], count: count)) }
    }

    /// Copies the first `count` frames into `target`, whose arrays are at least that long.
    func copyOut(_ count: Int, into target: inout [[Float]]) {
        for c in 0..<channels {
            target[c].withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: data[c], count: count) }
        }
    }
}
