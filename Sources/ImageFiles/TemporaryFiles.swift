import Platform

/// Every temporary file this process has open, so that an exit that cannot wait for
/// the normal clean-up (a signal whose work does not stop in time) still leaves nothing.
public enum TemporaryFiles {
    private static let paths = Locked<Set<String>>([])

    static func register(_ path: String) { paths.withLock { _ = $0.insert(path) } }

    static func unregister(_ path: String) { paths.withLock { _ = $0.remove(path) } }

    /// Removes every temporary file still registered. Safe while another thread is writing
    /// one: the data goes to a file that no longer has a name, and nothing is left behind.
    public static func removeAll() {
        let all = paths.withLock { paths in
            defer { paths.removeAll() }
            return paths
        }
        all.forEach { unlink($0) }
    }
}
