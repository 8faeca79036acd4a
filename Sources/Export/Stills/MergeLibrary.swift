import Foundation
import Media

/// `sp_flow_merge` of the FlowInterpolation library (Sources/FlowInterpolation/include/FlowMerge.h),
/// opened on first use from where ``FlowLibrary`` finds the library: only `still` with
/// neighbours to merge needs OpenCV.
struct MergeLibrary: @unchecked Sendable {
    // @unchecked: an immutable C function pointer into a library that is never closed.
    typealias Merge = @convention(c) (Int32, Int32, Int32, Int32,
                                      UnsafePointer<UnsafePointer<UInt8>?>?, UnsafePointer<Int32>?,
                                      UnsafePointer<UnsafeMutablePointer<UInt8>?>?, UnsafePointer<Int32>?,
                                      UnsafeMutablePointer<Double>?, UnsafeMutablePointer<CChar>?, Int32) -> Int32

    let merge: Merge

    /// The library, loaded once; or why it cannot be.
    static let shared = Result { () throws(ExportError) in try MergeLibrary() }

    private init() throws(ExportError) {
        let places = FlowLibrary.candidates(executable: FlowLibrary.executable)
        guard let found = places.first(where: { FileManager.default.fileExists(atPath: $0.path) }) else {
            throw .unsupported("merging frames needs \(FlowLibrary.fileName), which is not installed (looked for "
                + places.map(\.path).joined(separator: " and ") + ")")
        }
        let library = try media { () throws(MediaError) in
            try SharedLibrary(found.path, cannotLoad: {
                "merging frames needs \(found.path), which cannot be loaded: \($0) (is libopencv-video406 installed?)"
            }, missingNote: "; merging frames is unavailable")
        }
        merge = try media { () throws(MediaError) in try library.symbol("sp_flow_merge", as: Merge.self) }
    }
}
