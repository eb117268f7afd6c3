import Foundation

/// Unfinished files (an export's `.NAME.export-PID-N`, a store's `NAME.building-PID` and what SQLite keeps
/// beside it) that SIGINT, SIGTERM or SIGHUP must not leave behind: while any is registered, a handler
/// unlinks every one, then lets the signal do what it would have done (end the process, or reach the
/// console's own handler). Only SIGKILL cannot be caught.
///
/// The handler calls only `unlink`, `sigaction` and `raise`, all async-signal-safe, and reads only memory
/// allocated once before any handler is installed: a fixed number of slots of `PATH_MAX` bytes, each with
/// a flag saying whether it holds a path.
///
///     let registration = InterruptCleanup.register([temporary])
///     defer { InterruptCleanup.release(registration) }
package enum InterruptCleanup {
    static let signals = [SIGINT, SIGTERM, SIGHUP]
    static let slotCount = 32
    static let slotSize = Int(PATH_MAX) + 1

    /// The slots a registration holds.
    package struct Registration: Sendable {
        fileprivate var slots: [Int]
    }

    nonisolated(unsafe) static let paths: UnsafeMutablePointer<CChar> = {
        let memory = UnsafeMutablePointer<CChar>.allocate(capacity: slotCount * slotSize)
        memory.initialize(repeating: 0, count: slotCount * slotSize)
        return memory
    }()
    nonisolated(unsafe) static let inUse: UnsafeMutablePointer<sig_atomic_t> = {
        let flags = UnsafeMutablePointer<sig_atomic_t>.allocate(capacity: slotCount)
        flags.initialize(repeating: 0, count: slotCount)
        return flags
    }()
    nonisolated(unsafe) static let previous: UnsafeMutablePointer<sigaction> = {
        let slots = UnsafeMutablePointer<sigaction>.allocate(capacity: Int(NSIG))
        slots.initialize(repeating: sigaction(), count: Int(NSIG))
        return slots
    }()
    static let lock = NSLock()
    /// Registrations alive (guarded by `lock`): the handlers are installed while there is one.
    nonisolated(unsafe) static var registrations = 0

    /// Registers `files` to be unlinked if a signal ends the process before `release`. A path too long
    /// for a slot (no file can have it) or beyond the slots is not registered.
    package static func register(_ files: [String]) -> Registration {
        // Touched before the handlers exist, so the handler never runs their lazy initialisers.
        _ = (paths, inUse, previous)
        lock.lock()
        defer { lock.unlock() }
        var taken: [Int] = []
        for file in files {
            let bytes = Array(file.utf8)
            guard bytes.count < slotSize, !bytes.contains(0),
                let slot = (0..<slotCount).first(where: { inUse[$0] == 0 && !taken.contains($0) })
            else { continue }
            let start = paths + slot * slotSize
            bytes.withUnsafeBufferPointer { source in
                for (index, byte) in source.enumerated() { start[index] = CChar(bitPattern: byte) }
            }
            start[bytes.count] = 0
            inUse[slot] = 1
            taken.append(slot)
        }
        registrations += 1
        if registrations == 1 { install() }
        return Registration(slots: taken)
    }

    /// Forgets the files (they were renamed into place or removed); the last release puts the signals'
    /// dispositions back.
    package static func release(_ registration: Registration) {
        lock.lock()
        defer { lock.unlock() }
        for slot in registration.slots { inUse[slot] = 0 }
        registrations -= 1
        if registrations == 0 { restore() }
    }

    private static func install() {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in
            for slot in 0..<InterruptCleanup.slotCount where InterruptCleanup.inUse[slot] != 0 {
                unlink(InterruptCleanup.paths + slot * InterruptCleanup.slotSize)
            }
            // The signal's own ending: the disposition there was before, then the signal again.
            sigaction(signal, InterruptCleanup.previous + Int(signal), nil)
            raise(signal)
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        // A parent may have left them blocked (a test runner, a supervisor): the writer must still hear them.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for signal in signals { sigaddset(&unblock, signal) }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        for signal in signals {
            // A signal the caller ignores (nohup) stays ignored.
            var current = sigaction()
            sigaction(signal, nil, &current)
            if isIgnored(current) { continue }
            sigaction(signal, &action, previous + Int(signal))
        }
    }

    private static func restore() {
        for signal in signals {
            var current = sigaction()
            sigaction(signal, nil, &current)
            if !isIgnored(current) { sigaction(signal, previous + Int(signal), nil) }
        }
    }

    /// Whether the disposition is SIG_IGN (function pointers cannot be compared in Swift; SIG_IGN is 1).
    static func isIgnored(_ action: sigaction) -> Bool {
        unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) == 1
    }
}
