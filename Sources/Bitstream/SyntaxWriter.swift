/// The writing half of ``SyntaxReader``: a structure's elements written from their values, in
/// the order they were read, each with its own coding. The bits an element list does not cover
/// (bits skipped as they are, and everything after the last element read: the parts of a
/// structure not needed, the trailing bits, a slice's data) are copied from the RBSP read.
/// Writing the elements of a structure as read gives its RBSP again, bit for bit: the round
/// trip that shows every element was read with the coding and value the stream has.
enum SyntaxWriter {
    /// `rbsp` written again from `elements`, read from it.
    static func written(_ elements: [SyntaxReader.Element], over rbsp: [UInt8]) -> [UInt8] {
        var w = BitWriter()
        var at = 0
        for element in elements {
            w.copy(rbsp, bits: at ..< element.bits.lowerBound)
            switch element.coding {
            case .u(let width): w.bits(element.value, width)
            case .ue: w.ue(element.value)
            case .se: w.se(element.value)
            case .skipped: w.copy(rbsp, bits: element.bits)
            }
            at = element.bits.upperBound
        }
        w.copy(rbsp, bits: at ..< rbsp.count * 8)
        return w.bytes
    }
}
