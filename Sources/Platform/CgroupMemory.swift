/// The memory a process's control groups leave it: the least room (limit − usage) in its own
/// cgroup and every one above it, in the unified hierarchy (cgroup v2: `memory.max`,
/// `memory.current`) and in the memory controller's own (cgroup v1: `memory.limit_in_bytes`,
/// `memory.usage_in_bytes`).
///
/// A batch engine limits a task in a cgroup of its own, nested under the ones above it (Slurm's
/// `job_N/step_M/task_K`, a Kubernetes pod's container under its pod under its QoS class): any of
/// them can be the smallest, so each level is read, up to the hierarchy's root as this process
/// sees it (in a container, its own cgroup is often that root).
public enum CgroupMemory {
    /// The least room left in any of this process's cgroups, or nil when none limits memory.
    public static func room() -> Int? {
        guard let cgroups = ownCgroups else { return nil }
        return room(cgroups: cgroups, hierarchies: ownHierarchies)
    }

    /// The least room left in the cgroups `cgroups` (`/proc/self/cgroup`'s text) names, in the hierarchies
    /// `mounts` (`/proc/self/mountinfo`'s text) mounts.
    public static func room(cgroups: String?, mounts: String?) -> Int? {
        guard let cgroups, let mounts else { return nil }
        return room(cgroups: cgroups, hierarchies: Hierarchy.mounted(in: mounts))
    }

    /// This process's cgroups and the hierarchies mounted, read once: a render's memory check (each of the
    /// server's tiles makes one) then reads only the limits and usages, which change.
    private static let ownCgroups = SystemFile.text("/proc/self/cgroup")
    private static let ownHierarchies = SystemFile.text("/proc/self/mountinfo").map(Hierarchy.mounted) ?? []

    private static func room(cgroups: String, hierarchies: [Hierarchy]) -> Int? {
        var rooms: [Int] = []
        for line in cgroups.split(separator: "\n") {
            // "ID:CONTROLLERS:PATH": "0::/user.slice/…" for v2, "4:memory:/job_7/step_0" for v1.
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let isUnified = fields[0] == "0" && fields[1].isEmpty
            let isMemory = fields[1].split(separator: ",").contains("memory")
            guard isUnified || isMemory else { continue }
            for hierarchy in hierarchies where hierarchy.isUnified == isUnified {
                rooms += hierarchy.rooms(along: String(fields[2]))
            }
        }
        return rooms.min()
    }

    /// A mounted hierarchy that can limit memory: cgroup2, or cgroup v1 with the memory controller.
    struct Hierarchy {
        let isUnified: Bool
        /// The cgroup at the mount point, as a path within the hierarchy ("/" outside a container).
        let root: String
        let mountPoint: String

        /// The hierarchies `/proc/self/mountinfo`'s text mounts: "ID PARENT M:N ROOT POINT OPTIONS … - TYPE SOURCE
        /// SUPER".
        static func mounted(in mountinfo: String) -> [Hierarchy] {
            mountinfo.split(separator: "\n").compactMap { line in
                let halves = line.split(separator: " - ", maxSplits: 1)
                guard halves.count == 2 else { return nil }
                let own = halves[0].split(separator: " ")
                let rest = halves[1].split(separator: " ")
                guard own.count >= 5, rest.count >= 3 else { return nil }
                let type = rest[0]
                let isUnified = type == "cgroup2"
                guard isUnified || (type == "cgroup" && rest[2].split(separator: ",").contains("memory")) else {
                    return nil
                }
                return Hierarchy(
                    isUnified: isUnified, root: unescaped(own[3]), mountPoint: unescaped(own[4]))
            }
        }

        /// The room at `path` (the process's cgroup in this hierarchy) and at each cgroup above it that is
        /// under the mount point.
        func rooms(along path: String) -> [Int] {
            // Within the mount: the path less the mount's root; a path outside it (another namespace's
            // view) means the mount point is this process's cgroup.
            var relative = path
            if root != "/" {
                relative = path.hasPrefix(root) ? String(path.dropFirst(root.count)) : ""
            }
            var components = relative.split(separator: "/").map(String.init)
            var rooms: [Int] = []
            while true {
                let folder = ([mountPoint] + components).joined(separator: "/")
                if let room = room(in: folder) { rooms.append(room) }
                guard !components.isEmpty else { break }
                components.removeLast()
            }
            return rooms
        }

        /// Limit − usage in one cgroup's folder, or nil where it sets no limit (or cannot be read).
        private func room(in folder: String) -> Int? {
            let (limitFile, usageFile) =
                isUnified ? ("memory.max", "memory.current") : ("memory.limit_in_bytes", "memory.usage_in_bytes")
            // v2 writes "max" for no limit; v1 writes a number near 2^63 rounded to pages.
            guard let limit = SystemFile.text(folder + "/" + limitFile).flatMap({ Int($0.trimmed) }),
                limit < Int.max / 2,
                let usage = SystemFile.text(folder + "/" + usageFile).flatMap({ Int($0.trimmed) })
            else { return nil }
            return limit - usage
        }

        /// A mountinfo field with its octal escapes (`\040` for a space) read.
        private static func unescaped(_ field: Substring) -> String {
            var bytes: [UInt8] = []
            var characters = Array(field.utf8)[...]
            while let byte = characters.popFirst() {
                if byte == UInt8(ascii: "\\"), characters.count >= 3,
                    let value = UInt8(String(decoding: characters.prefix(3), as: UTF8.self), radix: 8)
                {
                    bytes.append(value)
                    characters = characters.dropFirst(3)
                } else {
                    bytes.append(byte)
                }
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
