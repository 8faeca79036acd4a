import Foundation

/// Test signals and measurements, independent of the code under test.
public enum Signals {
    /// A sine of `frequency` Hz and `amplitude`, `seconds` long.
    public static func tone(_ frequency: Double, seconds: Double, sampleRate: Int = 48000, amplitude: Float = 0.5) -> [Float] {
        let n = Int((seconds * Double(sampleRate)).rounded())
        return (0..<n).map { amplitude * Float(sin(2 * Double.pi * frequency * Double($0) / Double(sampleRate))) }
    }

    /// Silence with a 1 ms burst of 3 kHz every `interval` seconds, starting at `offset`.
    public static func clicks(every interval: Double, seconds: Double, offset: Double = 0.1, sampleRate: Int = 48000) -> [Float] {
        var out = [Float](repeating: 0, count: Int(seconds * Double(sampleRate)))
        var t = offset
        while t < seconds - 0.01 {
            let start = Int(t * Double(sampleRate))
            for i in 0..<(sampleRate / 1000) { out[start + i] = 0.8 * Float(sin(2 * Double.pi * 3000 * Double(i) / Double(sampleRate))) }
            t += interval
        }
        return out
    }

    /// The dominant frequency of `samples[from..<from+n]` (n a power of two), by a Hann-windowed
    /// FFT with parabolic interpolation of the peak.
    public static func dominantFrequency(_ samples: [Float], from: Int, count n: Int, sampleRate: Int = 48000) -> Double {
        precondition(n & (n - 1) == 0 && from + n <= samples.count, "need \(n) samples from \(from), have \(samples.count)")
        var re = (0..<n).map { i in Double(samples[from + i]) * (0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n))) }
        var im = [Double](repeating: 0, count: n)
        fft(&re, &im)
        let magnitudes = (0..<(n / 2)).map { log(max(1e-30, re[$0] * re[$0] + im[$0] * im[$0])) }
        var peak = 1
        for k in 1..<(n / 2 - 1) where magnitudes[k] > magnitudes[peak] { peak = k }
        let a = magnitudes[peak - 1], b = magnitudes[peak], c = magnitudes[peak + 1]
        let delta = 0.5 * (a - c) / (a - 2 * b + c)
        return (Double(peak) + delta) * Double(sampleRate) / Double(n)
    }

    /// In-place iterative radix-2 FFT. Raw pointers in `while` loops and each pass's twiddles
    /// computed once (the same `cos` and `sin` of the same angles, so the same results, bit for
    /// bit): the tests run in a debug build, where a range's iterator and an array's subscript
    /// are calls, and this ran five times slower.
    public static func fft(_ re: inout [Double], _ im: inout [Double]) {
        let n = re.count
        precondition(im.count == n && n & (n - 1) == 0, "an FFT of \(n) and \(im.count) values")
        var twiddles = [(Double, Double)](repeating: (0, 0), count: n / 2)
        re.withUnsafeMutableBufferPointer { reBuffer in
            im.withUnsafeMutableBufferPointer { imBuffer in
                guard let re = reBuffer.baseAddress, let im = imBuffer.baseAddress else { return }
                var j = 0, i = 1
                while i < n {
                    var bit = n >> 1
                    while j & bit != 0 { j ^= bit; bit >>= 1 }
                    j |= bit
                    if i < j { swap(&re[i], &re[j]); swap(&im[i], &im[j]) }
                    i += 1
                }
                var length = 2
                while length <= n {
                    let angle = -2 * Double.pi / Double(length), half = length / 2
                    for k in 0..<half { twiddles[k] = (cos(angle * Double(k)), sin(angle * Double(k))) }
                    twiddles.withUnsafeBufferPointer { buffer in
                        let w = buffer.baseAddress!
                        var start = 0
                        while start < n {
                            var k = 0
                            while k < half {
                                let (wr, wi) = w[k]
                                let a = start + k, b = a + half
                                let tr = re[b] * wr - im[b] * wi, ti = re[b] * wi + im[b] * wr
                                re[b] = re[a] - tr; im[b] = im[a] - ti
                                re[a] += tr; im[a] += ti
                                k += 1
                            }
                            start += length
                        }
                    }
                    length <<= 1
                }
            }
        }
    }

    /// Onset frames of bursts: where |x| first exceeds `threshold` after at least `quiet`
    /// frames below it.
    /// (A raw-pointer `while` loop, as in ``fft(_:_:)``: `enumerated()` over a minute of sound
    /// took 0.2 s a call in the tests' debug build, and the oracle calls this 60 times.)
    public static func onsets(_ samples: [Float], threshold: Float = 0.2, quiet: Int = 2400) -> [Int] {
        var result: [Int] = []
        var lastLoud = -quiet - 1
        samples.withUnsafeBufferPointer { buffer in
            guard let p = buffer.baseAddress else { return }
            let n = buffer.count
            var i = 0
            while i < n {
                let x = p[i]
                if x > threshold || -x > threshold {  // abs(x) > threshold, without abs's call
                    if i - lastLoud > quiet { result.append(i) }
                    lastLoud = i
                }
                i &+= 1
            }
        }
        return result
    }

    /// The largest absolute difference between consecutive samples.
    public static func largestStep(_ samples: [Float]) -> Float {
        samples.withUnsafeBufferPointer { buffer in
            guard let p = buffer.baseAddress else { return 0 }
            let n = buffer.count
            var largest: Float = 0, i = 1
            while i < n {
                let step = abs(p[i] - p[i &- 1])
                largest = max(largest, step)
                i &+= 1
            }
            return largest
        }
    }

    /// Root-mean-square level of a stretch of samples.
    public static func rms(_ samples: ArraySlice<Float>) -> Float {
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(0) { $0 + $1 * $1 } / Float(samples.count)).squareRoot()
    }
}
