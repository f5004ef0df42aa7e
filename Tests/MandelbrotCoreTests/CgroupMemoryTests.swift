import Foundation
import Platform
import Testing

/// The room a process's cgroups leave it: every level of a nested cgroup, v2 and v1, and a
/// container's view (its cgroup is its hierarchy's root), from files laid out as the kernel lays them.
@Suite("Cgroup memory")
struct CgroupMemoryTests {
    /// A folder standing for a hierarchy's mount point, with `files` (path → text) written under it.
    static func hierarchy(_ files: [String: String]) throws -> String {
        let root = NSTemporaryDirectory() + "cgroup-\(UUID().uuidString)"
        for (path, text) in files {
            let file = root + "/" + path
            try FileManager.default.createDirectory(
                atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: file, atomically: false, encoding: .utf8)
        }
        return root
    }

    @Test("v2, nested as Slurm nests a task: the least room of any level, whichever level holds the limit")
    func nestedUnified() throws {
        // The job's limit is the tightest: 1 GiB with 900 MiB used leaves 100 MiB, though the task sets none.
        let root = try Self.hierarchy([
            "memory.max": "max\n", "memory.current": "5000000000\n",
            "job_7/memory.max": "1073741824\n", "job_7/memory.current": "943718400\n",
            "job_7/step_0/memory.max": "4294967296\n", "job_7/step_0/memory.current": "943718400\n",
            "job_7/step_0/task_0/memory.max": "max\n", "job_7/step_0/task_0/memory.current": "10000\n",
        ])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let mounts = "30 23 0:26 / \(root) rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n"
        #expect(CgroupMemory.room(cgroups: "0::/job_7/step_0/task_0\n", mounts: mounts) == 1_073_741_824 - 943_718_400)
        // The task's own limit, when it is the tightest.
        try "1000000\n".write(toFile: root + "/job_7/step_0/task_0/memory.max", atomically: false, encoding: .utf8)
        #expect(CgroupMemory.room(cgroups: "0::/job_7/step_0/task_0\n", mounts: mounts) == 1_000_000 - 10000)
        // No limit at any level: nil.
        #expect(CgroupMemory.room(cgroups: "0::/\n", mounts: mounts) == nil)
    }

    @Test("v1: memory.limit_in_bytes and memory.usage_in_bytes of the memory controller's hierarchy, every level")
    func nestedV1() throws {
        let unlimited = "9223372036854771712\n"
        let root = try Self.hierarchy([
            "memory.limit_in_bytes": unlimited, "memory.usage_in_bytes": "8000000000\n",
            "kubepods/memory.limit_in_bytes": "2147483648\n", "kubepods/memory.usage_in_bytes": "2000000000\n",
            "kubepods/pod1/memory.limit_in_bytes": unlimited, "kubepods/pod1/memory.usage_in_bytes": "1000\n",
        ])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let mounts =
            "35 31 0:32 / \(root) rw,relatime - cgroup cgroup rw,memory\n"
            + "36 31 0:33 / /nowhere rw,relatime - cgroup cgroup rw,devices\n"
        let cgroups = "8:pids:/\n4:memory:/kubepods/pod1\n3:cpuset:/\n0::/\n"
        #expect(CgroupMemory.room(cgroups: cgroups, mounts: mounts) == 2_147_483_648 - 2_000_000_000)
        // A hierarchy that is not the memory controller's is not read, even with the same files.
        let devices = "35 31 0:32 / \(root) rw,relatime - cgroup cgroup rw,devices\n"
        #expect(CgroupMemory.room(cgroups: cgroups, mounts: devices) == nil)
    }

    @Test("in a container: the mount's root is the container's cgroup, and a path outside it reads the mount point")
    func containerView() throws {
        let root = try Self.hierarchy(["memory.max": "536870912\n", "memory.current": "36870912\n"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        // The mount shows /docker/abc at the mount point; the process's path is that cgroup, or one the
        // namespace hides ("/").
        let mounts = "30 23 0:26 /docker/abc \(root) ro - cgroup2 cgroup2 rw\n"
        #expect(CgroupMemory.room(cgroups: "0::/docker/abc\n", mounts: mounts) == 500_000_000)
        #expect(CgroupMemory.room(cgroups: "0::/\n", mounts: mounts) == 500_000_000)
        // A cgroup nested below the container's, its limit at that level only: the path less the mount's
        // root leads to it (the whole path under the mount point would find no folder, and no limit).
        try FileManager.default.createDirectory(atPath: root + "/task", withIntermediateDirectories: true)
        try "300000000\n".write(toFile: root + "/task/memory.max", atomically: false, encoding: .utf8)
        try "100000000\n".write(toFile: root + "/task/memory.current", atomically: false, encoding: .utf8)
        #expect(CgroupMemory.room(cgroups: "0::/docker/abc/task\n", mounts: mounts) == 200_000_000)
        // A mount point with a space, as mountinfo escapes it.
        let spaced = try Self.hierarchy(["a b/memory.max": "1000\n", "a b/memory.current": "1\n"])
        defer { try? FileManager.default.removeItem(atPath: spaced) }
        let escaped = "30 23 0:26 / \(spaced)/a\\040b rw - cgroup2 cgroup2 rw\n"
        #expect(CgroupMemory.room(cgroups: "0::/\n", mounts: escaped) == 999)
    }
}
