import StoreDeskCore

extension CallbackDeliveries {
    /// `1,204 POSTed: 1,190 delivered, 14 failed (9 timeout, 5 non-2xx) · p50 1.2 ms p99 8.4 ms`: the
    /// Queue screen's header and `simulate`'s text report say it alike.
    public var text: String {
        var line = "\(attempts.formattedWithSeparators) POSTed: \(delivered.formattedWithSeparators) delivered"
        if failed > 0 {
            let kinds = failures.keys.sorted().compactMap { kind in failures[kind].map { "\($0.formattedWithSeparators) \(kind.words)" } }
            line += ", \(failed.formattedWithSeparators) failed (" + kinds.joined(separator: ", ") + ")"
        }
        return line + " · p50 " + CallbackReply.millisText(latency.percentile(0.5)) + " p99 "
            + CallbackReply.millisText(latency.percentile(0.99))
    }
}
