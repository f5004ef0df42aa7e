public import ArgumentParser
package import ImageFiles
public import MandelbrotCore
import StrategyCatalog

// The value types options parse into: each reads its text once, by the rule in ValueParsing.

extension PixelSize: ExpressibleByArgument {
    public init?(argument: String) {
        guard let size = try? ValueParsing.size(argument) else { return nil }
        self = size
    }
}

/// A strategy named on the command line, from the catalog.
package struct StrategyChoice: ExpressibleByArgument, Sendable {
    package let strategy: any RenderStrategy

    package init?(argument: String) {
        guard let strategy = StrategyCatalog.strategy(named: String(argument.trimmingBlanks)) else { return nil }
        self.strategy = strategy
    }

    package init(_ strategy: any RenderStrategy) { self.strategy = strategy }

    package static var allValueStrings: [String] { StrategyCatalog.names }

    package var defaultValueDescription: String { strategy.name }

    /// Every name, comma-separated, for help and error messages.
    package static var allowedList: String { StrategyCatalog.names.joined(separator: ", ") }
}

/// An option whose values are a fixed set of words: blanks around the word are ignored, as everywhere.
package protocol WordArgument: ExpressibleByArgument, RawRepresentable<String>, CaseIterable {}

extension WordArgument {
    public init?(argument: String) { self.init(rawValue: ValueParsing.spelling(argument)) }
}

extension ColorScheme: ExpressibleByArgument, WordArgument {}
extension WorkSplit: ExpressibleByArgument, WordArgument {}
extension IterationKernel: ExpressibleByArgument, WordArgument {}
extension PNGCompression: ExpressibleByArgument, WordArgument {}
extension TileWait.Mode: ExpressibleByArgument, WordArgument {}
extension CancellationMode: ExpressibleByArgument, WordArgument {}
extension PrecisionMode: ExpressibleByArgument, WordArgument {}

/// A switch given as a word: on or off.
package enum OnOff: String, CaseIterable, ExpressibleByArgument, WordArgument {
    case on, off
}
