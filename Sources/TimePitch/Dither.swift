import Foundation

/// Triangular dither at about -120 dBFS, cycled from a fixed table, so it is repeatable and
/// costs one add per sample.
struct Dither {
    private static let table: [Float] = {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> Float {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Float(state >> 40) / Float(1 << 24) - 0.5
        }
        return (0..<8191).map { _ in 1e-6 * (next() + next()) }
    }()
    private var index = 0

    mutating func add(to buffer: inout [[Float]], count: Int) {
        Dither.table.withUnsafeBufferPointer { noise in
            for c in buffer.indices {
                var k = index
                buffer[c].withUnsafeMutableBufferPointer { samples in
                    for i in 0..<count {
                        samples[i] += noise[k]
                        k += 1
                        if k == noise.count { k = 0 }
                    }
                }
            }
        }
        index = (index + count) % Dither.table.count
    }
}
