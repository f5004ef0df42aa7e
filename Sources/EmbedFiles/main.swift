import Foundation

// Writes a Swift file that holds files' bytes: `EmbedFiles OUTPUT FILE…`. Each file becomes an
// entry of `EmbeddedPage.files`, its name to its bytes in base64 (a string literal the compiler
// reads at once, where an array of a hundred thousand numbers takes it minutes).

let arguments = CommandLine.arguments.dropFirst()
guard let output = arguments.first else {
    FileHandle.standardError.write(Data("usage: EmbedFiles OUTPUT FILE…\n".utf8))
    exit(64)
}
var source = """
    // Generated at build time by the EmbedFiles tool (the EmbedPage plugin) from the files of
    // Sources/MandelServer/Page: edit those, not this.

    enum EmbeddedPage {
        /// Each file of the page by its name, its bytes in base64.
        static let files: [String: String] = [

    """
for path in arguments.dropFirst() {
    let url = URL(fileURLWithPath: path)
    guard let bytes = try? Data(contentsOf: url) else {
        FileHandle.standardError.write(Data("EmbedFiles: cannot read \(path)\n".utf8))
        exit(66)
    }
    source += "        \"\(url.lastPathComponent)\": \"\(bytes.base64EncodedString())\",\n"
}
source += "    ]\n}\n"
do {
    try Data(source.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
} catch {
    FileHandle.standardError.write(Data("EmbedFiles: cannot write \(output): \(error)\n".utf8))
    exit(73)
}
