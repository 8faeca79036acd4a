#if canImport(Glibc)
import Glibc
#endif

/// glibc's `mallopt`, the one way slowpoke sets how the allocator behaves (the CLI's memory
/// policy, ``FilledAllocations``). It is declared in <malloc.h>, which Glibc's module leaves
/// out, so it is looked up in the process.
public enum MallocOption {
    /// `M_TRIM_THRESHOLD`.
    public static let trimThreshold: Int32 = -1
    /// `M_PERTURB`.
    public static let perturb: Int32 = -6

    public static func set(_ option: Int32, _ value: Int32) {
        #if canImport(Glibc)
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "mallopt") else { return }
        _ = unsafeBitCast(symbol, to: Mallopt.self)(option, value)
        #endif
    }
}
