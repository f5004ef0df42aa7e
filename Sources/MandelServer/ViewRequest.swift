import ArgumentParser
package import ImageFiles
package import MandelOptions
package import MandelbrotCore
import StrategyCatalog

/// A view, a tile or a command asked for in a URL's query, read by the command line's own rules:
/// each key is a `mandel render` option's name without its dashes, and its value is that option's
/// value, parsed and checked by the same code as `render` (so a value `render` refuses, the
/// server refuses, with the same words).
package struct ViewRequest: Sendable {
    /// The query keys a request may have, in the order the command names them.
    package static let viewKeys = [
        "size", "center", "zoom", "precision", "bla", "iterations", "color", "palette", "palette-cycle",
        "palette-offset", "julia", "supersample",
    ]

    /// `mandel render`'s arguments for this request, after `render`: the strategy, then every key
    /// given, in ``viewKeys`` order, then the window.
    package let arguments: [String]
    /// The picture (or its window) that the arguments describe, with the server's work split.
    package let job: RenderJob
    /// The strategy's name.
    package let strategy: String
    /// The window, for a tile.
    package let window: PixelWindow?
    /// How the PNG is written: the server's `--compression`, which the arguments name.
    package let outputs: RenderOutputOptions

    /// Why a request cannot be served: one line, and the status that says so.
    package struct Refusal: Error, CustomStringConvertible {
        package let status: Int
        package let description: String
    }

    /// Reads `query` (key, value pairs, values percent-decoded).
    ///
    /// - Parameters:
    ///   - needsWindow: A tile (`window` required) or a whole view (`window` refused).
    ///   - limits: The server's per-request limits.
    ///   - work: The server's work options (workers, tile size, split, kernel), which do not change a pixel.
    /// - Throws: ``Refusal`` (400) naming the first bad key or value and what is allowed.
    ///   - compression: The PNG's compression, named in the arguments; nil leaves `render`'s default.
    package init(
        query: [(key: String, value: String)], needsWindow: Bool, limits: RequestLimits, work: WorkOptions,
        compression: PNGCompression? = nil
    ) throws(Refusal) {
        var given: [String: String] = [:]
        let allowed = Self.viewKeys + ["strategy"] + (needsWindow ? ["window"] : [])
        for (key, value) in query {
            guard allowed.contains(key) else {
                throw Refusal(
                    status: 400,
                    description: key == "window"
                        ? "window belongs to a tile (/tile); a view is the whole picture"
                        : "unknown parameter '\(Self.printable(key))'; allowed: \(allowed.joined(separator: ", "))")
            }
            guard given[key] == nil else { throw Refusal(status: 400, description: "\(key) is given twice") }
            // The value goes into a command line and a header: printable ASCII without blanks only.
            guard !value.isEmpty, value.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                throw Refusal(
                    status: 400,
                    description:
                        "\(key) must be a value without spaces or control characters (got '\(Self.printable(value))')")
            }
            given[key] = value
        }
        if needsWindow && given["window"] == nil {
            throw Refusal(status: 400, description: "window is missing: a tile is window=X,Y,W,H of the picture")
        }
        var arguments: [String] = []
        for key in ["strategy"] + Self.viewKeys + ["window"] {
            if let value = given[key] { arguments += ["--\(key)", value] }
        }
        // The strategy is named even where the request left it to the default: the command says how it ran.
        if given["strategy"] == nil { arguments = ["--strategy", StrategyCatalog.recommended.name] + arguments }
        if let compression { arguments += ["--compression", compression.rawValue] }
        let parsed: RequestArguments
        do {
            // `--key=value`: a value that starts with '-' stays a value for every option.
            parsed = try RequestArguments.parse(
                stride(from: 0, to: arguments.count, by: 2).map { "\(arguments[$0])=\(arguments[$0 + 1])" })
        } catch {
            throw Refusal(status: 400, description: Self.oneLine(RequestArguments.message(for: error)))
        }
        let window = parsed.batch.window
        if let window, window.width > limits.maximumTileSide || window.height > limits.maximumTileSide {
            throw Refusal(
                status: 400,
                description: "window: a tile is at most \(limits.maximumTileSide)x\(limits.maximumTileSide) pixels "
                    + "(got \(window.width)x\(window.height))")
        }
        if parsed.view.iterationLimit > limits.maximumIterations {
            throw Refusal(
                status: 400,
                description: "iterations: this server renders at most \(limits.maximumIterations) (mandel serve "
                    + "--max-iterations; got \(parsed.view.iterationLimit))")
        }
        let picture = RenderJob(view: parsed.view, work: work)
        self.job =
            window.map {
                picture.window(x: $0.x, y: $0.y, size: ImageSize(width: $0.width, height: $0.height))
            } ?? picture
        self.window = window
        self.outputs = parsed.outputs
        self.strategy = parsed.strategy.strategy.name
        self.arguments = arguments
    }

    /// The arguments as one line, `render …`, separated by single spaces.
    package var command: String { (["render"] + arguments).joined(separator: " ") }

    /// The first line of a parser's message, with the options named as the query's keys.
    static func oneLine(_ message: String) -> String {
        let first = message.split(separator: "\n").first.map(String.init) ?? message
        // "'--zoom <zoom>'" → "zoom"; "--iterations" → "iterations".
        let named = first.replacing(#/'--([a-z-]+)(?: <[^>]*>)?'/#) { String($0.output.1) }
        return named.replacing(#/--([a-z][a-z-]*)/#) { String($0.output.1) }
    }

    /// `text` with anything outside printable ASCII shown as `?`, at most 80 characters.
    static func printable(_ text: String) -> String {
        String(String(decoding: text.utf8.prefix(80).map { (0x20...0x7E).contains($0) ? $0 : 0x3F }, as: UTF8.self))
    }
}

/// What a request may ask for at most: beyond these a request is refused before any work.
package struct RequestLimits: Sendable {
    /// The longest side of a tile.
    package var maximumTileSide = 1024
    /// The iteration limit a request may set.
    package var maximumIterations = 10_000_000

    package init(maximumTileSide: Int = 1024, maximumIterations: Int = 10_000_000) {
        self.maximumTileSide = maximumTileSide
        self.maximumIterations = maximumIterations
    }
}

/// The options a request's query becomes: `render`'s view options, its window and its strategy,
/// parsed and checked by the command line's parser.
struct RequestArguments: ParsableArguments {
    @OptionGroup var view: ViewOptions
    @OptionGroup var batch: BatchOptions
    @OptionGroup var outputs: RenderOutputOptions

    @Option(help: "Threading strategy.")
    var strategy = StrategyChoice(StrategyCatalog.recommended)

    mutating func validate() throws {
        if view.preset != nil { throw ValidationError("preset is not a view of the explorer") }
        try batch.validateWindow(view: view)
    }
}
