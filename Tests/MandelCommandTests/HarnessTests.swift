import Foundation
import ProcessTestSupport
import Testing

/// The test harness itself: it runs `mandel` hundreds of times in one test process.
@Suite("Harness")
struct HarnessTests {
    /// A watched child, once waited for and disarmed, is released with its pipes. The watchdog's
    /// work item stays queued until its deadline even when cancelled; had it kept the process,
    /// a full suite held over a thousand pipes open and corelibs' `Process.run` crashed.
    @Test("a disarmed watchdog lets the child's process object and its pipes go")
    func watchdogReleasesTheProcess() throws {
        weak var released: Process?
        var watchdog: MandelProcess.Watchdog?
        do {
            let process = try MandelProcess.start(["--version"])
            watchdog = MandelProcess.Watchdog(process, seconds: MandelProcess.deadlineSeconds)
            _ = (process.standardOutput as? Pipe)?.fileHandleForReading.readDataToEndOfFile()
            _ = (process.standardError as? Pipe)?.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            #expect(watchdog?.disarm() == false)
            #expect(process.terminationStatus == 0)
            released = process
        }
        // Foundation lets go of a finished process on its own thread, a moment after
        // waitUntilExit returns: wait for that (two seconds at most), never for the watchdog's 120.
        let giveUp = Date().addingTimeInterval(2)
        while released != nil && Date() < giveUp { usleep(10_000) }
        #expect(released == nil, "the cancelled watchdog still holds the process")
        withExtendedLifetime(watchdog) {}
    }
}
