import Foundation
import Testing

/// Real programs the trust tests check against: the openssl binary and Apple's App Store Server Library
/// for Python, in a virtual environment under `.build` (`make test` prepares it; the first test that
/// needs it makes it when missing, from `Tests/AppleLibrary/requirements.txt`).
enum ExternalTools {
    struct Failed: Error, CustomStringConvertible {
        var description: String
    }

    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The repository's root, from this file's path.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A folder of its own for one test, removed by the caller.
    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storedesk-trust-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Runs `executable` with `arguments`, `stdin` as its input, and waits at most `timeout` seconds.
    /// Output goes through files, so a chatty program never blocks on a full pipe.
    static func run(_ executable: String, _ arguments: [String], stdin: Data = Data(), timeout: Double = 120) throws -> Output {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in")
        let output = folder.appendingPathComponent("out")
        let errors = folder.appendingPathComponent("err")
        try stdin.write(to: input)
        try Data().write(to: output)
        try Data().write(to: errors)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = try FileHandle(forReadingFrom: input)
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            throw Failed(description: "\(executable) did not finish within \(Int(timeout)) s")
        }
        return Output(
            status: process.terminationStatus, stdout: try String(contentsOf: output, encoding: .utf8),
            stderr: try String(contentsOf: errors, encoding: .utf8))
    }

    /// The first executable called `name` on PATH.
    static func onPath(_ name: String) -> String? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map { "\($0)/\(name)" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static var openssl: String {
        get throws {
            guard let path = onPath("openssl") else { throw Failed(description: "openssl is not installed") }
            return path
        }
    }

    // MARK: - Apple's library

    /// `.build/apple-venv`, or `STOREDESK_APPLE_VENV`.
    static var venv: URL {
        if let path = ProcessInfo.processInfo.environment["STOREDESK_APPLE_VENV"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        return repository.appendingPathComponent(".build/apple-venv")
    }

    static let script = repository.appendingPathComponent("Tests/AppleLibrary/apple_library.py").path

    /// The venv's python once Apple's library imports in it, made once a test run.
    static var python: String {
        get throws { try preparedPython.get() }
    }

    private static let preparedPython = Result<String, Error> {
        let python = venv.appendingPathComponent("bin/python").path
        let probe = ["-c", "import appstoreserverlibrary"]
        if FileManager.default.isExecutableFile(atPath: python), try run(python, probe).status == 0 { return python }
        guard let system = onPath("python3") else { throw Failed(description: "python3 is not installed") }
        let made = try run(system, ["-m", "venv", venv.path])
        guard made.status == 0 else { throw Failed(description: "python3 -m venv \(venv.path): \(made.stderr)") }
        let requirements = repository.appendingPathComponent("Tests/AppleLibrary/requirements.txt").path
        let installed = try run(venv.appendingPathComponent("bin/pip").path, ["install", "-q", "-r", requirements], timeout: 600)
        guard installed.status == 0, try run(python, probe).status == 0 else {
            throw Failed(description: "pip install -r \(requirements): \(installed.stderr)")
        }
        return python
    }

    /// Runs `apple_library.py` with the venv's python; its stdout, or the error it wrote.
    static func appleLibrary(_ arguments: [String], stdin: Data = Data()) throws -> String {
        let output = try run(try python, [script] + arguments, stdin: stdin)
        guard output.status == 0 else { throw Failed(description: "apple_library.py \(arguments.first ?? ""): \(output.stderr)") }
        return output.stdout
    }
}
