import ArgumentParser
import MandelOptions
import ProcessDriver
import RenderModel

/// `mandel helper`: the process that `--strategy process` starts for each worker; not for users.
struct HelperCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "helper",
        abstract: "Serve a parent mandel's tile requests on standard input and output (started by --strategy process).",
        shouldDisplay: false)

    @Option(help: "The parent's worker slot this helper serves.")
    var slot: Int = 0

    @Option(help: "How many helpers served this slot before this one.")
    var generation: Int = 0

    @Option(help: "The parent's process id; the helper leaves at once if it is gone.")
    var parent: Int32

    /// The command for `arguments` when they are exactly what ``HelperConnection`` passes
    /// (``HelperLaunch``'s form), read without the parser; nil for anything else.
    static func asStartedByParent(_ arguments: [String]) -> HelperCommand? {
        guard let launch = HelperLaunch(arguments: arguments) else { return nil }
        var command = HelperCommand()
        command.slot = launch.slot
        command.generation = launch.generation
        command.parent = launch.parent
        return command
    }

    func run() throws {
        let status = ProcessHelper.serve(slot: slot, generation: generation, parent: parent)
        if status != 0 { throw ExitCode(status) }
    }
}
