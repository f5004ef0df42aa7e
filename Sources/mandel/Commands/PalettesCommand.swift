import ArgumentParser
import MandelOptions
import MandelbrotCore
import Platform
import RenderModel

/// `mandel palettes`: the named palettes, with a swatch when standard output is a colour terminal.
struct PalettesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "palettes",
        abstract: "List the named palettes of smooth colouring.",
        discussion:
            "Use one with --palette NAME, or give your own colours: --palette "
            + "'#000764,#206bcb,#edffff,#ffaa00,#000200'."
    )

    func run() async throws {
        let showSwatches = Terminal.standardOutputIsTerminal
        let width = Palette.named.map(\.name.count).max() ?? 0
        try await CommandRun.perform(grace: 0) { _ in
            for entry in Palette.named {
                let padding = String(repeating: " ", count: width - entry.name.count)
                let swatch = showSwatches ? Self.swatch(entry.palette) + "  " : ""
                try StandardOutput.line("\(entry.name)\(padding)  \(swatch)\(entry.summary)")
            }
        }
    }

    /// 24 cells of the gradient in 24-bit terminal colour.
    static func swatch(_ palette: Palette) -> String {
        (0..<24).map { cell in
            let color = palette.color(at: Double(cell) / 24)
            return "\u{1B}[48;2;\(color.red);\(color.green);\(color.blue)m \u{1B}[0m"
        }.joined()
    }
}
