/// Whether a standard stream is an interactive terminal.
public enum Terminal {
    /// Whether standard error is a terminal.
    public static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) != 0 }

    /// Whether standard output is a terminal.
    public static var standardOutputIsTerminal: Bool { isatty(STDOUT_FILENO) != 0 }
}
