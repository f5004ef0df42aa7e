import Foundation
import ImageFiles
import MandelbrotCore
import ProcessTestSupport
import Testing

/// `mandel render --window X,Y,W,H`: pixels of a picture's grid, which goes on past its edges.
@Suite("mandel render --window")
struct WindowCommandTests {
    /// A Double view with escaping pixels and the set's interior.
    static let shallow = ["--size", "200x150", "--center", "-0.75,0.1", "--zoom", "1.5", "--iterations", "300"]
    /// The "1e50" location, whose pixels at this size escape after 170,645 to 189,917 iterations.
    static let deep = ["--size", "96x64"] + DeepLocation.arguments1e50 + ["--iterations", "200000"]

    /// Renders `arguments` into `folder/name` and reads it back.
    static func render(_ arguments: [String], _ name: String, in folder: String) throws -> PNGImage {
        let result = try MandelProcess.run(["render"] + arguments + ["-o", name], in: folder)
        try #require(result.status == 0, "render \(arguments.joined(separator: " ")): \(result.standardError)")
        return try PNGImage(contentsOf: folder + "/" + name)
    }

    /// The samples of `image`'s pixels from (`x`, `y`), `width` × `height`, row by row.
    static func crop(_ image: PNGImage, x: Int, y: Int, width: Int, height: Int) -> [UInt8] {
        let channels = image.channels
        var samples: [UInt8] = []
        for row in y..<(y + height) {
            let first = (row * image.width + x) * channels
            samples += image.pixels[first..<(first + width * channels)]
        }
        return samples
    }

