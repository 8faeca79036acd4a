/// Rewrites elements of an RBSP whose bit length may change (an Exp-Golomb id): the bits before
/// them are copied, the new elements written, and the bits after them copied up to where the
/// structure's end marks were, which are written again at their new place.
enum RBSPRewrite {
    /// How the structure ends.
    enum End {
        /// `rbsp_trailing_bits()` (a parameter set): a stop bit and zero bits to a byte boundary.
        case trailingBits
        /// A slice segment header's `byte_alignment()` from bit `at` (a one bit and zero bits to
        /// a byte boundary), after which the slice data's bytes are copied as they are.
        case byteAlignment(at: Int)
    }

    /// `rbsp` with its bits `range` replaced by what `write` writes.
    static func replacing(_ range: Range<Int>, in rbsp: [UInt8], end: End, with write: (inout BitWriter) -> Void) throws -> [UInt8] {
        var w = BitWriter()
        w.copy(rbsp, bits: 0..<range.lowerBound)
        write(&w)
        switch end {
        case .trailingBits:
            guard let last = rbsp.lastIndex(where: { $0 != 0 }) else { throw SyntaxError(element: "rbsp_stop_one_bit", problem: .ends) }
            let stop = last * 8 + 7 - rbsp[last].trailingZeroBitCount
            guard stop >= range.upperBound else { throw SyntaxError(element: "rbsp_stop_one_bit", problem: .ends) }
            w.copy(rbsp, bits: range.upperBound..<stop)
            w.bits(1, 1)
            w.align(with: 0)
        case .byteAlignment(let at):
            guard at >= range.upperBound, at < rbsp.count * 8 else { throw SyntaxError(element: "alignment_bit_equal_to_one", problem: .ends) }
            w.copy(rbsp, bits: range.upperBound..<at)
            w.bits(1, 1)
            w.align(with: 0)
            w.append(bytes: rbsp[((at + 8) / 8)...])
        }
        return w.bytes
    }
}
