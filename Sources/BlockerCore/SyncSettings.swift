/// `[sync]`: one balance on every machine. `folder` is a directory a sync
/// engine (Syncthing) keeps in step between the user's machines; each
/// blockerd writes its own log there and reads the others'.
public struct SyncSettings: Sendable, Equatable {
    /// As written: absolute, or `~/…` (the daemon puts $HOME in front).
    public var folder: String

    public init(folder: String) {
        self.folder = folder
    }

    /// `folder` with `~/` made `home`.
    public func folderPath(home: String) -> String {
        folder.hasPrefix("~/") ? home + folder.dropFirst() : folder
    }
}

extension SyncSettings {
    /// `[sync]`
    init(_ sync: ConfigSection) throws(ConfigError) {
        try sync.rejectUnknownKeys(known: ConfigKeys.sync.keys)
        let example = "folder = \"~/Sync/blocker\""
        guard let folder = try sync.string("folder", expected: "a folder", example: example) else {
            throw sync.error("folder", "[sync] needs folder: the folder your sync engine shares between your machines "
                + "(example: \(example))")
        }
        guard folder.hasPrefix("/") || folder.hasPrefix("~/") else {
            throw sync.error("folder", "\"\(folder)\" is not an absolute path: give one, or one under your home "
                + "starting with ~/ (example: \(example))")
        }
        guard !folder.split(separator: "/").contains("..") else {
            throw sync.error("folder", "\"\(folder)\" has a .. in it: name the folder itself (example: \(example))")
        }
        self.init(folder: folder)
    }
}
