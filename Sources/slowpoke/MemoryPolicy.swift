#if canImport(Glibc)
import Glibc
#endif

/// How the process hands freed memory back, set once at start.
///
/// glibc raises its mmap threshold each time a large block is freed, so the next large ones
/// (each open movie's index of every sample, 12.5 MB for a 2-hour mp4; a render's buffers) come
/// from the heap, and freeing them leaves them mapped: a 2-hour export peaked at 163-182 MB, of
/// which 50 MB was memory already freed. A fixed trim threshold (which also fixes the mmap
/// threshold at its default) returns it: the same export peaks at 124 MB, in the same time
/// (measured with MALLOC_TRIM_THRESHOLD_, which this sets from inside).
enum MemoryPolicy {
    static func apply() {
        #if canImport(Glibc)
        // mallopt is declared in <malloc.h>, which Glibc's module leaves out: looked up instead.
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let trimThreshold: Int32 = -1  // M_TRIM_THRESHOLD
        guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "mallopt") else { return }
        _ = unsafeBitCast(symbol, to: Mallopt.self)(trimThreshold, 1 << 20)
        #endif
    }
}
