import ArgumentParser
import Foundation
import ImageFiles
import MandelOptions
import MandelbrotCore
import RenderModel
import Testing

@testable import mandel

/// Parses `arguments` as the command would, validation included, and returns the first
/// line of the message a user would see and the exit code; nil for both if accepted.
func refusal<Command: ParsableCommand>(
    _ command: Command.Type, _ arguments: [String]
) -> (message: String, status: Int32)? {
    do {
        _ = try command.parse(arguments)
        return nil
    } catch {
        let message = command.message(for: error).split(separator: "\n").first.map(String.init) ?? ""
        return (message, command.exitCode(for: error).rawValue)
    }
}

@Suite("Parsing, in process")
struct ParsingTests {
    /// Each: the arguments after `render`, and words the message must contain. Every one exits with 64.
    static let renderRefusals: [([String], String)] = [
        (["--size", "0x10"], "sides must be from 1 to 2147483647"),
        (["--size", "-5"], "'--size <size>'"),
        (["--size", "10x10x10"], "give WxH or N"),
        (["--size", "abc"], "give WxH or N"),
        (["--size", "10x"], "give WxH or N"),
        (["--size", "0x3c"], "give WxH or N"),
        (["--size", "2147483648x10"], "sides must be from 1 to 2147483647"),
        (["--size", "20000x20000", "--ownership-map", "m.png"], "268435456"),
        (["--center", "nan,0"], "give two decimal numbers"),
        (["--center", "0,inf"], "give two decimal numbers"),
        (["--center", "1"], "give two decimal numbers re,im"),
        (["--center", "1,2,3"], "give two decimal numbers re,im"),
        (["--center", "1.79e308,0", "--zoom", "1e-306"], "not finite"),
        (["--zoom", "0"], "--zoom must be a finite number greater than 0"),
        (["--zoom", "-2"], "--zoom must be a finite number greater than 0"),
        (["--zoom", "inf"], "give a decimal number"),
        (["--zoom", "0x1p3"], "give a decimal number"),
        (["--zoom", "1e-320"], "a pixel step of inf"),
        (["--zoom", "1_000"], "give a decimal number"),
        (["--zoom", "1e400", "--precision", "double"], "--zoom 1e400 is past the largest Double, 1.8e308"),
        (["--zoom", "1e400", "--julia", "0,0"], "past the largest Double, 1.8e308, which --julia keeps"),
        (["--center", "1e400,0"], "--center 1e400,0 is past the largest Double: each part must be within ±1.8e308"),
        (
            ["--center", "1e300000000,0", "--zoom", "1e20", "--precision", "perturbation"],
            "--center 1e300000000,0 is past the largest Double"
        ),
        (
            ["--zoom", "1e-400", "--precision", "perturbation"],
            "--zoom 1e-400 gives a 64x48 picture a pixel step of inf"
        ),
        (["--zoom", "2e1000000"], "--zoom 2e1000000 is deeper than mandel renders: at most 1e1000000"),
        (
            ["--center", "-1.7,0", "--zoom", "1e500", "--frame", "1/3", "--zoom-to", "1e-400"],
            "--zoom-to 1e-400 gives a 64x48 picture a pixel step of inf"
        ),
        (["--iterations", "0"], "--iterations must be from 1 to 4294967294"),
        (["--iterations", "4294967295"], "--iterations must be from 1 to 4294967294"),
        (["--iterations", "1e3"], "give a whole number"),
        (["--color", "purple"], "'--color <color>'"),
        (["--strategy", "fibers"], "'--strategy <name>'"),
        (["--workers", "0"], "--workers must be from 1 to 1024"),
        (["--workers", "5000"], "--workers must be from 1 to 1024"),
        (["--workers", "-3"], "--workers must be from 1"),
        (["--workers", "abc"], "give a whole number"),
        (["--workers", "2,4"], "--workers takes one value for mandel render"),
        (["--grace", "-1"], "--grace must be a number of seconds from 0 to 3600"),
        (["--grace", "nan"], "give a decimal number"),
        (["--split", "diagonal"], "'--split <split>'"),
        (["--tile", "0x8"], "sides must be from 1"),
        (["--tile", "axb"], "give WxH or N"),
        (["--tile", "8,16"], "--tile takes one value for mandel render"),
        (["--size", "32", "--tile", "64"], "--tile 64x64 is larger than the 32x32 picture"),
        (["--preset", "benchmarks-game", "--center", "0,0"], "fixes the view; remove --center"),
        (["--preset", "benchmarks-game", "--iterations", "100"], "remove --iterations"),
        (["--preset", "benchmarks-game", "--size", "20x10"], "N×N"),
        (["--preset", "mandelbulb"], "'--preset <preset>'"),
        (["--format", "pbm"], "--format pbm is black and white"),
        (["--format", "gif"], "'--format <format>'"),
        (["--kernel", "gpu"], "'--kernel <kernel>'"),
        (["--palette", "sunset"], "unknown palette 'sunset'"),
        (["--palette", "#12345g,#000000"], "'#12345g' is not a colour"),
        (["--palette", "fire", "--color", "bw"], "--color smooth and histogram only"),
        (["--color", "histogram", "--palette-cycle", "32"], "which histogram colouring does not use"),
        (["--palette-cycle", "0"], "--palette-cycle must be a number of iterations from 0.001"),
        (["--palette-cycle", "1e-307"], "--palette-cycle must be a number of iterations from 0.001"),
        (["--palette-offset", "2"], "--palette-offset must be a fraction from 0 to 1"),
        (["--preset", "benchmarks-game", "--palette", "fire"], "remove --palette"),
        (["--julia", "0.3"], "give two decimal numbers re,im"),
        (["--julia", "nan,0"], "give two decimal numbers re,im"),
        (["--preset", "benchmarks-game", "--julia", "0,0"], "remove --julia"),
        (["--supersample", "9"], "--supersample must be from 1 to 8"),
        (["--supersample", "2", "--color", "bw", "--format", "pbm"], "--format pbm has one bit per pixel"),
        (["--preset", "benchmarks-game", "--supersample", "2"], "remove --supersample"),
        (
            ["--color", "bw", "--format", "pbm", "--compression", "fast"],
            "--compression sets how hard the PNG encoder works"
        ),
        (["--compression", "tiny"], "'--compression <compression>'"),
        (["--band-height", "0"], "--band-height must be a number of rows, 1 or more"),
        (["--band-height", "8", "--ownership-map", "m.png"], "need the whole picture in memory"),
        (
            ["--size", "20000", "--cost-map", "c.png"],
            "need the whole picture in memory (without them, render streams it in bands)"
        ),
        (["-o", "same.png", "--trace", "same.png"], "-o and --trace name the same file"),
        (["-o", "same.png", "--trace", "./same.png"], "name the same file"),
        (["--ownership-map", "m.png", "--cost-map", "m.png"], "--ownership-map and --cost-map name the same file"),
        (["-o", "-", "--json"], "-o - writes to standard output, where --json would write the report too"),
        (["--trace", "-", "--json"], "--trace - writes to standard output"),
        (["-o", "-", "--trace", "-"], "-o and --trace name the same file"),
        (
            ["--merge", "mutex"],
            "--merge says how histogram colouring's workers share the histogram; add --color histogram"
        ),
        (["--merge-batch", "16", "--color", "gray"], "--merge-batch says how histogram colouring's workers share"),
        (["--color", "histogram", "--merge", "queue,mutex"], "--merge takes one value for mandel render"),
        (["--color", "histogram", "--merge-batch", "1,2"], "--merge-batch takes one value for mandel render"),
        (["--color", "histogram", "--merge", "spinlock"], "unknown merge 'spinlock'; choose from queue, mutex"),
        (["--color", "histogram", "--merge-batch", "0"], "--merge-batch must be from 1 to 1048576 (got 0)"),
        (["--color", "histogram", "--merge-batch", "1048577"], "--merge-batch must be from 1 to 1048576"),
        (["--color", "histogram", "--merge-batch", "1e3"], "give a whole number"),
        (["--order", "spiral"], "unknown order 'spiral'; choose from rows, centre"),
        (["--order", "rows,centre"], "--order takes one value for mandel render; to measure both, use mandel compare"),
        (
            ["--order", "centre", "--split", "rows"],
            "--order centre reorders the tiles split's queue; use --split tiles"
        ),
        (
            ["--order", "centre", "--size", "1000x100", "--tile", "1"],
            "--order centre queues every tile at once with its priority: at most 65536 tiles (this picture has 100000"
        ),
        (["--order", "centre", "--band-height", "8"], "--order centre needs the whole picture in memory"),
        (["--preview", "1"], "--preview must be from 2 to 65536 (got 1)"),
        (["--preview", "4", "--color", "histogram"], "histogram colouring needs the whole picture's histogram"),
        (["--preview-output", "p.png"], "--preview-output writes the preview; add --preview"),
        (["--preview", "4", "--band-height", "8"], "--preview comes before a picture rendered whole"),
        (["--preview", "4", "--preview-output", "x.png", "-o", "x.png"], "-o and --preview-output name the same file"),
        (
            ["--order", "centre", "--size", "20000", "--tile", "512"],
            "--order centre needs the whole picture in memory"
        ),
    ]

