import Composition

extension Array where Element == Time {
    /// In times sorted ascending, the index of the last one at or before `s` (0 when `s` comes
    /// before them all): which frame or picture is on screen at `s`. Binary search, exact.
    package func lastIndex(notAfter s: Time) -> Int {
        var low = 0, high = count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if self[mid] <= s { low = mid } else { high = mid - 1 }
        }
        return Swift.max(low, 0)
    }
}
