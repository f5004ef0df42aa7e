// sampler-probe: the process sampler in a process whose threads and memory the caller decides, for
// `ProcessSamplerTests`. A test process runs other tests' threads beside its own, and `mandel`'s
// threads vary by one from run to run (the runtime's and libdispatch's own), so neither can show
// whether the sampler counts exactly the threads there are.
//
//   sampler-probe BEFORE AFTER INSTRUMENTS [MIB]
//
// Starts BEFORE parked threads and INSTRUMENTS more (instruments of the process's own, which the
// sampler is told to leave out), then the sampler; after 60 ms starts AFTER threads more and writes
// to every page of MIB mebibytes (0 unless given); stops the sampler 60 ms later and prints each
// 10 ms window's thread count on one line, then the peak, then each window's resident bytes, then
// their peak. Besides the main thread no other thread runs: the process imports neither Foundation
// nor a pool.
import Dispatch
import Platform
import Probes

let counts = CommandLine.arguments.dropFirst().compactMap { Int($0) }
guard counts.count == 3 || counts.count == 4, counts.allSatisfy({ $0 >= 0 && $0 <= 64 }) else {
    print("usage: sampler-probe BEFORE AFTER INSTRUMENTS [MIB] (each 0–64)")
    exit(64)
}
let (before, after, instruments) = (counts[0], counts[1], counts[2])
let mebibytes = counts.count == 4 ? counts[3] : 0

/// Starts `count` threads that wait until the process exits; returns once each is running.
func startParkedThreads(_ count: Int) {
    let running = DispatchSemaphore(value: 0)
    for _ in 0..<count {
        guard
            SystemThread.start({
                running.signal()
                DispatchSemaphore(value: 0).wait()
            })
        else {
            print("sampler-probe: cannot start a thread (\(SystemThread.lastFailure))")
            exit(1)
        }
    }
    for _ in 0..<count { running.wait() }
}

startParkedThreads(before + instruments)
guard let sampler = ProcessSampler(otherInstruments: instruments) else {
    print("sampler-probe: no sampler here")
    exit(1)
}
SystemThread.sleep(nanoseconds: 60_000_000)
startParkedThreads(after)
let touched = UnsafeMutableRawPointer.allocate(byteCount: max(1, mebibytes << 20), alignment: 4096)
for page in stride(from: 0, to: mebibytes << 20, by: 4096) {
    touched.storeBytes(of: 1, toByteOffset: page, as: UInt8.self)
}
SystemThread.sleep(nanoseconds: 60_000_000)
let samples = sampler.stop()
print(samples.windows.map { String($0.threads) }.joined(separator: " "))
print(samples.peakThreads)
print(samples.windows.map { String($0.residentBytes) }.joined(separator: " "))
print(samples.peakResidentBytes)
touched.deallocate()
