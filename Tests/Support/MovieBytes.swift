import Foundation

/// Damaged movies, as a failing card, a cut download or an attacker would hand them over: bits
/// flipped in the headers (an mp4's `moov` at the front, Matroska's EBML header, a transport
/// stream's tables) or anywhere in the packets (which slowpoke's own parameter-set, slice-header
/// and audio-frame readers see), the file cut short, and box sizes of an mp4 or mov set to the
/// numbers a reader may overflow on.
public enum MovieBytes {
    /// The boxes whose size or first fields a mutation may set to an extreme number.
    static let boxes = ["moov", "trak", "mdia", "minf", "stbl", "stsd", "stsz", "stco", "co64", "stts", "ctts", "stss",
                        "stsc", "elst", "edts", "mdhd", "tkhd", "mvhd", "avcC", "hvcC", "esds", "dOps", "mdat", "sidx"]
    static let extremes: [UInt32] = [0, 1, 7, 8, 9, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 0xffff_fff8, 0x0001_0000]

    /// One of the mutations above, chosen by `mutator`; several bits flipped at a time.
    public static func mutate(_ data: Data, with mutator: inout HostileMutator) -> Data {
        switch mutator.below(10) {
        case 0, 1, 2: return mutator.flipBits(data, count: 1 + mutator.below(8), within: 8192)
        case 3, 4, 5: return mutator.flipBits(data, count: 1 + mutator.below(24))
        case 6: return mutator.truncate(data)
        default: return extremeBox(data, with: &mutator) ?? mutator.flipBits(data, count: 4)
        }
    }

    /// `data` with the size of one of its mp4 boxes, or the 32-bit field after the box's name
    /// (a version and flags, a count, an entry), set to an extreme number; nil when it has none.
    static func extremeBox(_ data: Data, with mutator: inout HostileMutator) -> Data? {
        var bytes = [UInt8](data)
        var found: [Int] = []
        if bytes.count >= 8 { found = boxNames(in: bytes) }
        guard !found.isEmpty else { return nil }
        let name = mutator.pick(found)
        let field = mutator.pick([name - 4, name + 4, name + 8, name + 12])
        guard field >= 0, field + 4 <= bytes.count else { return nil }
        let value = mutator.pick(extremes)
        for k in 0..<4 { bytes[field + k] = UInt8((value >> UInt32(24 - 8 * k)) & 0xff) }
        return Data(bytes)
    }

    /// The offsets i (4 <= i < count - 4), in order, where one of `boxes`' names starts. A
    /// `while` loop over raw pointers, each 4 bytes read as one big-endian word: in the tests'
    /// debug build, comparing every offset with 24 names through `elementsEqual` was half of
    /// HostileInputFuzzTests' own CPU.
    static func boxNames(in bytes: [UInt8]) -> [Int] {
        let names = Set(boxes.map { $0.utf8.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } })
        let first = Set(boxes.map { $0.utf8.first! })
        var starts = [Bool](repeating: false, count: 256)
        for byte in first { starts[Int(byte)] = true }
        var found: [Int] = []
        bytes.withUnsafeBufferPointer { b in
            starts.withUnsafeBufferPointer { starts in
                guard let p = b.baseAddress, let s = starts.baseAddress else { return }
                var i = 4
                let end = b.count - 4
                while i < end {
                    if s[Int(p[i])] {
                        let word = UInt32(p[i]) << 24 | UInt32(p[i &+ 1]) << 16 | UInt32(p[i &+ 2]) << 8 | UInt32(p[i &+ 3])
                        if names.contains(word) { found.append(i) }
                    }
                    i &+= 1
                }
            }
        }
        return found
    }
}
