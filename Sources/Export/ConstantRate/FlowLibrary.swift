import Foundation
import Media
import Composition

/// The FlowInterpolation library (C++ on OpenCV's DIS optical flow; see
/// Sources/FlowInterpolation/include/FlowInterpolation.h), opened on first use: only
/// `export --frames interpolate` needs it, and OpenCV would otherwise load with every command.
/// It is looked for beside the running executable (`.build/debug`, `.build/release`, where
/// SwiftPM builds both) and in `../lib/slowpoke` from there (where `make install` puts it). The
/// function types are those of the C declarations; a test linked against the target checks each
/// one against its header.
struct FlowLibrary: @unchecked Sendable {
    // @unchecked: immutable C function pointers into a library that is never closed.
    typealias Create = @convention(c) (Int32, Int32, Int32, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    typealias SetQuality = @convention(c) (OpaquePointer?, Int32) -> Int32
    typealias SetPair = @convention(c) (OpaquePointer?, UnsafePointer<UnsafePointer<UInt8>?>?, UnsafePointer<Int32>?,
                                        UnsafePointer<UnsafePointer<UInt8>?>?, UnsafePointer<Int32>?) -> Int32
    typealias Seed = @convention(c) (OpaquePointer?, OpaquePointer?) -> Int32
    typealias Render = @convention(c) (OpaquePointer?, Double, UnsafePointer<UnsafeMutablePointer<UInt8>?>?, UnsafePointer<Int32>?) -> Int32
    typealias Reliable = @convention(c) (OpaquePointer?) -> Int32
    typealias LastError = @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?
    typealias Destroy = @convention(c) (OpaquePointer?) -> Void

    /// The result codes of FlowInterpolation.h.
    enum Code: Int32 {
        case ok = 0, badArgument, badSize, badDepth, noPair, failed
    }

    let create: Create
    let setQuality: SetQuality
    let setPair: SetPair
    let seed: Seed
    let render: Render
    let pairReliable: Reliable
    let lastError: LastError
    let destroy: Destroy

    /// The library, loaded once; or why it cannot be.
    static let shared = Result { () throws(ExportError) in try FlowLibrary() }

    /// Starts loading the library on a thread of its own and returns at once, for an export
    /// that will interpolate after other work (probing, scanning, opening the encoder): the
    /// loading (mapping and relocating OpenCV's video, imgproc, core, dnn, calib3d, features2d
    /// and flann libraries, about 10-20 ms measured with dlopen alone) then overlaps that work
    /// on the second core. The first use of ``shared`` afterwards waits for it (Swift's lazy
    /// globals are initialised once, under a lock). A second call does nothing.
    static func preload() {
        preloading.start { _ = shared }
    }

    /// Waits for a ``preload()`` under way to finish: the process must not exit while the
    /// libraries' constructors run on the other thread (see `BackgroundLoad`).
    static func settle() {
        preloading.settle()
    }

    /// Started by the first ``preload()``; several exports may run in one process (batch jobs).
    private static let preloading = BackgroundLoad()

    static let fileName = "libFlowInterpolation.so"

    /// Where the library may be, in the order tried: beside the executable, then in
    /// `../lib/slowpoke` from it.
    static func candidates(executable: URL) -> [URL] {
        let folder = executable.deletingLastPathComponent()
        return [folder.appendingPathComponent(fileName),
                folder.deletingLastPathComponent().appendingPathComponent("lib/slowpoke/\(fileName)")]
    }

    /// The running executable, symbolic links resolved.
    static var executable: URL {
        let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: link).resolvingSymlinksInPath()
    }

    private init() throws(ExportError) {
        let places = Self.candidates(executable: Self.executable)
        guard let found = places.first(where: { FileManager.default.fileExists(atPath: $0.path) }) else {
            throw .unavailable(Notice("motion interpolation needs \(Self.fileName), which is not installed (looked for "
                + places.map(\.path).joined(separator: " and ")
                + "); build slowpoke with `swift build` or install it with `make install`", remedies: [Remedy(.blendFrames)]))
        }
        let library: SharedLibrary
        do {
            library = try media { () throws(MediaError) in
                try SharedLibrary(found.path, cannotLoad: {
                    "motion interpolation needs \(found.path), which cannot be loaded: \($0) (is libopencv-video406 installed?)"
                }, missingNote: "; motion interpolation is unavailable")
            }
        } catch .unsupported(let why) {
            throw .unavailable(Notice(why, remedies: [Remedy(.blendFrames)]))
        }
        func symbol<F>(_ name: String, as type: F.Type) throws(ExportError) -> F {
            try media { () throws(MediaError) -> F in try library.symbol(name, as: type) }
        }
        create = try symbol("sp_flow_create", as: Create.self)
        setQuality = try symbol("sp_flow_set_quality", as: SetQuality.self)
        setPair = try symbol("sp_flow_set_pair", as: SetPair.self)
        seed = try symbol("sp_flow_seed", as: Seed.self)
        render = try symbol("sp_flow_render", as: Render.self)
        pairReliable = try symbol("sp_flow_pair_reliable", as: Reliable.self)
        lastError = try symbol("sp_flow_last_error", as: LastError.self)
        destroy = try symbol("sp_flow_destroy", as: Destroy.self)
    }
}
