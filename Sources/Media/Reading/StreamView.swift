import Foundation
package import CFFmpeg

/// A stream of an ``InputFormatContext``, borrowed: it holds its owner so it cannot dangle.
package struct StreamView {
    package let owner: InputFormatContext
    let index: Int

    package var pointer: UnsafeMutablePointer<AVStream> { owner.pointer.pointee.streams[index]! }
    package var parameters: UnsafeMutablePointer<AVCodecParameters> { pointer.pointee.codecpar }
}
