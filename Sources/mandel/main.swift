import ArgumentParser
import Dispatch
import MandelOptions
import Platform
import RenderModel

// The entry point. Parsing, and the checks that must come before Dispatch starts its
// own threads and descriptors, run here, synchronously; the command then runs on the
// main queue, which `dispatchMain()` serves.

@MainActor
func run(_ command: sending any ParsableCommand) -> Never {
    let needs = command as? any ProcessNeeds
    ProcessStart.ensureFileDescriptors(forOutputs: needs?.outputCount ?? 0, helpers: needs?.helperProcesses ?? 0)
    ProcessStart.ensureThreads(forWorkers: needs?.workerThreads ?? 0)
    ProcessStart.ensureAddressSpace(forWorkers: needs?.workerThreads ?? 0)
    guard let asynchronous = command as? any AsyncParsableCommand else {
        var synchronous = command
        do { try synchronous.run() } catch { InformationRequest.exit(withError: error) }
        ProcessStart.exit(0)
    }
    // The parsed command is a value that only this task uses, from here on.
    nonisolated(unsafe) var parsed = asynchronous
    Task { @MainActor in
        do {
            try await parsed.run()
        } catch {
            // Not Mandel.exit(withError:): exit() would run Dispatch's teardown, which may need
            // a thread (and wait for ever when the user may start no more). Reports are unbuffered.
            let message = Mandel.fullMessage(for: error)
            if !message.isEmpty { ProcessStart.writeRaw(message + "\n") }
            ProcessStart.exit(Mandel.exitCode(for: error).rawValue)
        }
        ProcessStart.exit(0)
    }
    dispatchMain()
}

ProcessStart.deliverWriteErrorsAsErrors()
ProcessStart.warnBeforeTheCPULimit()
// A helper that `--strategy process` started, with the arguments it always gives: served without
// the argument parser, whose type lookups were a sixth of a helper's start. Any other form (a
// person typing `mandel helper --help`) is parsed as usual.
if let helper = HelperCommand.asStartedByParent(Array(CommandLine.arguments.dropFirst())) {
    run(helper)
}
do {
    try InformationRequest.check(Array(CommandLine.arguments.dropFirst()))
    run(try Mandel.parseAsRoot())
} catch {
    InformationRequest.exit(withError: error)
}
