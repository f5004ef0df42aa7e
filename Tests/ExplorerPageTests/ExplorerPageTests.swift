import Testing

@Suite("Explorer page in a browser")
struct ExplorerPageTests {}
