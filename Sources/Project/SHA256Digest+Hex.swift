public import Foundation
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

/// `data`'s SHA-256 as `sha256sum` prints it, for the modules of this package that recognise
/// work already done (Batch's job digests) without linking swift-crypto themselves.
package func sha256Hex(of data: Data) -> String {
    SHA256.hash(data: data).hex
}

private let hexDigits = Array("0123456789abcdef".utf8)
