import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// `user show`: a player's profile, accounts, subscriptions and recent transactions.
struct ProfileReport: CommandReport {
    var profile: UserProfile
    var zone: TimeZone

    var json: ProfileJSON { ProfileJSON(profile) }

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

    var note: String? { users.isEmpty ? "no user matches '\(query.controlsEscaped)'" : nil }
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

    init(_ p: UserProfile) {
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