    @Test(
        "render refuses each bad value or combination with one line naming the option; exit 64",
        arguments: renderRefusals)
    func renderRefusal(arguments: [String], mention: String) {
        let outcome = refusal(RenderCommand.self, ["--size", "64x48"] + arguments)
        #expect(outcome?.status == 64, "\(arguments) was accepted")
        #expect(outcome?.message.contains(mention) == true, "\(arguments): \(outcome?.message ?? "accepted")")
    }

    static let measurementRefusals: [([String], String)] = [
        (["compare", "--strategies", "gcd,fibers"], "unknown strategy 'fibers'"),
        (["compare", "--runs", "0"], "--runs must be from 1 to 1000"),
        (["compare", "--warmup", "-1"], "--warmup must be from 0 to 100"),
        (["compare", "--json", "r", "--csv", "./r"], "--json and --csv name the same file"),
        (["compare", "--size", "20000"], "mandel compare keeps whole pictures in memory"),
        (["compare", "--workers", "1,2"], "--workers takes one value for mandel compare"),
        (["sweep", "--workers", "1,2", "--tile", "8,16"], "sweep one axis at a time"),
        (["sweep"], "give a list to --workers"),
        (["sweep", "--tile", "8,4096"], "--tile 4096x4096 is larger than the 64x48 picture"),
        (["sweep", "--workers", "1,x"], "give a whole number"),
        (["sweep", "--workers", "1,1,1"], "--workers lists 1 more than once"),
        (["sweep", "--tile", "8,16x8"], "--tile lists square tiles"),
        (["compare", "--merges", "queue,mutex"], "add --color histogram"),
        (
            ["compare", "--color", "histogram", "--merge-batch", "1,16"],
            "--merge-batch takes one value for mandel compare"
        ),
        (["compare", "--color", "histogram", "--merge", "mutex,mutex"], "--merge lists mutex more than once"),
        (["sweep", "--merge-batch", "1,16"], "add --color histogram"),
        (["sweep", "--color", "histogram", "--merge-batch", "1,16", "--workers", "1,2"], "sweep one axis at a time"),
        (["sweep", "--color", "histogram", "--merge-batch", "16,16"], "--merge-batch lists 16 more than once"),
        (["sweep", "--color", "histogram", "--merges", "queue,atomic"], "give a list to --workers"),
        (["compare", "--order", "centre,centre"], "--order lists centre more than once"),
        (["sweep", "--order", "rows,centre", "--workers", "1,2"], "--order takes one value for mandel sweep"),
        (["sweep", "--order", "centre", "--size", "1000x100", "--tile", "64,1"], "(this picture has 100000 of 1x1)"),
    ]

