import Foundation
import ProcessTestSupport
import Testing

/// A name with control characters in a message is written with escapes, on one line: a newline
/// cannot break the line, and no code (ESC's, or the C1 codes a terminal may take as ESC [) reaches
/// the terminal. Every class of character that `OneLine` escapes, through two commands' messages.
@Suite("Control characters in a message's names")
struct ControlCharacterTests {
    /// Each character and the escape the message shows it as.
    static let characters: [(character: String, shown: String)] = [
        ("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t"), ("\\", "\\\\"), ("\u{1}", "\\u{1}"), ("\u{1B}", "\\u{1B}"),
        ("\u{7F}", "\\u{7F}"), ("\u{85}", "\\u{85}"), ("\u{9B}", "\\u{9B}"), ("\u{9F}", "\\u{9F}"),
    ]

    @Test("-o through a missing folder and a missing part: every control character escaped, one line")
    func escapedOnOneLine() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Beside each character, a letter and a character that is not escaped (é, U+A0: just past C1).
        let name = Self.characters.map { "é" + $0.character + "\u{A0}" }.joined()
        let shown = Self.characters.map { "é" + $0.shown + "\u{A0}" }.joined()
        let render = try MandelProcess.run(["render", "--size", "16", "-o", name + "/x.png"], in: folder)
        expectRefusal(
            render, status: 73, mentioning: "cannot create '\(shown)/x.png': the folder '\(shown)' does not exist")
        let join = try MandelProcess.run(["join", name, "-o", "x.png"], in: folder)
        expectRefusal(join, status: 66, mentioning: "cannot read '\(shown)': No such file or directory")
        for result in [render, join] {
            #expect(result.standardError.split(separator: "\n", omittingEmptySubsequences: false).count == 2)
            let controls = result.standardError.dropLast().unicodeScalars.filter {
                $0.value < 0x20 || (0x7F..<0xA0).contains($0.value)
            }
            #expect(controls.isEmpty, "\(controls.map(\.value))")
        }
        #expect(contents(of: folder).isEmpty)
    }
}
