import Foundation
import ProcessTestSupport
import Testing

/// The ways users run parts and frames on the engines they have: GNU parallel, Kubernetes, and zoom frames.
@Suite("Batch engines and zoom frames")
struct EngineTests {
    /// Runs `command` with `/bin/sh -c` in `folder`, with `mandel` on the PATH, and gives up after `seconds`.
    static func shell(
        _ command: String, in folder: String, seconds: Double = 60
    ) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let path = MandelProcess.executable.deletingLastPathComponent().path
        process.arguments = [
            "--default-signal", "PATH=\(path):\(ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")",
            "/bin/sh", "-c", command,
        ]
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            process.terminate()
            Issue.record("'\(command)' still ran after \(seconds) s")
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    @Test("the GNU parallel one-liner of docs/parts.md (--part auto from PARALLEL_SEQ) makes the one-machine PNG")
    func gnuParallel() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let picture = "--size 300x200 --center -0.7453,0.1127 --zoom 180 --palette fire"
        let line =
            "parallel -N0 mandel render \(picture) --part auto --parts 5 -o 'part-{#}.mpart' ::: 1 2 3 4 5"
            + " && mandel join part-*.mpart -o picture.png"
        let result = try Self.shell(line, in: folder)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("joined 5 parts"), "\(result.output)")
        let one = try Self.shell("mandel render \(picture) -o one.png", in: folder)
        #expect(one.status == 0)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: folder + "/picture.png"))
                == Data(contentsOf: URL(fileURLWithPath: folder + "/one.png")))
    }

    @Test("the Kubernetes manifests are valid YAML: an Indexed Job whose completions are --parts, and a join")
    func kubernetesManifest() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let check = """
            import sys, yaml
            parts = list(yaml.safe_load_all(open('deploy/kubernetes/mandel-parts.yaml')))
            job = [d for d in parts if d['kind'] == 'Job'][0]
            spec = job['spec']
            assert spec['completionMode'] == 'Indexed', spec
            command = ' '.join(spec['template']['spec']['containers'][0]['command'])
            assert '--part auto' in command and '--parts %d ' % spec['completions'] in command, command
            assert '$JOB_COMPLETION_INDEX' in command, command
            join = yaml.safe_load(open('deploy/kubernetes/mandel-join.yaml'))
            join_command = ' '.join(join['spec']['template']['spec']['containers'][0]['command'])
            assert join['kind'] == 'Job' and 'mandel join' in join_command, join_command
            volumes = [v for d in (job, join) for v in d['spec']['template']['spec']['volumes']]
            claims = {v['persistentVolumeClaim']['claimName'] for v in volumes}
            assert claims == {[d for d in parts if d['kind'] == 'PersistentVolumeClaim'][0]['metadata']['name']}, claims
            print('ok', spec['completions'])
            """
        let result = try Self.shell("python3 -c \"$0\"".replacingOccurrences(of: "$0", with: check), in: root)
        #expect(result.status == 0 && result.output.hasPrefix("ok 8"), "\(result.output)")
    }

    @Test("--frame K/N renders frame K of an exponential zoom: the same file as --zoom at that frame's zoom")
    func frames() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let view = ["render", "--size", "120x80", "--center", "-0.7453,0.1127", "--color", "gray"]
        // From zoom 2 to 2000 in 4 frames: each frame 10 times deeper.
        for (frame, zoom) in [(0, "2"), (1, "20.000000000000004"), (3, "2000")] {
            let framed = try MandelProcess.run(
                view + ["--zoom", "2", "--zoom-to", "2000", "--frame", "\(frame)/4", "--json", "-o", "f\(frame).png"],
                in: folder)
            #expect(framed.status == 0, "\(framed.standardError)")
            let object = try JSONSerialization.jsonObject(with: Data(framed.standardOutput.utf8)) as! [String: Any]
            #expect("\(object["zoom"]!)" == zoom, "frame \(frame)'s zoom is \(object["zoom"]!)")
            let direct = try MandelProcess.run(view + ["--zoom", zoom, "-o", "z\(frame).png"], in: folder)
            #expect(direct.status == 0)
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: folder + "/f\(frame).png"))
                    == Data(contentsOf: URL(fileURLWithPath: folder + "/z\(frame).png")))
        }
        let auto = try MandelProcess.run(
            view + ["--zoom", "2", "--zoom-to", "2000", "--frame", "auto", "--frames", "4", "-o", "auto.png"],
            in: folder,
            launch: MandelProcess.Launch(shellSetup: "export PARALLEL_SEQ=4"))
        #expect(auto.status == 0, "\(auto.standardError)")
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: folder + "/auto.png"))
                == Data(contentsOf: URL(fileURLWithPath: folder + "/f3.png")))
    }
}
