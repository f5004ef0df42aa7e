/// Text from a user or another process, made safe to print on one line of a message.
public enum OneLine {
    /// `text` with control characters written as escapes (`\n`, `\t`, `\u{1B}`), so that it
    /// cannot break a one-line message or send codes to the terminal.
    public static func escaped(_ text: String) -> String {
        var shown = ""
        for scalar in text.unicodeScalars {
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
