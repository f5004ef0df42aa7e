import Foundation

/// A crash on purpose, for the tests that check a real crash stays a crash under the signal watch:
/// `MANDEL_CRASH` in the environment names the fault, committed as the command's work starts.
/// - `trap`: `fatalError` (a Swift trap: SIGILL from the processor).
/// - `abort`: `abort()`, as a C library does (SIGABRT raised by the process itself).
/// - `segv`: a write through an address nothing is mapped at (SIGSEGV from the processor).
/// - `raise`: `raise(SIGSEGV)`.
/// Anything else, or no variable, does nothing (tests set it, users do not).
enum CrashDrill {
    static func commitIfAsked() {
        switch ProcessInfo.processInfo.environment["MANDEL_CRASH"] {
        case "trap": fatalError("MANDEL_CRASH=trap")
        case "abort": abort()
        case "segv":
            // A variable address, so that the optimiser cannot prove the write undefined and drop it.
            let address = 8 + Int(getpid() & 0)
            UnsafeMutablePointer<Int>(bitPattern: address)!.pointee = 1
        case "raise": raise(SIGSEGV)
        default: return
        }
    }
}
