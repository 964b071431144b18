import Glibc

/// Paths given on a command line, made absolute once: a relative
/// `--state-dir x/y` means `$PWD/x/y`, not `/x/y`.
public enum FilePaths {
    /// The process's working directory ("/" if it cannot be read, e.g. removed).
    public static var workingDirectory: String {
        guard let raw = getcwd(nil, 0) else { return "/" }
        defer { free(raw) }
        return String(cString: raw)
    }

    /// Whether `path` names a regular file (following symlinks).
    public static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// Whether `path` names a directory (following symlinks).
    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// `path` if it is absolute, else `base/path`. Pure.
    public static func absolute(_ path: String, relativeTo base: String) -> String {
        if path.hasPrefix("/") { return path }
        return (base.hasSuffix("/") ? base : base + "/") + path
    }
}