    @Test(
        "inside the picture a window is the whole picture's crop, in Double and by perturbation, every colouring",
        arguments: [
            (shallow, [0, 0, 50, 40], "smooth"), (shallow, [37, 21, 64, 48], "smooth"),
            (shallow, [150, 110, 50, 40], "smooth"), (shallow, [13, 30, 100, 70], "bw"),
            (shallow, [60, 50, 33, 17], "gray"), (deep, [20, 10, 40, 30], "smooth"), (deep, [0, 33, 96, 31], "smooth"),
        ])
    func insideIsTheCrop(view: [String], window: [Int], color: String) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let picture = view + ["--color", color]
        let whole = try Self.render(picture, "whole.png", in: folder)
        let text = window.map(String.init).joined(separator: ",")
        let part = try Self.render(picture + ["--window", text], "window.png", in: folder)
        #expect(part.width == window[2] && part.height == window[3])
        #expect(part.channels == whole.channels && part.bitDepth == whole.bitDepth)
        let expected = Self.crop(whole, x: window[0], y: window[1], width: window[2], height: window[3])
        #expect(part.pixels == expected, "\(color) window \(text) differs from the whole picture's pixels")
        #expect(Set(expected).count > 1, "a crop of one colour shows nothing")
        #expect(part.texts["mandel.size"] == "\(whole.width)x\(whole.height)")
        #expect(part.texts["mandel.window"] == text)
        #expect(whole.texts["mandel.size"] == nil && whole.texts["mandel.window"] == nil)
        #expect(part.texts["mandel.center"] == whole.texts["mandel.center"])
    }

    @Test("windows straddling the edges or wholly outside agree where they overlap, and with the picture inside it")
    func outsideWindowsAgree() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let whole = try Self.render(Self.shallow, "whole.png", in: folder)
        // (x, y, w, h) pairs that overlap; one of each pair straddles an edge, the other lies outside.
        let pairs: [([Int], [Int])] = [
            ([-40, -30, 100, 80], [-70, -50, 60, 50]), ([180, 130, 60, 50], [200, 150, 40, 40]),
            ([-10, 100, 50, 90], [-45, 150, 50, 30]),
        ]
        for (index, (a, b)) in pairs.enumerated() {
            let first = try Self.render(
                Self.shallow + ["--window", a.map(String.init).joined(separator: ",")], "a\(index).png", in: folder)
            let second = try Self.render(
                Self.shallow + ["--window", b.map(String.init).joined(separator: ",")], "b\(index).png", in: folder)
            let (left, top) = (max(a[0], b[0]), max(a[1], b[1]))
            let (right, bottom) = (min(a[0] + a[2], b[0] + b[2]), min(a[1] + a[3], b[1] + b[3]))
            try #require(right > left && bottom > top, "pair \(index) does not overlap")
            let overlapA = Self.crop(first, x: left - a[0], y: top - a[1], width: right - left, height: bottom - top)
            let overlapB = Self.crop(second, x: left - b[0], y: top - b[1], width: right - left, height: bottom - top)
            #expect(overlapA == overlapB, "windows \(a) and \(b) differ where they overlap")
            #expect(Set(overlapA).count > 1, "pair \(index): an overlap of one colour shows nothing")
            // The part of the straddling window inside the picture is the picture's.
            let (inLeft, inTop) = (max(a[0], 0), max(a[1], 0))
            let (inRight, inBottom) = (min(a[0] + a[2], whole.width), min(a[1] + a[3], whole.height))
            #expect(
                Self.crop(first, x: inLeft - a[0], y: inTop - a[1], width: inRight - inLeft, height: inBottom - inTop)
                    == Self.crop(whole, x: inLeft, y: inTop, width: inRight - inLeft, height: inBottom - inTop),
                "window \(a) inside the picture")
        }
    }

    @Test(
        "a window with a part, the preset, histogram colouring, bad syntax or sides out of range exits 64 in one line",
        arguments: [
            (["--window", "0,0,8,8", "--part", "0/2"], "--window and --part"),
            (
                ["--preset", "benchmarks-game", "--size", "64", "--window", "0,0,8,8"],
                "--window takes pixels of a view"
            ),
            (["--window", "0,0,8,8", "--color", "histogram"], "--color histogram spreads the palette"),
            (["--window", "1,2,3"], "give X,Y,W,H with whole numbers"), (["--window", "a,b,c,d"], "give X,Y,W,H"),
            (["--window", "1,2,3,4,5"], "give X,Y,W,H"), (["--window", "0,0,0,8"], "W and H from 1 to 2147483647"),
            (["--window", "0,0,8,-1"], "W and H from 1"), (["--window", "0,0,2147483648,1"], "W and H from 1"),
            (["--window", "-2147483648,0,8,8"], "X and Y must be from -2147483647 to 2147483647"),
            (["--window", "1.5,0,8,8"], "--window"), (["--window", ""], "--window"),
        ])
    func refusals(arguments: [String], mention: String) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(["render", "--size", "64x48"] + arguments + ["-o", "w.png"], in: folder)
        expectRefusal(result, status: 64, mentioning: mention, leaving: folder)
        #expect(result.standardError.split(separator: "\n").filter { $0.hasPrefix("Error:") }.count == 1)
    }

    @Test("--json gives the window and the picture's size; a whole picture gives null and its own size")
    func jsonReport() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (window, expected) in [(["--window", "-20,140,64,32"], [-20, 140, 64, 32] as [Int]?), ([], nil)] {
            let result = try MandelProcess.run(
                ["render"] + Self.shallow + window + ["--json", "-o", "w.png"], in: folder)
            try #require(result.status == 0, "\(result.standardError)")
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
            let window = json["window"] as? [Int]
            #expect(window == expected, "\(json["window"] ?? "missing")")
            #expect(json.keys.contains("window"), "the key is there, null for a whole picture")
            #expect(json["picture_width"] as? Int == 200 && json["picture_height"] as? Int == 150)
            #expect(json["width"] as? Int == (expected?[2] ?? 200) && json["height"] as? Int == (expected?[3] ?? 150))
        }
    }

    @Test("a part of a deep view takes the whole picture's precision, not its own rows', and joins byte for byte")
    func deepPartTakesThePicturesPrecision() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let picture = ["--size", "96x48"] + Array(Self.deep.dropFirst(2))
        func bits(_ arguments: [String]) throws -> (bits: Int, height: Int) {
            let result = try MandelProcess.run(["render"] + picture + arguments + ["--json"], in: folder)
            try #require(result.status == 0, "\(result.standardError)")
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
            return (try #require(json["precision_bits"] as? Int), try #require(json["height"] as? Int))
        }
        let whole = try bits(["-o", "whole.png"])
        let view = try #require(
            DeepView(
                centerReal: picture[3].split(separator: ",").map(String.init)[0],
                centerImaginary: picture[3].split(separator: ",").map(String.init)[1], zoom: picture[5]))
        #expect(whole.bits == view.precisionBits(for: ImageSize(width: 96, height: 48)))
        var names: [String] = []
        for index in 0..<3 {
            let part = try bits(["--part", "\(index)/3", "-o", "part\(index)"])
            #expect(part.bits == whole.bits, "part \(index) of 3 took \(part.bits) bits, the picture \(whole.bits)")
            names.append("part\(index)")
            if index == 0 {
                // The part's own rows would give fewer bits: the check above can tell the two apart.
                #expect(view.precisionBits(for: ImageSize(width: 96, height: part.height)) < whole.bits)
            }
        }
        let joined = try MandelProcess.run(["join"] + names.reversed() + ["-o", "joined.png"], in: folder)
        #expect(joined.status == 0, "\(joined.standardError)")
        let bytes = { (name: String) in try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)) }
        #expect(try bytes("joined.png") == bytes("whole.png"), "the joined parts differ from the whole render")
    }
}
