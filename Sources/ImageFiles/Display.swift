import Platform

/// Text from the user, made safe to print on one line of a message.
public enum Display {
    /// `path` with control characters written as escapes (`\n`, `\t`, `\u{1B}`), so that
    /// a file name cannot break a one-line message or send codes to the terminal.
    public static func path(_ path: String) -> String { OneLine.escaped(path) }
}
