import ArgumentParser
import Comparison
import ImageFiles
import MandelOptions
import MandelbrotCore
import Platform
import RenderModel

/// `mandel join`: the part files of one picture, joined into the PNG one machine would have written.
struct JoinCommand: AsyncParsableCommand, ProcessNeeds {
    static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Join the parts of a picture (mandel render --part) into its PNG.",
        discussion: """
            The parts may be given in any order and under any names: each file says which \
            part it is. The PNG is byte for byte the one 'mandel render' writes with the same \
            options on one machine, and joining it is a copy of the parts' compressed rows. \
            A missing, duplicated, truncated, corrupted or forged part, or parts of different \
            pictures, are refused with exit 65 (a file that cannot be read, or is not a regular \
            file: 66; an output whose file system lacks the room: 73), and nothing is written. \
            See docs/parts.md.
            """
    )

    @Argument(help: ArgumentHelp("The part files, in any order.", valueName: "part"))
    var partFiles: [String] = []

    @Option(name: .shortAndLong, help: "The PNG, written whole or not at all; - for standard output.")
    var output = "mandel.png"

    @Option(
        parsing: .unconditional,
        help: "Seconds the join may still take after SIGTERM before it is cancelled, 0…3600.",
        transform: { try ValueParsing.real($0) })
    var grace = 5.0

    var outputCount: Int { 1 }
    var workerThreads: Int { 0 }

    mutating func validate() throws {
        try validateGrace(grace)
        guard !partFiles.isEmpty else {
            throw ValidationError("give the part files to join, such as 'mandel join part-*.mpart -o picture.png'")
        }
        for path in partFiles where OutputSet.firstSameFile(among: [output, path]) != nil {
            throw ValidationError(
                "-o '\(Display.path(output))' is one of the parts; give the PNG a name of its own")
        }
    }

    func run() async throws {
        try await CommandRun.perform(grace: grace, finishing: "the join") { watch in
            let start = MonotonicClock.nanoseconds()
            let join = try PartJoin(paths: partFiles)
            try await CommandRun.publishing([output], watch: watch) { files in
                // The PNG's size is known exactly: a disk too small is refused before the first byte.
                try OutputRoom.check([.init(file: files[0], bytes: join.outputBytes, what: "the joined PNG takes")])
                try join.write(to: files[0]) {
                    if watch.cancellation.isCancelled { throw CommandRun.Stopped() }
                }
            }
            let seconds = MonotonicClock.seconds(since: start)
            let count = join.parts.count
            try HumanReport(toStandardError: OutputFile.namesStandardOutput(output)).line(
                "joined \(count) part\(count == 1 ? "" : "s") (\(ByteCount(Int(join.bodyBytes))) of image data) in "
                    + "\(NumberFormat.seconds(seconds)) -> "
                    + (OutputFile.namesStandardOutput(output) ? "standard output" : Display.path(output)))
        }
    }
}
