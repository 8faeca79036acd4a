import Foundation
import Composition
import Media

/// The preview's pictures steadied as `--stabilize` asks: the ``VideoFrameReader``'s pictures,
/// taken one source picture at a time in source order (vidstabtransform gives the n-th picture
/// it is fed the n-th transform, see ``StabilizationTransform``), each steadied with the kept
/// analysis. Playing forwards feeds each picture once; a seek ahead feeds the pictures in
/// between (a few a turn of the player's loop, so keys still work: the picture on screen waits
/// meanwhile); a seek back further than the last few pictures kept starts again from picture 0,
/// as the export does for a reversed range.
final class SteadiedVideo {
    let reader: VideoFrameReader
    let prepared: StabilizationAnalysis.Prepared
    private let planes: SteadiedPlanes
    /// Whether the picture on screen is steadied (`v` switches).
    var isOn = true
    /// The steadied source picture on screen, if any.
    private(set) var shown: Int?
    /// The picture being caught up to, while more are behind than a turn steadies.
    private(set) var catchingUp: Int?
    /// Each picture steadied: nanoseconds decoding, copying and transforming it, and the copy
    /// and transform alone (the first 100 000).
    private(set) var costs: (whole: [UInt64], transform: [UInt64]) = ([], [])
    /// The longest a turn spends catching up before the loop goes on.
    static let turnBudget: UInt64 = 50_000_000

    init(reader: VideoFrameReader, stabilization: Stabilization, prepared: StabilizationAnalysis.Prepared) throws {
        guard reader.pictureWidth == prepared.width, reader.pictureHeight == prepared.height else {
            throw PreviewError.nothingToPlay("the stabilization analysis is of \(prepared.width)x\(prepared.height) pictures, and the preview shows \(reader.pictureWidth)x\(reader.pictureHeight)")
        }
        self.reader = reader
        self.prepared = prepared
        planes = try SteadiedPlanes(stabilization, analysis: prepared.file, width: prepared.width, height: prepared.height,
                                    interpolation: .bilinear)
    }

    /// How many times the transform started again from picture 0.
    var restarts: Int { planes.restarts }

    /// The source picture that shows at source time `t`: the last at or before it.
    func index(at t: Time) -> Int {
        var (low, high) = (0, prepared.times.count)
        while low < high {
            let mid = (low + high) / 2
            if prepared.times[mid] <= t { low = mid + 1 } else { high = mid }
        }
        return max(0, low - 1)
    }

    /// Makes the steadied picture for source time `t` the one to show; true when it changed.
    func show(at t: Time) throws -> Bool {
        let target = index(at: t)
        if target == shown {
            catchingUp = nil
            return false
        }
        if !planes.has(target) && target < planes.next { planes.restart() }
        let started = DispatchTime.now().uptimeNanoseconds
        reader.skipping = .none
        while planes.next <= target {
            let k = planes.next
            let pictureStarted = DispatchTime.now().uptimeNanoseconds
            try reader.show(at: prepared.times[k])
            let decoded = DispatchTime.now().uptimeNanoseconds
            guard try reader.withPlanes({ try planes.steady(planes: $0, linesizes: $1) }) != nil else {
                throw PreviewError.nothingToPlay("source picture \(k) could not be decoded to be steadied")
            }
            let now = DispatchTime.now().uptimeNanoseconds
            if costs.whole.count < 100_000 {
                costs.whole.append(now - pictureStarted)
                costs.transform.append(now - decoded)
            }
            if now - started > Self.turnBudget && planes.next <= target { break }
        }
        guard planes.has(target) else {
            catchingUp = target
            return false
        }
        catchingUp = nil
        shown = target
        return true
    }

    /// Calls `body` with the steadied picture on screen's planes.
    func withPlanes(_ body: (_ planes: [UnsafePointer<UInt8>], _ linesizes: [Int]) throws -> Void) rethrows {
        guard let shown else { return }
        _ = try planes.withPlanes(of: shown, body)
    }

    /// Forgets which picture is on screen (something else was shown meanwhile).
    func forgetShown() { shown = nil }

    /// The status note: `steadied`, or how far a catch-up has come.
    var note: String? {
        guard isOn else { return "not steadied (v)" }
        guard let catchingUp else { return "steadied" }
        return "steadying: \(planes.next) of \(catchingUp + 1) pictures"
    }
}
