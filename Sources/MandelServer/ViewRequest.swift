import ArgumentParser
import Foundation
package import ImageFiles
package import MandelOptions
package import MandelbrotCore
import Platform
import StrategyCatalog

/// A view, a tile or a command asked for in a URL's query, read by the command line's own rules:
/// each key is a `mandel render` option's name without its dashes, and its value is that option's
/// value, parsed and checked by the same code as `render` (so a value `render` refuses, the
/// server refuses, with the same words).
package struct ViewRequest: Sendable {
    /// The query keys a request may have, in the order the command names them.
    package static let viewKeys = [
        "size", "center", "zoom", "precision", "bla", "period", "iterations", "color", "palette", "palette-cycle",
        "palette-offset", "julia", "supersample",
    ]

    /// `mandel render`'s arguments for this request, after `render`: the strategy, then every key
    /// given, in ``viewKeys`` order, then the window, then the compression.
    package var arguments: [String] {
        viewArguments + (window.map { ["--window", "\($0)"] } ?? [])
            + (compression.map { ["--compression", $0.rawValue] } ?? [])
    }
    /// The strategy's and the view's arguments.
    let viewArguments: [String]
    /// The picture (or its window) that the arguments describe, with the server's work split.
    package let job: RenderJob
    /// The strategy's name.
    package let strategy: String
    /// The window, for a tile.
    package let window: PixelWindow?
    /// The PNG's compression, named in the arguments; nil for `render`'s default.
    let compression: PNGCompression?
    /// How the PNG is written (the compression).
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
    ///   - compression: The PNG's compression, named in the arguments; nil leaves `render`'s default.
    ///   - views: Views read before, so that the tiles of one view are parsed once, not once a tile.
    /// - Throws: ``Refusal`` (400) naming the first bad key or value and what is allowed.
    package init(
        query: [(key: String, value: String)], needsWindow: Bool, limits: RequestLimits, work: WorkOptions,
        compression: PNGCompression? = nil, views: ViewCache? = nil
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
        var viewArguments: [String] = []
        for key in ["strategy"] + Self.viewKeys {
            if let value = given[key] { viewArguments += ["--\(key)", value] }
        }
        // The strategy is named even where the request left it to the default: the command says how it ran.
        if given["strategy"] == nil {
            viewArguments = ["--strategy", StrategyCatalog.recommended.name] + viewArguments
        }
        func read() throws(Refusal) -> ViewRequest {
            try ViewRequest(viewArguments: viewArguments, limits: limits, work: work, compression: compression)
        }
        let view: ViewRequest
        if let views {
            view = try views.view(for: viewArguments + [compression?.rawValue ?? ""], read: read)
        } else {
            view = try read()
        }
        guard needsWindow else {
            self = view
            return
        }
        guard let window = given["window"] else {
            throw Refusal(status: 400, description: "window is missing: a tile is window=X,Y,W,H of the picture")
        }
        self = try view.windowed(window, limits: limits)
    }

    /// A whole view: `viewArguments` parsed and checked by the command line's parser.
    private init(
        viewArguments: [String], limits: RequestLimits, work: WorkOptions, compression: PNGCompression?
    ) throws(Refusal) {
        let arguments = viewArguments + (compression.map { ["--compression", $0.rawValue] } ?? [])
        let parsed: RequestArguments
        do {
            // `--key=value`: a value that starts with '-' stays a value for every option.
            parsed = try RequestArguments.parse(
                stride(from: 0, to: arguments.count, by: 2).map { "\(arguments[$0])=\(arguments[$0 + 1])" })
        } catch {
            throw Refusal(status: 400, description: Self.oneLine(RequestArguments.message(for: error)))
        }
        // The explorer's views are tiles, windows of a picture: a colouring that needs the whole picture
        // is refused for the view as for its tiles, in --window's words.
        do {
            try BatchOptions.validateWindow(preset: nil, colorScheme: parsed.view.colorScheme)
        } catch {
            throw Refusal(status: 400, description: Self.oneLine(BatchOptions.message(for: error)))
        }
        if parsed.view.iterationLimit > limits.maximumIterations {
            throw Refusal(
                status: 400,
                description: "iterations: this server renders at most \(limits.maximumIterations) (mandel serve "
                    + "--max-iterations; got \(parsed.view.iterationLimit))")
        }
        self.viewArguments = viewArguments
        job = RenderJob(view: parsed.view, work: work)
        window = nil
        self.compression = compression
        outputs = parsed.outputs
        strategy = parsed.strategy.strategy.name
    }

    private init(_ view: ViewRequest, window: PixelWindow) {
        viewArguments = view.viewArguments
        job = view.job.window(x: window.x, y: window.y, size: ImageSize(width: window.width, height: window.height))
        self.window = window
        compression = view.compression
        outputs = view.outputs
        strategy = view.strategy
    }

    /// The tile `text` (`X,Y,W,H`) of this view, read by `--window`'s parser and checked by its rules.
    func windowed(_ text: String, limits: RequestLimits) throws(Refusal) -> ViewRequest {
        let window: PixelWindow
        do {
            // The value rule `--window`'s parser applies (ValueParsing.window); the parser itself only to say
            // what is wrong, in its words: it costs more than the tile's PNG.
            if let valid = try? ValueParsing.window(text) {
                window = valid
            } else {
                window = try BatchOptions.parse(["--window=" + text]).window!
            }
            try BatchOptions.validateWindow(preset: nil, colorScheme: job.colorScheme)
        } catch {
            throw Refusal(status: 400, description: Self.oneLine(BatchOptions.message(for: error)))
        }
        if window.width > limits.maximumTileSide || window.height > limits.maximumTileSide {
            throw Refusal(
                status: 400,
                description: "window: a tile is at most \(limits.maximumTileSide)x\(limits.maximumTileSide) pixels "
                    + "(got \(window.width)x\(window.height))")
        }
        return ViewRequest(self, window: window)
    }

    /// The arguments as one line, `render …`, separated by single spaces.
    package var command: String { (["render"] + arguments).joined(separator: " ") }

    /// A parser's message as one line: its first line, with the list that follows it (the allowed
    /// values: "Please provide one of the following: serial, thread, …"), the options named as the
    /// query's keys, and a long value quoted back shortened.
    static func oneLine(_ message: String) -> String {
        let lines = message.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let first = lines.first ?? ""
        let items = lines.dropFirst().prefix { $0.hasPrefix("- ") }.map { String($0.dropFirst(2)) }
        let whole = items.isEmpty ? first : first + " " + items.joined(separator: ", ")
        // "'--zoom <zoom>'" → "zoom"; "--iterations" → "iterations"; a value past 60 characters → its first 60 and "…".
        let named = whole.replacing(#/'--([a-z-]+)(?: <[^>]*>)?'/#) { String($0.output.1) }
        let keys = named.replacing(#/--([a-z][a-z-]*)/#) { String($0.output.1) }
        return keys.replacing(#/'([^']{60})[^']+'/#) { "'\($0.output.1)…'" }
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

/// The options a view's query becomes: `render`'s view options, its strategy and the PNG's
/// compression, parsed and checked by the command line's parser.
struct RequestArguments: ParsableArguments {
    @OptionGroup var view: ViewOptions
    @OptionGroup var outputs: RenderOutputOptions

    @Option(help: "Threading strategy.")
    var strategy = StrategyChoice(StrategyCatalog.recommended)

    mutating func validate() throws {
        if view.preset != nil { throw ValidationError("preset is not a view of the explorer") }
    }
}

/// Views read lately, by their arguments: the tiles of one view are parsed once, not once a
/// tile (a parse costs about a millisecond, a quarter of a cheap tile's processor time).
package final class ViewCache: Sendable {
    private let entries = Locked<[(key: [String], view: ViewRequest)]>([])
    /// The most views kept.
    let capacity: Int

    package init(capacity: Int = 16) { self.capacity = capacity }

    /// The view read from `key` before, or the one `read` reads now (kept unless it is refused).
    func view(
        for key: [String], read: () throws(ViewRequest.Refusal) -> ViewRequest
    ) throws(ViewRequest.Refusal)
        -> ViewRequest
    {
        if let kept = entries.withLock({ list in list.first { $0.key == key }?.view }) { return kept }
        let view = try read()
        entries.withLock { list in
            list.removeAll { $0.key == key }
            list.append((key, view))
            if list.count > capacity { list.removeFirst(list.count - capacity) }
        }
        return view
    }
}
