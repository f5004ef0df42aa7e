import Foundation
import PackagePlugin

/// Builds the explorer's page into `mandel`: the files of the target's `Page` folder become one
/// generated Swift file, so the program serves its page wherever it is copied, no resource
/// folder beside it.
@main
struct EmbedPage: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let page = target.directoryURL.appending(path: "Page")
        let files = try FileManager.default.contentsOfDirectory(at: page, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedPage.swift")
        return [
            .buildCommand(
                displayName: "Embedding the explorer's page (\(files.count) files)",
                executable: try context.tool(named: "EmbedFiles").url,
                arguments: [output.path] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output])
        ]
    }
}
