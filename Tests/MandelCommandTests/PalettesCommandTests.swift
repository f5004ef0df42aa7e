import Deadline
import Foundation
import MandelbrotCore
import ProcessTestSupport
import Testing

/// `mandel palettes`: a name and a summary a line, and on a terminal a swatch of 24 cells between them.
@Suite("mandel palettes")
struct PalettesCommandTests {
    @Test("into a pipe: each named palette's name, padded to the longest, and its summary; no escape sequence")
    func listing() throws {
        let result = try MandelProcess.run(["palettes"])
        #expect(result.status == 0, "\(result.standardError)")
        let width = Palette.named.map(\.name.count).max() ?? 0
        let expected = Palette.named.map {
            $0.name + String(repeating: " ", count: width - $0.name.count) + "  " + $0.summary
        }
        #expect(result.standardOutput.split(separator: "\n").map(String.init) == expected)
        #expect(!result.standardOutput.contains("\u{1B}"))
    }

    /// `script` gives `mandel` a pseudo-terminal as its standard output.
    @Test("on a terminal: each line's 24 cells are the palette at 0, 1/24, … 23/24, in 24-bit colour")
    func swatches() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", "'\(MandelProcess.executable.path)' palettes", "/dev/null"]
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Armed before the read, which would otherwise wait as long as a hung child.
        let watchdog = MandelProcess.Watchdog(process, seconds: 60)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        if watchdog.disarm() { throw DeadlinePassed(waitingFor: "mandel palettes on a terminal", seconds: 60) }
        #expect(process.terminationStatus == 0)
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\r\n").map(String.init)
        #expect(lines.count == Palette.named.count, "\(lines)")
        let width = Palette.named.map(\.name.count).max() ?? 0
        for (line, entry) in zip(lines, Palette.named) {
            let cells = (0..<24).map { cell in
                let color = entry.palette.color(at: Double(cell) / 24)
                return "\u{1B}[48;2;\(color.red);\(color.green);\(color.blue)m \u{1B}[0m"
            }
            let name = entry.name + String(repeating: " ", count: width - entry.name.count)
            #expect(line == name + "  " + cells.joined() + "  " + entry.summary, "\(entry.name)")
        }
    }
}
