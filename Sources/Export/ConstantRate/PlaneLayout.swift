internal import CFFmpeg

/// The planes of a planar YUV pixel format, with or without alpha, as the constant-rate
/// export's pictures are laid out: how many, each one's size and what black is in it.
struct PlaneLayout {
    /// Planes: 3 (Y, Cb, Cr) or 4 (and alpha, at full size).
    let count: Int
    /// Bits per sample, and bytes (1 for 8 bits, 2 for more).
    let depth: Int
    let bytes: Int
    /// log2 of the chroma planes' subsampling: (1, 1) for 4:2:0, (0, 0) for 4:4:4.
    let chromaShift: (x: Int, y: Int)

    init(_ format: AVPixelFormat) {
        let desc = av_pix_fmt_desc_get(format)!.pointee
        count = Int(desc.nb_components)
        depth = Int(desc.comp.0.depth)
        bytes = depth > 8 ? 2 : 1
        chromaShift = (Int(desc.log2_chroma_w), Int(desc.log2_chroma_h))
    }

    /// Whether plane `i` is a chroma plane.
    private func isChroma(_ i: Int) -> Bool { i == 1 || i == 2 }

    /// Plane `i`'s width and height in samples for a `width` × `height` picture.
    func size(of i: Int, width: Int, height: Int) -> (columns: Int, rows: Int) {
        guard isChroma(i) else { return (width, height) }
        let sx = chromaShift.x, sy = chromaShift.y
        return ((width + (1 << sx) - 1) >> sx, (height + (1 << sy) - 1) >> sy)
    }

    /// Where a picture placed at (`x`, `y`) starts in plane `i`, in bytes.
    func offset(of i: Int, x: Int, y: Int, stride: Int) -> Int {
        guard isChroma(i) else { return y * stride + x * bytes }
        return (y >> chromaShift.y) * stride + (x >> chromaShift.x) * bytes
    }

    /// Black in plane `i`, opaque: video-range black luma (16), neutral chroma (128), alpha at
    /// its maximum, all at this depth.
    func black(_ i: Int) -> Int {
        switch i {
        case 0: 16 << (depth - 8)
        case 1, 2: 128 << (depth - 8)
        default: (1 << depth) - 1
        }
    }
}
