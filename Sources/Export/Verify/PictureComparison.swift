import Foundation
internal import CFFmpeg

/// How `export --verify` compares a decoded output picture with the decoded source picture it
/// shows: the PSNR of all their luma and chroma samples together (peak: the depth's largest
/// sample), or, where they must be identical, a digest of every sample.
enum PictureComparison {
    /// The PSNR of `a` against `b` in dB: infinity when every sample is equal, nil when they
    /// differ in size or pixel format (no comparison can be made).
    static func psnr(_ a: UnsafePointer<AVFrame>, _ b: UnsafePointer<AVFrame>) -> Double? {
        let (fa, fb) = (a.pointee, b.pointee)
        guard fa.width == fb.width, fa.height == fb.height, fa.format == fb.format, fa.format >= 0 else { return nil }
        let layout = PlaneLayout(AVPixelFormat(rawValue: fa.format))
        var squared: UInt64 = 0
        var samples = 0
        for index in 0..<min(layout.count, 3) {
            let (columns, rows) = layout.size(of: index, width: Int(fa.width), height: Int(fa.height))
            guard let pa = plane(fa, index), let pb = plane(fb, index) else { return nil }
            squared += sumOfSquaredDifferences(pa, pb, columns: columns, rows: rows, bytes: layout.bytes)
            samples += columns * rows
        }
        guard squared > 0 else { return .infinity }
        let peak = Double((1 << layout.depth) - 1)
        let mse = Double(squared) / Double(max(samples, 1))
        return 10 * log10(peak * peak / mse)
    }

    /// A digest of every sample of `frame`'s planes (row by row, padding left out), its size
    /// and format: equal digests within one process mean identical pictures.
    static func digest(_ frame: UnsafePointer<AVFrame>) -> Int {
        let f = frame.pointee
        var hasher = Hasher()
        hasher.combine(f.width)
        hasher.combine(f.height)
        hasher.combine(f.format)
        guard f.format >= 0 else { return hasher.finalize() }
        let layout = PlaneLayout(AVPixelFormat(rawValue: f.format))
        for index in 0..<layout.count {
            guard let p = plane(f, index) else { break }
            let (columns, rows) = layout.size(of: index, width: Int(f.width), height: Int(f.height))
            for row in 0..<rows {
                hasher.combine(bytes: UnsafeRawBufferPointer(start: p.data + row * p.stride, count: columns * layout.bytes))
            }
        }
        return hasher.finalize()
    }

    /// Plane `i` of `frame`: its first byte and its stride.
    private static func plane(_ frame: AVFrame, _ i: Int) -> (data: UnsafeMutablePointer<UInt8>, stride: Int)? {
        let data = withUnsafeBytes(of: frame.data) { $0.load(fromByteOffset: i * MemoryLayout<UnsafeMutablePointer<UInt8>?>.stride,
                                                                 as: UnsafeMutablePointer<UInt8>?.self) }
        let stride = withUnsafeBytes(of: frame.linesize) { $0.load(fromByteOffset: i * MemoryLayout<Int32>.stride, as: Int32.self) }
        guard let data, stride > 0 else { return nil }
        return (data, Int(stride))
    }

    /// The sum of squared sample differences of two planes of `columns` × `rows` samples of
    /// `bytes` each (2: 16-bit little-endian, as libav's high-depth planar formats are here).
    private static func sumOfSquaredDifferences(_ a: (data: UnsafeMutablePointer<UInt8>, stride: Int),
                                                _ b: (data: UnsafeMutablePointer<UInt8>, stride: Int),
                                                columns: Int, rows: Int, bytes: Int) -> UInt64 {
        var total: UInt64 = 0
        for row in 0..<rows {
            let ra = a.data + row * a.stride, rb = b.data + row * b.stride
            // Equal rows (most of a good re-encode's are not, but a copy's are) cost one memcmp.
            if memcmp(ra, rb, columns * bytes) == 0 { continue }
            var sum: Int64 = 0
            if bytes == 1 {
                for x in 0..<columns {
                    let d = Int64(ra[x]) - Int64(rb[x])
                    sum &+= d &* d
                }
            } else {
                let wa = UnsafeRawPointer(ra).assumingMemoryBound(to: UInt16.self)
                let wb = UnsafeRawPointer(rb).assumingMemoryBound(to: UInt16.self)
                for x in 0..<columns {
                    let d = Int64(UInt16(littleEndian: wa[x])) - Int64(UInt16(littleEndian: wb[x]))
                    sum &+= d &* d
                }
            }
            total &+= UInt64(sum)
        }
        return total
    }
}
