import Crypto

extension SHA256Digest {
    /// The digest as 64 lowercase hexadecimal digits, as `sha256sum` prints it.
    var hex: String {
        var text = ""
        text.reserveCapacity(64)
        for byte in self {
            text.append(Character(Unicode.Scalar(hexDigits[Int(byte >> 4)])))
            text.append(Character(Unicode.Scalar(hexDigits[Int(byte & 15)])))
        }
        return text
    }
}

private let hexDigits = Array("0123456789abcdef".utf8)
