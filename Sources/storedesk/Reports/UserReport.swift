import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// `user show`: a player's profile, accounts, subscriptions and recent transactions.
struct ProfileReport: CommandReport {
    /// The newest notifications `user show` lists.
    static let notificationLimit = 20

    var profile: UserProfile
    /// The player's notifications, newest first, each with its send state.
    var notifications: [PlayerNotification] = []
    var zone: TimeZone

    var json: ProfileJSON { ProfileJSON(profile, notifications: notifications) }

    var text: String {
        let u = profile.user
        var lines = [
            "\(u.displayName)  (id \(u.id)\(u.isGuest ? ", guest" : ""))",
            "  name            \(u.name)",
            "  friendly name   \(u.friendlyName.isEmpty ? "-" : u.friendlyName)",
            "  account type    \(u.site.name) (site \(u.site.rawValue))",
            "  age band        \(u.adultType.name)",
            "  anti-addiction  \(u.fcm ? "applies" : "does not apply")",
            "  real name       \(u.isRealNameVerified ? "verified" : "not verified")",
            "  phone           \(u.phone.isEmpty ? "-" : u.maskedPhone)",
            "  ID card         \(u.idCard.isEmpty ? "-" : u.idCard)",
            "  client          \(u.clientId)",
            "  created         \(u.createdAt.shortText(in: zone))",
            "  game accounts   \(profile.gameAccounts.count)",
        ]
        for a in profile.gameAccounts {
            lines.append("    app \(a.appId)  \(a.sid)/\(a.roleId)  \(a.roleName)  Apple ID \(a.appleId)")
        }
        lines.append("  subscriptions   \(profile.subscriptions.count)")
        for s in profile.subscriptions {
            lines.append("    \(s.productId)  \(s.state.name)  expires \(s.expiresDate.shortText(in: zone))")
        }
        lines.append("  transactions    \(profile.transactionCount) (open restore requests: \(profile.openRestoreRequests))")
        for t in profile.recentTransactions {
            lines.append("    \(t.id)  \(t.purchaseDate.shortText(in: zone))  \(t.productId)  \(t.state.rawValue)\(t.finished ? "" : " (unfinished)")")
        }
        lines.append("  notifications   \(notifications.count)\(notifications.count == Self.notificationLimit ? " (newest)" : "")")
        for n in notifications {
            lines.append("    \(n.event.signedDate.shortText(in: zone))  \(n.event.appleName)  \(n.delivery?.summary ?? "not sent (no notification URL)")")
            for a in n.delivery?.attempts ?? [] where a.result != .success {
                lines.append("      attempt \(a.attempt)  \(a.at.shortText(in: zone))  \(a.outcome)  \(a.detail)")
            }
        }
        return reportText(lines)
    }
}

/// `user search`: the players found, one tab-separated line each.
struct UserSearchReport: CommandReport {
    var users: [User]
    /// What was looked for, for the note when nothing matches.
    var query: String

    var json: [UserJSON] { users.map(UserJSON.init) }

    var text: String {
        users.map { u in
            // Each column escaped: a tab or line break in a name cannot add a column or a line.
            [u.id, u.name, u.friendlyName.isEmpty ? "-" : u.friendlyName, u.site.name, u.phone.isEmpty ? "-" : u.maskedPhone]
                .map(\.controlsEscaped).joined(separator: "\t")
        }.joined(separator: "\n")
    }

    var note: String? { users.isEmpty ? "no user matches '\(query.echoed)'" : nil }
}

/// A user as JSON: the platform's user-info field names, phone masked, plus readable names.
struct UserJSON: Encodable {
    var id, name, friendly_name, id_card, phone, client_id, created_at: String
    var site, adult_type, authoriz_state, safety: Int
    var fcm, guest: Bool
    var site_name, adult_type_name: String

    init(_ u: User) {
        id = u.id
        name = u.name
        friendly_name = u.friendlyName
        id_card = u.idCard
        phone = u.maskedPhone
        client_id = u.clientId
        created_at = u.createdAt.iso8601
        site = u.site.rawValue
        adult_type = u.adultType.rawValue
        authoriz_state = u.authorizState
        safety = u.safety
        fcm = u.fcm
        guest = u.isGuest
        site_name = u.site.name
        adult_type_name = u.adultType.name
    }
}

struct ProfileJSON: Encodable {
    struct Account: Encodable {
        var app_id, apple_id, sid, role_id, role_name: String
    }
    struct SubscriptionJSON: Encodable {
        var original_transaction_id, product_id, group_id, state: String
        var status: Int
        var auto_renew: Bool
        var expires_date: String
    }
    struct TransactionJSON: Encodable {
        var transaction_id, product_id, state, purchase_date: String
        var finished: Bool
    }
    var user: UserJSON
    var game_accounts: [Account]
    var subscriptions: [SubscriptionJSON]
    var transaction_count: Int
    var open_restore_requests: Int
    var recent_transactions: [TransactionJSON]
    var notifications: [NotificationJSON]

    struct NotificationJSON: Encodable {
        struct Attempt: Encodable {
            var attempt: Int
            var at, result, detail, url: String
            var http_status: Int?
        }
        var id: Int64
        var notification_uuid, notification_type, signed_date, send_state: String
        var subtype: String?
        var next_attempt_at: String?
        var attempts: [Attempt]

        func encode(to encoder: Encoder) throws {
            enum Keys: String, CodingKey { case id, notification_uuid, notification_type, subtype, signed_date, send_state, next_attempt_at, attempts }
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(id, forKey: .id)
            try c.encode(notification_uuid, forKey: .notification_uuid)
            try c.encode(notification_type, forKey: .notification_type)
            try c.encode(subtype, forKey: .subtype)
            try c.encode(signed_date, forKey: .signed_date)
            try c.encode(send_state, forKey: .send_state)
            try c.encode(next_attempt_at, forKey: .next_attempt_at)
            try c.encode(attempts, forKey: .attempts)
        }

        init(_ n: PlayerNotification) {
            id = n.eventId
            notification_uuid = n.event.notificationUUID
            notification_type = n.event.notificationType.rawValue
            subtype = n.event.subtype?.rawValue
            signed_date = n.event.signedDate.iso8601
            send_state = n.sendState
            next_attempt_at = n.delivery?.state.nextAttempt?.iso8601
            attempts = (n.delivery?.attempts ?? []).map {
                Attempt(attempt: $0.attempt, at: $0.at.iso8601, result: $0.result.rawValue, detail: $0.detail, url: $0.url, http_status: $0.httpStatus)
            }
        }
    }

    init(_ p: UserProfile, notifications: [PlayerNotification] = []) {
        self.notifications = notifications.map(NotificationJSON.init)
        user = UserJSON(p.user)
        game_accounts = p.gameAccounts.map {
            Account(app_id: $0.appId, apple_id: $0.appleId, sid: $0.sid, role_id: $0.roleId, role_name: $0.roleName)
        }
        subscriptions = p.subscriptions.map {
            SubscriptionJSON(
                original_transaction_id: $0.id, product_id: $0.productId, group_id: $0.groupId, state: $0.state.rawValue,
                status: $0.state.appleStatus, auto_renew: $0.autoRenew, expires_date: $0.expiresDate.iso8601)
        }
        transaction_count = p.transactionCount
        open_restore_requests = p.openRestoreRequests
        recent_transactions = p.recentTransactions.map {
            TransactionJSON(
                transaction_id: $0.id, product_id: $0.productId, state: $0.state.rawValue,
                purchase_date: $0.purchaseDate.iso8601, finished: $0.finished)
        }
    }
}
