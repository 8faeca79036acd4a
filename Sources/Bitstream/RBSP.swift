/// An H.264 NAL unit's payload with and without its emulation-prevention bytes (ITU-T H.264
/// 7.4.1): inside a NAL unit, `00 00` is never followed by a byte up to `03` as it is, so the
/// encoder inserts `03` after every such pair; the raw byte sequence payload (RBSP) is what the
/// syntax is read from. A rewritten field can make or break such a pair, which is why rewriting
/// works on the RBSP and escapes it again: the NAL unit's size may change.
public enum RBSP {
    /// The RBSP of `bytes` (a NAL unit's payload): every `03` after `00 00` removed.
    public static func unescaped<C: Collection<UInt8>>(_ bytes: C) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var zeros = 0
        for b in bytes {
            if zeros >= 2 && b == 3 { zeros = 0; continue }
            zeros = b == 0 ? zeros + 1 : 0
            out.append(b)
        }
        return out
    }

    /// `rbsp` as a NAL unit's payload: `03` inserted after each `00 00` followed by a byte up to
    /// `03`, and after a final `00 00` (a CABAC slice's `cabac_zero_words`).
    public static func escaped(_ rbsp: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(rbsp.count + rbsp.count / 64 + 2)
        var zeros = 0
        for b in rbsp {
            if zeros >= 2 && b <= 3 {
                out.append(3)
                zeros = 0
            }
            zeros = b == 0 ? zeros + 1 : 0
            out.append(b)
        }
        if zeros >= 2 { out.append(3) }
        return out
    }
}