    @Test("compare and sweep refuse bad measurement options the same way", arguments: measurementRefusals)
    func measurementRefusal(arguments: [String], mention: String) {
        let type: any ParsableCommand.Type = arguments[0] == "compare" ? CompareCommand.self : SweepCommand.self
        func check<Command: ParsableCommand>(_ command: Command.Type) {
            let outcome = refusal(command, ["--size", "64x48"] + Array(arguments.dropFirst()))
            #expect(outcome?.status == 64, "\(arguments) was accepted")
            #expect(outcome?.message.contains(mention) == true, "\(arguments): \(outcome?.message ?? "accepted")")
        }
        if type == CompareCommand.self { check(CompareCommand.self) } else { check(SweepCommand.self) }
    }

    @Test("one rule for every value: blanks around values and list items are ignored, decimal numbers only")
    func oneRule() throws {
        let render = try RenderCommand.parse([
            "--zoom", " 2", "--center", " -0.5 , 0 ", "--size", " 64 x 48 ", "--iterations", "100 ", "--workers", " 2",
            "--palette", "#ff0000, #00ff00", "--palette-cycle", "1.5e1", "--color", " smooth", "--strategy", " tasks",
        ])
        #expect(render.view.zoom == DecimalValue(value: 2, text: "2"))
        #expect(
            render.view.center == ComplexValue(real: -0.5, imaginary: 0, realText: "-0.5", imaginaryText: "0"))
        #expect(render.view.size == PixelSize(width: 64, height: 48))
        #expect(
            render.view.iterations == 100 && render.work.workers == [2]
                && render.view.paletteCycle == 15)
        #expect(render.strategy.strategy.name == "tasks")
        let sweep = try SweepCommand.parse(["--workers", "1, 2 ,4", "--size", "64x48"])
        #expect(sweep.work.workers == [1, 2, 4])
        for hex in [
            ["--zoom", "0x10"], ["--workers", "0x2"], ["--size", "0x10x10"], ["--center", "0x1,0"],
            ["--grace", "0x1p1"],
        ] {
            #expect(refusal(RenderCommand.self, hex)?.status == 64, "\(hex) was accepted")
        }
    }

    @Test("every output of a run states the same worker count: the workers the plan keeps busy")
    func factsAgree() throws {
        let command = try RenderCommand.parse(["--size", "60x40", "--workers", "1024"])
        let job = RenderJob(view: command.view, work: command.work)
        let strategy = command.strategy.strategy
        let facts = RenderFacts(
            job: job, strategy: strategy, plan: job.plan(), bandRows: nil, format: .png, output: "x.png")
        #expect(facts.workers == 1 && facts.workersRequested == 1024)
        #expect(facts.title(wallSeconds: 0.5).contains("1 worker,"))
    }
}
