// Signs the demo's App Store notifications with a chain made for the demo.
//
//     swift run storedesk-demo-signer Data/Demo [--sign 1-14,18]
//
// Makes a new chain shaped like Apple's (root → intermediate with the WWDR OID → leaf with the
// receipt-signing OID, P-256), writes its root to Data/Demo/trust-root.pem (the demo store trusts it),
// and signs again every line of Data/Demo/notifications.jsonl that is signed (and those named by --sign)
// as Apple does: the transaction and renewal infos as JWS inside the notification's JWS. The private keys
// live only in this process: nothing can sign for the demo's root once it ends, which is why a change to
// a signed line means running this again (a new chain, every signed line signed anew).
import Foundation
import StoreDeskCore
import StoreDeskTrust

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("storedesk-demo-signer: \(message)\n".utf8))
    exit(1)
}

/// `1-14,18` to a set of line numbers.
func lineNumbers(_ text: String) -> Set<Int> {
    var numbers = Set<Int>()
    for part in text.split(separator: ",") {
        let bounds = part.split(separator: "-").compactMap { Int($0) }
        guard let first = bounds.first, let last = bounds.last, bounds.count <= 2, first <= last else {
            fail("--sign wants line numbers such as 1-14,18, got '\(text)'")
        }
        numbers.formUnion(first...last)
    }
    return numbers
}

var arguments = Array(CommandLine.arguments.dropFirst())
var toSign = Set<Int>()
if let flag = arguments.firstIndex(of: "--sign") {
    guard flag + 1 < arguments.count else { fail("--sign wants line numbers") }
    toSign = lineNumbers(arguments[flag + 1])
    arguments.removeSubrange(flag...(flag + 1))
}
guard arguments.count == 1 else { fail("usage: storedesk-demo-signer DATA_DIRECTORY [--sign 1-14,18]") }
let directory = URL(fileURLWithPath: arguments[0], isDirectory: true)
let notificationsURL = directory.appendingPathComponent("notifications.jsonl")
guard let text = try? String(contentsOf: notificationsURL, encoding: .utf8) else { fail("cannot read \(notificationsURL.path)") }

do {
    let chain = try SigningChain(name: "StoreDesk Demo")
    var output: [String] = []
    var signed = 0
    for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        let number = index + 1
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else {
            output.append(String(line))
            continue
        }
        let decoded = try NotificationLine.decode(jsonLine: trimmed)
        guard decoded.signedPayload != nil || toSign.contains(number) else {
            output.append(String(line))
            continue
        }
        output.append(try chain.signedNotificationLine(decoded.event))
        signed += 1
    }
    try output.joined(separator: "\n").write(to: notificationsURL, atomically: true, encoding: .utf8)
    try chain.rootPEM().write(to: directory.appendingPathComponent("trust-root.pem"), atomically: true, encoding: .utf8)
    let root = try TrustedRoot(chain.root)
    print("signed \(signed) lines of \(notificationsURL.path) with a new chain; root \(root.subject), SHA-256 \(root.sha256)")
} catch {
    fail("\(error)")
}
