import Foundation
import StoreDeskCore

/// A callback URL as the user typed it, checked before anything is opened: http or https, with a host.
func checkedCallbackURL(_ text: String, option: String) throws -> String {
    guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
        let host = url.host, !host.isEmpty
    else {
        throw fail("\(option) '\(text.echoed)' is not an http:// or https:// URL with a host")
    }
    return text
}
