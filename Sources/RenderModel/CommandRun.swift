import ArgumentParser
package import ImageFiles
import MandelOptions
import MandelbrotCore
import WorkVisuals

/// Runs a command's work with the signal watch in place from the first moment, and turns
/// every way it can fail into one line on standard error and a documented exit code.
///
/// | code | meaning |
/// | --- | --- |
/// | 64 | bad usage (the argument parser's, from `validate()`) |
/// | 65 | an input file is not what it must be (a part, an orbit file) |
/// | 66 | an input file cannot be read |
/// | 69 | helper processes kept failing (`--strategy process`) |
/// | 70 | strategies produced different pixels |
/// | 71 | the system ran out of memory, threads or descriptors |
/// | 73 | an output cannot be created |
/// | 74 | an output could not be written |
/// | 128 + n | stopped by signal n (129 SIGHUP, 130 SIGINT, 131 SIGQUIT, 141 broken pipe, 143 SIGTERM, …) |
package enum CommandRun {
    /// Thrown where a command notices a stop between two pieces of work.
    package struct Stopped: Error {
        package init() {}
    }

    /// Strategies that should agree produced different pixels: a bug.
    package struct PixelMismatch: Error, CustomStringConvertible {
        package let description: String
    }

    /// Runs `body` under a signal watch with `grace` seconds after SIGTERM; a run that finishes
    /// within the grace says so on standard error (``SignalWatch/terminationNote``, or that
    /// `work` finished), as every command that takes `--grace` does.
    @MainActor
    package static func perform(
        grace: Double, finishing work: String = "the work", _ body: @MainActor (SignalWatch) async throws -> Void
    ) async throws {
        let watch = SignalWatch(grace: grace)
        defer { watch.stop() }
        CrashDrill.commitIfAsked()
        do {
            try await body(watch)
            watch.settle()
            if watch.wasAskedToTerminate {
                printError(
                    watch.terminationNote
                        ?? "terminated: finished \(work) within the grace period and wrote every output")
            }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            // A stop makes writers and renders fail on purpose: report the stop, not its echoes.
            if watch.stoppedBy != nil {
                printError(watch.stopMessage)
                throw ExitCode(watch.exitStatus)
            }
            // A file put in place before the failure (a preview) stays: the line says so.
            let left = watch.placedEarlyClause
            switch error {
            case let failure as PartJoinError:
                printError(failure.description + left)
                throw ExitCode(failure.exitCode)
            case let failure as ImageFileError:
                printError(failure.description + left)
                throw ExitCode(failure.exitCode)
            case let failure as RenderFailure:
                printError(failure.description + left)
                throw ExitCode(failure.exitCode)
            case let refused as OrbitFile.Refused:
                printError(refused.description + left)
                throw ExitCode(refused.exitCode)
            case let mismatch as PixelMismatch:
                printError(mismatch.description)
                throw ExitCode(70)
            default:
                printError("internal error: \(error) (a bug; please report it)")
                throw ExitCode(70)
            }
        }
    }
}

extension CommandRun {
    /// Opens every path in `paths` (all before any work), runs `body` with the files, and
    /// publishes them together once it has returned, unless a signal stopped the run; if
    /// anything fails, none is published.
    @MainActor
    package static func publishing<Result>(
        _ paths: [String], watch: SignalWatch, _ body: @MainActor ([OutputFile]) async throws -> Result
    ) async throws -> Result {
        var files: [OutputFile] = []
        do {
            for path in paths { files.append(try OutputFile(path: path)) }
            let result = try await body(files)
            if watch.stoppedBy != nil { throw Stopped() }
            try OutputSet(files).commit()
            return result
        } catch {
            OutputSet(files).discard()
            throw error
        }
    }
}

/// Prints `mandel: <message>` on standard error.
package func printError(_ message: String) {
    ProcessStart.writeError(message)
}
