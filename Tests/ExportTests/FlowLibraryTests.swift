import Foundation
import FlowInterpolation
@testable import Export
import Testing

/// Export opens the FlowInterpolation library at run time (see FlowLibrary). This test target
/// links the target itself, so each function type must accept the header's declaration
/// (checked when this compiles); the opened library then answers through those types.
@Suite struct FlowLibraryTests {
    @Test func functionTypesAreTheHeaders() throws {
        let create: FlowLibrary.Create = sp_flow_create
        let setQuality: FlowLibrary.SetQuality = sp_flow_set_quality
        let setPair: FlowLibrary.SetPair = sp_flow_set_pair
        let seed: FlowLibrary.Seed = sp_flow_seed
        let render: FlowLibrary.Render = sp_flow_render
        let reliable: FlowLibrary.Reliable = sp_flow_pair_reliable
        let lastError: FlowLibrary.LastError = sp_flow_last_error
        let destroy: FlowLibrary.Destroy = sp_flow_destroy
        _ = (create, setQuality, setPair, seed, render, reliable, lastError, destroy)
        let codes: [(FlowLibrary.Code, Int)] = [(.ok, SP_FLOW_OK), (.badArgument, SP_FLOW_BAD_ARGUMENT), (.badSize, SP_FLOW_BAD_SIZE),
                                                (.badDepth, SP_FLOW_BAD_DEPTH), (.noPair, SP_FLOW_NO_PAIR), (.failed, SP_FLOW_FAILED)]
        for (code, header) in codes { #expect(Int(code.rawValue) == header, "\(code)") }
        #expect(InterpolationQuality.fast.code == Int32(SP_FLOW_QUALITY_FAST) && InterpolationQuality.high.code == Int32(SP_FLOW_QUALITY_HIGH))
    }

    @Test func itIsFoundBesideTheExecutableOrInstalled() {
        let places = FlowLibrary.candidates(executable: URL(fileURLWithPath: "/usr/local/bin/slowpoke"))
        #expect(places.map(\.path) == ["/usr/local/bin/libFlowInterpolation.so", "/usr/local/lib/slowpoke/libFlowInterpolation.so"])
    }

    /// Through the opened library: bad arguments get their codes, and a uniform pan of a
    /// gradient comes out shifted by the in-between amount, with the flow at full size (128
    /// pixels wide, and 640 with --quality high) and scaled down (640 pixels, fast); `seeded`:
    /// the pair is given twice, its flow the second time starting from the first's (sp_flow_seed).
    @Test(arguments: [(128, InterpolationQuality.fast, false), (640, .fast, false), (640, .high, false), (640, .fast, true)])
    func theOpenedLibraryWorks(width: Int, quality: InterpolationQuality, seeded: Bool) throws {
        let library = try FlowLibrary.shared.get()
        var handle: OpaquePointer?
        #expect(library.create(16, 16, 8, 0, &handle) == FlowLibrary.Code.badSize.rawValue && handle == nil)
        #expect(library.create(64, 64, 12, 0, &handle) == FlowLibrary.Code.badDepth.rawValue && handle == nil)
        #expect(library.create(Int32(width), 64, 8, 0, &handle) == 0)
        let p = try #require(handle)
        defer { library.destroy(p) }
        #expect(library.setQuality(p, 2) == FlowLibrary.Code.badArgument.rawValue)
        #expect(library.setQuality(p, quality.code) == 0)
        #expect(library.pairReliable(p) == -1)
        let (w, h) = (width, 64)
        // Luma: a smooth pattern moved 8 pixels right between A and B; chroma flat.
        func picture(shift: Double) -> [[UInt8]] {
            let y = (0..<(w * h)).map { i -> UInt8 in
                let x = Double(i % w) - shift, r = Double(i / w)
                return UInt8(128 + 60 * sin(x / 9) * cos(r / 7))
            }
            return [y, [UInt8](repeating: 128, count: w * h / 4), [UInt8](repeating: 128, count: w * h / 4)]
        }
        let a = picture(shift: 0), b = picture(shift: 8), expected = picture(shift: 4)
        var luma = [UInt8](repeating: 0, count: w * h)
        var u = [UInt8](repeating: 0, count: w * h / 4), v = [UInt8](repeating: 0, count: w * h / 4)
        let strides: [Int32] = [Int32(w), Int32(w / 2), Int32(w / 2)]
        func setPair() -> Int32 {
            a[0].withUnsafeBufferPointer { a0 in a[1].withUnsafeBufferPointer { a1 in a[2].withUnsafeBufferPointer { a2 in
                b[0].withUnsafeBufferPointer { b0 in b[1].withUnsafeBufferPointer { b1 in b[2].withUnsafeBufferPointer { b2 in
                    let pa = [a0.baseAddress, a1.baseAddress, a2.baseAddress], pb = [b0.baseAddress, b1.baseAddress, b2.baseAddress]
                    return library.setPair(p, pa, strides, pb, strides)
                } } } } } }
        }
        #expect(library.seed(p, p) == FlowLibrary.Code.noPair.rawValue && library.seed(p, nil) == FlowLibrary.Code.badArgument.rawValue)
        #expect(setPair() == 0)
        if seeded { #expect(library.seed(p, p) == 0 && setPair() == 0) }
        #expect(library.pairReliable(p) == 1)
        let rendered = luma.withUnsafeMutableBufferPointer { o0 in u.withUnsafeMutableBufferPointer { o1 in
            v.withUnsafeMutableBufferPointer { o2 in
                library.render(p, 0.5, [o0.baseAddress, o1.baseAddress, o2.baseAddress], strides)
            } } }
        #expect(rendered == 0)
        #expect(library.render(p, 1.5, nil, strides) == FlowLibrary.Code.badArgument.rawValue)
        // Away from the edges (where the pattern comes in from outside), within 3 levels.
        var worst = 0, checked = 0
        for r in 8..<(h - 8) { for x in 16..<(w - 16) {
            worst = max(worst, abs(Int(luma[r * w + x]) - Int(expected[0][r * w + x])))
            checked += 1
        } }
        #expect(checked == 48 * (w - 32))
        #expect(worst <= 3, "worst luma error \(worst)")
    }
}
