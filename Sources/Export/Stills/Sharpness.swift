import Foundation
internal import CFFmpeg
import Media

/// How sharp a picture is: the variance of the Laplacian of its luma (the 4-neighbour kernel
/// 0 1 0 / 1 -4 1 / 0 1 0, on 8-bit luma), the focus measure of Pech-Pacheco et al. (2000). A
/// blurred or shaken frame has weak edges and a low variance; among neighbouring frames of one
/// shot, the highest is the sharpest.
enum Sharpness {
    static func varianceOfLaplacian(_ frame: Frame) throws -> Double {
        let gray = try StillPictures.converted(frame, to: AV_PIX_FMT_GRAY8)
        let g = gray.pointer.pointee
        let width = Int(g.width), height = Int(g.height), stride = Int(g.linesize.0)
        guard width >= 3, height >= 3, let data = g.data.0 else { return 0 }
        var sum = 0.0, squares = 0.0
        for y in 1..<(height - 1) {
            let row = data + y * stride
            let up = row - stride, down = row + stride
            for x in 1..<(width - 1) {
                let l = Int(up[x]) + Int(down[x]) + Int(row[x - 1]) + Int(row[x + 1]) - 4 * Int(row[x])
                let v = Double(l)
                sum += v
                squares += v * v
            }
        }
        let n = Double((width - 2) * (height - 2))
        let mean = sum / n
        return squares / n - mean * mean
    }
}
