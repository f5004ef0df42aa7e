import Synchronization

/// Waits, without blocking a thread, until `start` calls the closure it is given, and
/// orders everything that happened before that call before everything after the wait.
///
/// A continuation's resume does that already, but ThreadSanitizer cannot see it on
/// Linux: it reported the histogram written on its merge queue and read after a
/// continuation as a race. The atomic store before the resume and the load after
/// the wait are an edge it does see.
func awaitHandoff(_ start: (@escaping @Sendable () -> Void) -> Void) async {
    let fence = Fence()
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        start {
            fence.passed.store(true, ordering: .releasing)
            continuation.resume()
        }
    }
    precondition(fence.passed.load(ordering: .acquiring), "resumed before the handoff")
}

private final class Fence: Sendable {
    let passed = Atomic(false)
}
