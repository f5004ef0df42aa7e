/// Text from the user, made safe to print on one line of a message.
public enum Display {
    /// `path` with control characters written as escapes (`\n`, `\t`, `\u{1B}`), so that
    /// a file name cannot break a one-line message or send codes to the terminal.
    public static func path(_ path: String) -> String {
        var shown = ""
        for scalar in path.unicodeScalars {
            switch scalar {
            case "\n": shown += "\\n"
            case "\r": shown += "\\r"
            case "\t": shown += "\\t"
            case "\\": shown += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7f || (0x80..<0xa0).contains(scalar.value):
                shown += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: shown.unicodeScalars.append(scalar)
            }
        }
        return shown
    }
}
