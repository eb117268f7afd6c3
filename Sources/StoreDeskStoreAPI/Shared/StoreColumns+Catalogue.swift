import StoreDeskCore

/// The rows of apps' catalogues, decoded the same on both backends.
extension StoreColumns {
    public func storeKitSettings() throws -> StoreKitSettings {
        StoreKitSettings(
            timeRate: try optionalInt("time_rate").map { StoreKitTimeRate(rawValue: Int($0)) },
            compatibilityTimeRates: try json("compatibility_time_rates", as: [Int].self) ?? [],
            askToBuy: try flag("ask_to_buy"), failTransactions: try flag("fail_transactions"),
            billingIssues: try flag("billing_issues"), billingGracePeriod: try flag("billing_grace_period"),
            disableDialogs: try flag("disable_dialogs"), locale: try optionalText("locale"), storefront: try text("storefront"),
            enabledErrors: try json("enabled_errors", as: [String].self) ?? [], appStoreAppId: try optionalText("app_store_app_id"),
            teamId: try optionalText("team_id"), lastSynchronized: try optionalInstant("last_synchronized"))
    }

    public func catalogueSource() throws -> AppCatalogue.Source {
        AppCatalogue.Source(
            file: try text("source"), identifier: try optionalText("identifier"), version: try text("format_version"),
            importedAt: try instant("imported_at"), importedBy: try text("imported_by"), storefront: try text("storefront"),
            currency: try text("currency"), settings: try storeKitSettings())
    }

    public func catalogueLocalization() throws -> CatalogueLocalization {
        CatalogueLocalization(locale: try text("locale"), displayName: try text("display_name"), description: try text("description"))
    }

    public func catalogueProduct(localizations: [CatalogueLocalization], offers: [CatalogueOffer], plans: [CatalogueBillingPlan]) throws
        -> CatalogueProduct
    {
        guard let type = ProductType(rawValue: try text("type")), let price = CataloguePrice(try text("display_price")) else {
            throw StoreError.damaged(path: store, detail: "a stored catalogue product cannot be read back")
        }
        var terms: CatalogueSubscription?
        if let groupId = try optionalText("group_id"), let level = try optionalInt("group_level"),
            let period = try optionalText("period").flatMap(SubscriptionPeriod.init(rawValue:))
        {
            terms = CatalogueSubscription(groupId: groupId, level: Int(level), period: period, offers: offers, billingPlans: plans)
        }
        return CatalogueProduct(
            id: try text("product_id"), type: type, referenceName: try optionalText("reference_name"),
            internalId: try optionalText("internal_id"), price: price, familyShareable: try flag("family_shareable"),
            localizations: localizations, subscription: terms)
    }

    public func catalogueOffer() throws -> CatalogueOffer {
        guard let type = OfferType(key: try text("type")), let period = CalendarPeriod(iso8601: try text("period")) else {
            throw StoreError.damaged(path: store, detail: "a stored catalogue offer cannot be read back")
        }
        return CatalogueOffer(
            type: type, offerId: try optionalText("offer_id"), referenceName: try optionalText("reference_name"),
            internalId: try optionalText("internal_id"), paymentMode: OfferDiscountType(rawValue: try text("payment_mode")),
            period: period, periodCount: Int(try int("period_count")),
            price: try optionalText("display_price").flatMap(CataloguePrice.init),
            eligibility: try text("eligibility").split(separator: ",").compactMap { CatalogueOffer.Eligibility(rawValue: String($0)) },
            stackable: try optionalFlag("stackable"), eligible: try optionalFlag("eligible"),
            billingPlanType: try optionalText("billing_plan_type"))
    }

    public func catalogueBillingPlan() throws -> CatalogueBillingPlan {
        guard let price = CataloguePrice(try text("display_price")) else {
            throw StoreError.damaged(path: store, detail: "a stored billing plan cannot be read back")
        }
        return CatalogueBillingPlan(
            type: try text("type"), price: price, commitmentPrice: try optionalText("commitment_display_price").flatMap(CataloguePrice.init),
            internalId: try optionalText("internal_id"), enabled: try flag("enabled"))
    }
}
