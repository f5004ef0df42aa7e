import ArgumentParser
import ImageFiles
import MandelOptions
import RenderModel

/// `mandel help …`, `--help` and `--version`: what they accept, and how their text is written.
enum InformationRequest {
    /// Refuses what the parser would let through: `help` followed by a word that names no
    /// command (which printed the top-level help and exited 0), and `--version` with other arguments.
    static func check(_ arguments: [String]) throws {
        let commands = Mandel.configuration.subcommands.map { $0._commandName }
        if arguments.first == "help" {
            let named = arguments.dropFirst()
            if let unknown = named.first(where: { !commands.contains($0) }) {
                throw ValidationError(
                    "help names a command: unknown command '\(unknown)'; choose from "
                        + "\(commands.joined(separator: ", "))"
                )
            }
            if named.count > 1 {
                throw ValidationError("help names one command (got \(named.joined(separator: " ")))")
            }
        }
        if arguments.contains("--version"),
            let other = arguments.first(where: { $0 != "--version" && !commands.contains($0) })
        {
            throw ValidationError("--version takes no other arguments (got '\(other)')")
        }
    }

    /// Ends the process after a parse that stopped: help and the version go to standard
    /// output, checked (a write that fails is exit 74 and one line on standard error);
    /// every other error as the parser reports it.
    static func exit(withError error: any Error) -> Never {
        guard Mandel.exitCode(for: error) == .success else { Mandel.exit(withError: error) }
        let text = Mandel.fullMessage(for: error)
        do {
            if !text.isEmpty { try StandardOutput.line(text) }
        } catch {
            ProcessStart.writeError("\(error)")
            ProcessStart.exit(74)
        }
        ProcessStart.exit(0)
    }
}
