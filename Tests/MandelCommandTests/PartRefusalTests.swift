import Foundation
import ProcessTestSupport
import Testing

/// Every way a join or a part can be wrong: one line naming the file and the reason, the documented
/// exit code, and nothing written.
@Suite("Parts and a join: refusals")
struct PartRefusalTests {
    static let picture = ["--size", "120x100", "--color", "gray"]

    /// A folder with parts 0, 1 and 2 of 3 of the picture (`p0`, `p1`, `p2`).
    static func partsFolder() throws -> String {
        let folder = temporaryFolder()
        for index in 0..<3 {
            let result = try MandelProcess.run(
                ["render"] + picture + ["--part", "\(index)/3", "-o", "p\(index)"], in: folder)
            #expect(result.status == 0, "\(result.standardError)")
        }
        return folder
    }

    /// Runs `mandel join files -o out.png` in `folder` and checks that it refused and wrote nothing.
    static func expectJoinRefused(
        _ files: [String], in folder: String, status: Int32, mentioning mention: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = contents(of: folder)
        let result = try MandelProcess.run(["join"] + files + ["-o", "out.png"], in: folder)
        expectRefusal(result, status: status, mentioning: mention, sourceLocation: sourceLocation)
        #expect(contents(of: folder) == before, "the join left \(contents(of: folder))", sourceLocation: sourceLocation)
    }

    static func bytes(_ folder: String, _ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
    }

    static func write(_ bytes: [UInt8], _ folder: String, _ name: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/" + name))
    }

    @Test("a missing part, a duplicate (also a copy under another name), and no files at all")
    func missingAndDuplicate() throws {
        let folder = try Self.partsFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.expectJoinRefused(["p2", "p0"], in: folder, status: 65, mentioning: "part 1 of 3 is missing")
        try Self.expectJoinRefused(["p0"], in: folder, status: 65, mentioning: "parts 1, 2 of 3 are missing")
        try Self.expectJoinRefused(
            ["p0", "p1", "p2", "p1"], in: folder, status: 65, mentioning: "'p1' and 'p1' are both part 1 of 3")
        try FileManager.default.copyItem(atPath: folder + "/p2", toPath: folder + "/copy-of-p2")
        try Self.expectJoinRefused(
            ["p0", "copy-of-p2", "p1", "p2"], in: folder, status: 65,
            mentioning: "'p2' and 'copy-of-p2' are both part 2 of 3")
        try Self.expectJoinRefused([], in: folder, status: 64, mentioning: "give the part files to join")
        try Self.expectJoinRefused(
            ["p0", "p1", "p2", "absent"], in: folder, status: 66, mentioning: "cannot read 'absent'")
    }

