import MandelbrotCore
import Platform
import Testing

@Suite("CancellationFlag")
struct CancellationFlagTests {
    @Test("handlers run once, and one registered late runs at once")
    func handlers() {
        let flag = CancellationFlag()
        let calls = Locked(0)
        flag.onCancel { calls.withLock { $0 += 1 } }
        #expect(!flag.isCancelled)
        flag.cancel()
        flag.cancel()
        #expect(flag.isCancelled)
        #expect(calls.withLock { $0 } == 1)
        flag.onCancel { calls.withLock { $0 += 10 } }
        #expect(calls.withLock { $0 } == 11)
    }
}

@Suite("CancellationFlag registrations")
struct CancellationFlagRegistrationTests {
    @Test("a removed handler never runs")
    func removal() {
        let flag = CancellationFlag()
        let calls = Locked(0)
        let registration = flag.onCancel { calls.withLock { $0 += 1 } }
        flag.removeHandler(registration!)
        flag.cancel()
        #expect(calls.withLock { $0 } == 0)
    }
}
