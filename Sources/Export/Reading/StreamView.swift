import Foundation
internal import CFFmpeg

/// A stream of an ``InputFormatContext``, borrowed: it holds its owner so it cannot dangle.
struct StreamView {
    let owner: InputFormatContext
    let index: Int

    var pointer: UnsafeMutablePointer<AVStream> { owner.pointer.pointee.streams[index]! }
    var parameters: UnsafeMutablePointer<AVCodecParameters> { pointer.pointee.codecpar }
}
