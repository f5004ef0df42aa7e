import Testing

/// The server's suites, one at a time: in one process they share the threads that every server's
/// handlers run on, and one suite's renders would otherwise set the times another one measures.
@Suite("mandel serve's server, in process", .serialized)
enum ExplorerServerTests {}
