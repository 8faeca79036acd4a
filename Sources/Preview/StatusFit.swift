/// How the status fits a window: fewer fields first, then smaller type, never a line cut off
/// at the window's edge (while any variant fits at the smallest size).
///
/// ```
///   18 pt: full + notes → full → short → tight      the first that fits
///   15 pt, 12 pt, 10 pt: tight                      then smaller type
/// ```
public enum StatusFit {
    /// The point sizes tried, largest first.
    public static let sizes: [Int] = [18, 15, 12, 10]

    /// The variant (from ``PlaybackSettings/statusVariants(time:duration:section:notes:)``) and
    /// size to draw in `available` pixels, `measure` giving a text's width at a size; the
    /// shortest at the smallest size when nothing fits.
    public static func choose(_ variants: [String], available: Int, measure: (String, Int) -> Int?) -> (text: String, size: Int) {
        guard let shortest = variants.last else { return ("", sizes[0]) }
        for (n, size) in sizes.enumerated() {
            for text in n == 0 ? variants : [shortest] {
                if let width = measure(text, size), width <= available { return (text, size) }
            }
        }
        return (shortest, sizes[sizes.count - 1])
    }
}
