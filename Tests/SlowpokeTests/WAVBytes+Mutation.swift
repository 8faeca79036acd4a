import Foundation
import TestSupport

/// WAV headers mutated: extreme values in their fields, flipped bits, truncations, NaN samples.
extension WAVBytes {
    /// Header fields (offset, width) of the files ``make`` writes, and the data size's.
    static func fields(of data: Data) -> [(Int, Int)] {
        var result = [(4, 4), (16, 4), (20, 2), (22, 2), (24, 4), (28, 4), (32, 2), (34, 2)]
        if data.count > 44, data[20] == 0xFE { result += [(36, 2), (38, 2), (40, 4), (44, 2)] }
        if let range = data.range(of: Data("data".utf8)) { result.append((range.upperBound, 4)) }
        return result
    }

    static let values: [UInt64] = [0, 1, 2, 3, 24, 64, 65, 0xFFFF, 65536, 768_000, 768_001, 0x7FFF_FFFF,
                                   2_000_000_000, 0x8000_0000, 0xFFFF_FFFF]

    /// One or two of: a header field set to an extreme value, bits flipped in the header, a
    /// truncation, a NaN or an infinity among the samples.
    static func mutate(_ data: Data, with mutator: inout HostileMutator) -> Data {
        var bytes = [UInt8](data)
        for _ in 0..<(1 + mutator.below(2)) {
            switch mutator.below(10) {
            case 0...4:
                let (offset, width) = mutator.pick(fields(of: Data(bytes)))
                guard offset + width <= bytes.count else { continue }
                bytes.replaceSubrange(offset..<(offset + width), with: le(mutator.pick(values), width))
            case 5, 6: bytes = [UInt8](mutator.flipBits(Data(bytes), count: 1 + mutator.below(3), within: 72))
            case 7: bytes = [UInt8](mutator.truncate(Data(bytes)))
            default:
                let at = 44 + 4 * mutator.below(max(1, (bytes.count - 48) / 4))
                guard at + 4 <= bytes.count else { continue }
                bytes.replaceSubrange(at..<(at + 4), with: le(mutator.pick([0x7FC0_0000, 0x7F80_0000, 0xFF80_0000]), 4))
            }
        }
        return Data(bytes)
    }
}
