/// The messages of an SEI NAL unit's RBSP (ITU-T H.264 7.3.2.3, H.265 7.3.5): each a
/// `payloadType` and a `payloadSize`, both coded as runs of `FF` bytes plus a last byte, then
/// that many payload bytes. Iteration ends at the trailing bits (fewer than two bytes left) or
/// at a message whose size runs past the end.
struct SEIMessages: Sequence, IteratorProtocol {
    /// One message: its payload type and payload bytes.
    struct Message: Equatable, Sendable {
        let type: Int
        let payload: [UInt8]

        init(type: Int, payload: [UInt8]) {
            self.type = type
            self.payload = payload
        }

        /// The message as it is written into an SEI RBSP (without the trailing bits).
        var bytes: [UInt8] {
            var out: [UInt8] = []
            for var value in [type, payload.count] {
                while value >= 0xFF {
                    out.append(0xFF)
                    value -= 0xFF
                }
                out.append(UInt8(value))
            }
            return out + payload
        }
    }

    private let rbsp: [UInt8]
    private var at = 0

    init(_ rbsp: [UInt8]) { self.rbsp = rbsp }

    mutating func next() -> Message? {
        guard at + 1 < rbsp.count, let type = value(), let size = value(), at + size <= rbsp.count else {
            at = rbsp.count
            return nil
        }
        defer { at += size }
        return Message(type: type, payload: Array(rbsp[at ..< at + size]))
    }

    /// A run of `FF` bytes and the byte after it, added up; nil when the data ends first.
    private mutating func value() -> Int? {
        var v = 0
        while at < rbsp.count {
            let byte = rbsp[at]
            at += 1
            v += Int(byte)
            if byte != 0xFF { return v }
        }
        return nil
    }

    /// An SEI RBSP holding `messages`, with its trailing bits.
    static func rbsp(_ messages: [Message]) -> [UInt8] {
        messages.flatMap(\.bytes) + [0x80]
    }
}