    @Test("many missing parts: the first ten named, and how many more beyond them")
    func manyMissing() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for index in [0, 13] {
            let result = try MandelProcess.run(
                ["render", "--size", "120x300", "--color", "gray", "--part", "\(index)/16", "-o", "p\(index)"],
                in: folder)
            #expect(result.status == 0, "\(result.standardError)")
        }
        // 14 of 16 missing: 1 to 12, 14 and 15; the line names ten and counts the other four.
        try Self.expectJoinRefused(
            ["p13", "p0"], in: folder, status: 65,
            mentioning: "parts 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 4 more of 16 are missing (parts count from 0 to 15)")
    }

    @Test("parts of another picture, of another compression, or of another number of parts")
    func otherRenders() throws {
        let folder = try Self.partsFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (name, extra) in [
            ("zoom", ["--zoom", "2", "--part", "1/3"]), ("fast", ["--compression", "fast", "--part", "1/3"]),
            ("four", ["--part", "1/4"]), ("wider", ["--size", "121x100", "--part", "1/3"]),
        ] {
            let arguments = ["render"] + Self.picture + extra + ["-o", name]
            #expect(try MandelProcess.run(arguments, in: folder).status == 0)
        }
        try Self.expectJoinRefused(
            ["p0", "zoom", "p2"], in: folder, status: 65,
            mentioning:
                "'zoom' does not belong with 'p0': they are parts of different pictures (mandel.zoom 2.0 against 1.0)")
        try Self.expectJoinRefused(
            ["p0", "fast", "p2"], in: folder, status: 65, mentioning: "compressed differently (--compression)")
        try Self.expectJoinRefused(
            ["p0", "four", "p2"], in: folder, status: 65, mentioning: "one is a part of 4, the other of 3")
        try Self.expectJoinRefused(
            ["p0", "wider", "p2"], in: folder, status: 65, mentioning: "another size or pixel format")
    }

    @Test("a truncated part, a flipped byte in a header, a body or a footer, a swapped footer, and not a part at all")
    func damaged() throws {
        let folder = try Self.partsFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let part = try Self.bytes(folder, "p1")
        let cases: [(String, [UInt8], String)] = [
            ("short", Array(part.prefix(part.count - 40)), "'short' is damaged: it does not end with a part's footer"),
            ("tiny", Array(part.prefix(12)), "'tiny' is damaged: it ends inside its header"),
            ("head", flipped(part, at: 40), "'head' is damaged: its header fails its CRC-32"),
            ("body", flipped(part, at: part.count - 60), "'body' is damaged: the CRC-32 of its chunk"),
            ("foot", flipped(part, at: part.count - 10), "'foot' is damaged: its footer fails its CRC-32"),
            ("grown", part + [0], "'grown' is damaged: it does not end with a part's footer"),
            (
                "swapped", Array(part.prefix(part.count - 32)) + (try Self.bytes(folder, "p2")).suffix(32),
                "its footer fails its CRC-32 (corrupted, or another part's footer)"
            ),
            ("png", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0], "'png' is not a part file"),
            ("empty", [], "'empty' is not a part file"),
        ]
        for (name, bytes, message) in cases {
            try Self.write(bytes, folder, name)
            try Self.expectJoinRefused(["p0", name, "p2"], in: folder, status: 65, mentioning: message)
            try FileManager.default.removeItem(atPath: folder + "/" + name)
        }
        // A body whose damage is found while copying: to a file, the output is discarded; to standard
        // output, the parts are checked before anything is written.
        try Self.write(flipped(part, at: part.count - 60), folder, "late")
        let result = try MandelProcess.run(["join", "p0", "late", "p2", "-o", "-"], in: folder)
        expectRefusal(result, status: 65, mentioning: "the CRC-32 of its chunk")
        #expect(result.standardOutput.isEmpty, "\(result.standardOutput.utf8.count) bytes went to standard output")
    }

    @Test("the output may not be one of the parts")
    func outputIsAPart() throws {
        let folder = try Self.partsFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(["join", "p0", "p1", "p2", "-o", "./p1"], in: folder)
        expectRefusal(result, status: 64, mentioning: "is one of the parts")
    }

    @Test(
        "render refuses a part it cannot make, up front, with the reason",
        arguments: [
            (["--part", "3/3"], "K must be less than N"),
            (["--part", "0/0"], "K must be less than N"),
            (["--part", "1/2", "--parts", "3"], "--part 1/2 and --parts 3 disagree"),
            (["--part", "x/2"], "--part"),
            // One rule for values: a value that starts with '-', a sign, a number past Int, each named with the form.
            (["--part", "-1/3"], "'-1/3' is invalid for '--part <K/N|auto>': K counts from 0 to N − 1"),
            (["--part", "1/-3"], "'1/-3' is invalid for '--part <K/N|auto>': K counts from 0 to N − 1"),
            (["--part", "+1/3"], "'+1/3' is invalid for '--part <K/N|auto>': give K/N in digits alone"),
            (["--part", "1/99999999999999999999"], "is invalid for '--part <K/N|auto>': out of range: K and N run"),
            (["--part", "1/2/3"], "give K/N (piece K, from 0, of N)"),
            (["--frame", "-1/4", "--zoom-to", "9"], "'-1/4' is invalid for '--frame <K/N|auto>': K counts from 0"),
            (["--frame", "１/4", "--zoom-to", "9"], "'１/4' is invalid for '--frame <K/N|auto>': give K/N in digits"),
            (["--parts", "3"], "add --part auto"),
            (["--part", "auto", "--parts", "0"], "--parts must be 1 or more (got 0)"),
            (["--frames", "0", "--zoom-to", "9"], "--frames must be 1 or more (got 0)"),
            (["--frame", "auto", "--frames", "0", "--zoom-to", "9"], "--frames must be 1 or more (got 0)"),
            (["--part", "0/18"], "a 100x100 picture is 17 compressed slices of 6 rows"),
            (["--part", "0/2", "--color", "histogram"], "--color histogram spreads the palette"),
            (["--part", "0/2", "--color", "bw", "--format", "pbm"], "remove --format pbm"),
            (["--part", "0/2", "--preview", "4"], "--preview shows a whole picture"),
            (["--part", "auto", "--parts", "2"], "none is set (SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX"),
            (["--frame", "1/4"], "add --zoom-to"),
            (["--zoom-to", "9"], "add --frames N to render its N frames, or --frame K/N to render one"),
            (["--frame", "1/4", "--zoom-to", "0"], "--zoom-to must be a finite number greater than 0"),
            (["--part", "auto", "--frame", "auto", "--zoom-to", "4"], "would both take the engine's one index"),
        ])
    func renderRefusals(extra: [String], message: String) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try MandelProcess.run(
            ["render", "--size", "100x100", "--color", "gray"] + extra + ["-o", "x"], in: folder)
        expectRefusal(result, status: 64, mentioning: message, leaving: folder)
    }

    @Test(
        "--part auto: each engine's variables (Slurm's stepped arrays too), and refusals when they are out of range, disagree or are a list",
        arguments: [
            ("SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_COUNT=3", [], nil),
            ("SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_COUNT=3", [], nil),
            ("JOB_COMPLETION_INDEX=2", ["--parts", "3"], nil),
            ("AWS_BATCH_JOB_ARRAY_INDEX=2 AWS_BATCH_JOB_ARRAY_SIZE=3", [], nil),
            ("PARALLEL_SEQ=3", ["--parts", "3"], nil),
            ("JOB_COMPLETION_INDEX=2", [], "Kubernetes gives only the index (JOB_COMPLETION_INDEX); add --parts N"),
            ("JOB_COMPLETION_INDEX=3", ["--parts", "3"], "JOB_COMPLETION_INDEX is 3, outside 0…2"),
            ("PARALLEL_SEQ=0", ["--parts", "3"], "PARALLEL_SEQ is 0, outside 1…3 for 3 (GNU parallel counts from 1)"),
            // Slurm's stepped arrays: --array=0-12:4 runs 0, 4, 8, 12, the third task is part 2; --array=3-11:4 too.
            (
                "SLURM_ARRAY_TASK_ID=8 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=12 SLURM_ARRAY_TASK_STEP=4 "
                    + "SLURM_ARRAY_TASK_COUNT=4",
                ["--parts", "3"], "SLURM_ARRAY_TASK_COUNT is 4 and --parts is 3"
            ),
            (
                "SLURM_ARRAY_TASK_ID=11 SLURM_ARRAY_TASK_MIN=3 SLURM_ARRAY_TASK_MAX=11 SLURM_ARRAY_TASK_STEP=4 "
                    + "SLURM_ARRAY_TASK_COUNT=3",
                [], nil
            ),
            (
                "SLURM_ARRAY_TASK_ID=4 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=4 SLURM_ARRAY_TASK_STEP=2 "
                    + "SLURM_ARRAY_TASK_COUNT=3",
                [], nil
            ),
            (
                "SLURM_ARRAY_TASK_ID=9 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=9 SLURM_ARRAY_TASK_STEP=4 "
                    + "SLURM_ARRAY_TASK_COUNT=3",
                [], nil
            ),
            (
                "SLURM_ARRAY_TASK_ID=6 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=8 SLURM_ARRAY_TASK_STEP=4 "
                    + "SLURM_ARRAY_TASK_COUNT=3",
                [], "SLURM_ARRAY_TASK_ID is 6, outside 0, 4, … (step 4) for 3"
            ),
            // A list (--array=1,3,7): Slurm sets the step 1 and the count 3; no task can know its place.
            (
                "SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=7 SLURM_ARRAY_TASK_STEP=1 "
                    + "SLURM_ARRAY_TASK_COUNT=3",
                [], "Slurm's array of 3 tasks from 1 to 7 (step 1) is a list, not a range"
            ),
            (
                "SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_TASK_COUNT=0", [],
                "SLURM_ARRAY_TASK_COUNT is 0; an array has 1 task or more"
            ),
            (
                "SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_TASK_STEP=0 SLURM_ARRAY_TASK_COUNT=3", [],
                "SLURM_ARRAY_TASK_STEP is 0"
            ),
            (
                "AWS_BATCH_JOB_ARRAY_INDEX=0 AWS_BATCH_JOB_ARRAY_SIZE=0", [],
                "AWS_BATCH_JOB_ARRAY_SIZE is 0; an array has 1"
            ),
            (
                "SLURM_ARRAY_TASK_ID=99999999999999999999 SLURM_ARRAY_TASK_COUNT=3", [],
                "SLURM_ARRAY_TASK_ID is '99999999999999999999', not a whole number from 0 to 9223372036854775807"
            ),
            (
                "SLURM_ARRAY_TASK_ID=9223372036854775807 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=9223372036854775807 "
                    + "SLURM_ARRAY_TASK_STEP=9223372036854775807 SLURM_ARRAY_TASK_COUNT=3",
                [], "is a list, not a range"
            ),
            (
                "SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_COUNT=3", ["--parts", "4"],
                "SLURM_ARRAY_TASK_COUNT is 3 and --parts is 4"
            ),
            ("AWS_BATCH_JOB_ARRAY_INDEX=two AWS_BATCH_JOB_ARRAY_SIZE=3", [], "AWS_BATCH_JOB_ARRAY_INDEX is 'two'"),
        ] as [(String, [String], String?)])
    func auto(environment: String, extra: [String], refusal: String?) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let picture = ["render", "--size", "100x100", "--color", "gray"]
        let result = try MandelProcess.run(
            picture + ["--part", "auto"] + extra + ["-o", "auto"], in: folder,
            launch: MandelProcess.Launch(shellSetup: "export " + environment))
        guard let refusal else {
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.contains("part 2 of 3 of 100x100"), "\(result.standardOutput)")
            let fixed = try MandelProcess.run(picture + ["--part", "2/3", "-o", "fixed"], in: folder)
            #expect(fixed.status == 0)
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: folder + "/auto"))
                    == Data(contentsOf: URL(fileURLWithPath: folder + "/fixed")))
            return
        }
        expectRefusal(result, status: 64, mentioning: refusal, leaving: folder)
    }
}

/// `bytes` with one bit of byte `index` flipped.
func flipped(_ bytes: [UInt8], at index: Int) -> [UInt8] {
    var copy = bytes
    copy[index] ^= 0x10
    return copy
}
