/// The global translation between two grey pictures, found by block matching: the mean absolute
/// difference over the middle of the picture, searched coarse (a quarter size, ±12 px there, every second pixel)
/// then fine (±3 px, every second pixel), with a parabola through the best and its neighbours
/// for the fraction. `d` is such that `b(p) ≈ a(p + d)`.
enum GlobalShift {
    static func between(_ a: [UInt8], _ b: [UInt8], width: Int, height: Int) -> (x: Double, y: Double) {
        let (qa, qb) = (quarter(a, width, height), quarter(b, width, height))
        let (qw, qh) = (width / 4, height / 4)
        var best = (x: 0, y: 0, cost: Double.infinity)
        for dy in -12...12 { for dx in -12...12 {
            let c = cost(qa, qb, width: qw, height: qh, dx: dx, dy: dy, margin: 14, step: 2)
            if c < best.cost { best = (dx, dy, c) }
        } }
        var costs: [Int: Double] = [:]
        func at(_ dx: Int, _ dy: Int) -> Double {
            if let c = costs[dy * 1000 + dx] { return c }
            let c = cost(a, b, width: width, height: height, dx: dx, dy: dy, margin: 64, step: 2)
            costs[dy * 1000 + dx] = c
            return c
        }
        var fine = (x: best.x * 4, y: best.y * 4, cost: Double.infinity)
        let centre = fine
        for dy in -3...3 { for dx in -3...3 {
            let c = at(centre.x + dx, centre.y + dy)
            if c < fine.cost { fine = (centre.x + dx, centre.y + dy, c) }
        } }
        func vertex(_ l: Double, _ m: Double, _ r: Double) -> Double {
            let d = l - 2 * m + r
            return d > 0 ? max(-0.5, min(0.5, 0.5 * (l - r) / d)) : 0
        }
        return (Double(fine.x) + vertex(at(fine.x - 1, fine.y), fine.cost, at(fine.x + 1, fine.y)),
                Double(fine.y) + vertex(at(fine.x, fine.y - 1), fine.cost, at(fine.x, fine.y + 1)))
    }

    private static func quarter(_ p: [UInt8], _ width: Int, _ height: Int) -> [UInt8] {
        let (w, h) = (width / 4, height / 4)
        var out = [UInt8](repeating: 0, count: w * h)
        p.withUnsafeBufferPointer { p in
            for y in 0..<h { for x in 0..<w {
                var sum = 0
                for j in 0..<4 { for i in 0..<4 { sum += Int(p[(y * 4 + j) * width + x * 4 + i]) } }
                out[y * w + x] = UInt8(sum / 16)
            } }
        }
        return out
    }

    private static func cost(_ a: [UInt8], _ b: [UInt8], width: Int, height: Int, dx: Int, dy: Int, margin: Int, step: Int) -> Double {
        var sum = 0, count = 0
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                for y in stride(from: margin, to: height - margin, by: step) {
                    let rb = y * width, ra = (y + dy) * width + dx
                    for x in stride(from: margin, to: width - margin, by: step) {
                        let d = Int(b[rb + x]) - Int(a[ra + x])
                        sum += d < 0 ? -d : d
                        count += 1
                    }
                }
            }
        }
        return Double(sum) / Double(max(count, 1))
    }
}
