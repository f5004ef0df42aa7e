import ArgumentParser

/// An output name with a frame's number in it, as ffmpeg reads a sequence of pictures:
/// `frame-%04d.png` names frame 7 `frame-0007.png`. `%d` is the number as it is, `%0Nd` (and
/// `%Nd`) pads it to N digits with zeros (spaces), `%%` is a `%`.
///
/// Only a zoom sequence reads its `-o` so (`--frames N` without `--frame`, which needs a number in
/// it, and `--frame K/N`); any other render's name is taken as it is, `%` and all.
package struct FrameName: Sendable, Equatable {
    private enum Piece: Equatable {
        case text(String)
        case number(width: Int, zeros: Bool)
    }

    private let pieces: [Piece]

    /// Whether the name holds a frame number (otherwise every frame would get the same name).
    package var hasNumber: Bool { pieces.contains { if case .number = $0 { true } else { false } } }

    /// Reads `pattern`; throws, naming `option`, on a `%` that is not `%d`, `%0Nd`, `%Nd` or `%%`,
    /// or on more than one number.
    package init(_ pattern: String, option: String) throws {
        var pieces: [Piece] = []
        var text = ""
        var rest = Substring(pattern)
        func refuse(_ what: String) -> ValidationError {
            ValidationError(
                "\(option) \(pattern): \(what); a frame's number is written %d, or %04d for four digits, and a % "
                    + "as %%")
        }
        while let first = rest.first {
            rest = rest.dropFirst()
            guard first == "%" else {
                text.append(first)
                continue
            }
            if rest.first == "%" {
                text.append("%")
                rest = rest.dropFirst()
                continue
            }
            let zeros = rest.first == "0"
            if zeros { rest = rest.dropFirst() }
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            rest = rest.dropFirst(digits.count)
            guard rest.first == "d", digits.count <= 2, let width = digits.isEmpty ? 0 : Int(digits) else {
                throw refuse(
                    "'%\(zeros ? "0" : "")\(digits)\(rest.first.map(String.init) ?? "")' is not a number's form")
            }
            rest = rest.dropFirst()
            if pieces.contains(where: { if case .number = $0 { true } else { false } }) {
                throw refuse("it has two frame numbers")
            }
            if !text.isEmpty { pieces.append(.text(text)) }
            text = ""
            pieces.append(.number(width: width, zeros: zeros))
        }
        if !text.isEmpty { pieces.append(.text(text)) }
        self.pieces = pieces
    }

    /// The name of frame `index`.
    package func name(ofFrame index: Int) -> String {
        pieces.map { piece in
            switch piece {
            case .text(let text): return text
            case .number(let width, let zeros):
                let digits = String(index)
                let pad = max(0, width - digits.count)
                return String(repeating: zeros ? "0" : " ", count: pad) + digits
            }
        }
        .joined()
    }
}
