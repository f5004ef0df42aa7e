/// How a parent starts a helper: `mandel helper --slot S --generation G --parent P`, written once
/// here for the parent that builds the command line (``HelperConnection``) and the helper that
/// reads it without the argument parser (`main.swift`).
package struct HelperLaunch: Equatable, Sendable {
    /// The parent's worker slot the helper serves.
    package let slot: Int
    /// How many helpers served that slot before this one.
    package let generation: Int
    /// The parent's process id.
    package let parent: Int32

    package init(slot: Int, generation: Int, parent: Int32) {
        self.slot = slot
        self.generation = generation
        self.parent = parent
    }

    /// The command line after the program's name.
    package var arguments: [String] {
        ["helper", "--slot", "\(slot)", "--generation", "\(generation)", "--parent", "\(parent)"]
    }

    /// The launch that `arguments` (after the program's name) give when they are exactly the form
    /// of ``arguments``, each value a decimal integer that fits; nil for any other form.
    package init?(arguments: [String]) {
        guard arguments.count == 7, arguments[0] == "helper", arguments[1] == "--slot",
            arguments[3] == "--generation", arguments[5] == "--parent",
            let slot = Int(arguments[2]), let generation = Int(arguments[4]), let parent = Int32(arguments[6])
        else { return nil }
        self.init(slot: slot, generation: generation, parent: parent)
    }
}
