import StoreDeskCore
import Testing

@Suite("PurchaseRequest: the client's requestProduct, checked field by field")
struct PurchaseRequestTests {
    private let valid: [String: String] = [
        "Product_Name": "60 Gems", "Product_Id": "com.example.gems.60", "Product_Price": "600", "Sid": "cn-east_1",
    ]

    private func refusals(_ fields: [String: String]) -> [PurchaseRequest.Refusal] {
        switch PurchaseRequest.validate(PurchaseRequest.Input(fields: fields)) {
        case .success: []
        case .failure(let refused): refused.refusals
        }
    }

    private func with(_ changes: [String: String?]) -> [String: String] {
        var fields = valid
        for (key, value) in changes { fields[key] = value }
        return fields
    }

    @Test("a complete request is accepted with its optional fields defaulted")
    func accepted() throws {
        let request = try PurchaseRequest.validate(PurchaseRequest.Input(fields: valid)).get()
        #expect(request.priceCents == 600)
        #expect(request.sid == "cn-east_1")
        #expect(request.roleId == "")
        #expect(request.orderId == "")
        #expect(request.ext == "")

        let full = try PurchaseRequest.validate(
            PurchaseRequest.Input(fields: with(["Role_Id": "r 1", "OrderId": "G-1&x", "EXT": "{\"a\":\"中\"}"]))
        ).get()
        #expect(full.roleId == "r 1")
        #expect(full.orderId == "G-1&x")
        #expect(full.ext == "{\"a\":\"中\"}")
    }

    struct RefusalCase: Sendable, CustomTestStringConvertible {
        var changes: [String: String?]
        var refusal: PurchaseRequest.Refusal
        var code: String
        var field: String

        init(_ changes: [String: String?], _ refusal: PurchaseRequest.Refusal, _ code: String, _ field: String) {
            self.changes = changes
            self.refusal = refusal
            self.code = code
            self.field = field
        }

        var testDescription: String { "\(changes) → \(code)" }
    }

    @Test(
        "every refused field has its code and a reason naming the field",
        arguments: [
            RefusalCase(["Product_Name": nil], .productNameMissing, "product_name_missing", "Product_Name"),
            RefusalCase(["Product_Name": "  "], .productNameMissing, "product_name_missing", "Product_Name"),
            RefusalCase(["Product_Id": nil], .productIdMissing, "product_id_missing", "Product_Id"),
            RefusalCase(["Product_Id": ""], .productIdMissing, "product_id_missing", "Product_Id"),
            RefusalCase(["Product_Price": nil], .productPriceMissing, "product_price_missing", "Product_Price"),
            RefusalCase(["Product_Price": "6.00"], .productPriceNotInteger, "product_price_not_integer", "Product_Price"),
            RefusalCase(["Product_Price": "six"], .productPriceNotInteger, "product_price_not_integer", "Product_Price"),
            RefusalCase(["Product_Price": " 600"], .productPriceNotInteger, "product_price_not_integer", "Product_Price"),
            RefusalCase(["Product_Price": "+600"], .productPriceNotInteger, "product_price_not_integer", "Product_Price"),
            RefusalCase(["Product_Price": "6e2"], .productPriceNotInteger, "product_price_not_integer", "Product_Price"),
            RefusalCase(["Product_Price": "0"], .productPriceNotPositive, "product_price_not_positive", "Product_Price"),
            RefusalCase(["Product_Price": "-600"], .productPriceNotPositive, "product_price_not_positive", "Product_Price"),
            RefusalCase(["Sid": nil], .sidMissing, "sid_missing", "Sid"),
            RefusalCase(["Sid": ""], .sidMissing, "sid_missing", "Sid"),
            RefusalCase(["Sid": "s 1"], .sidInvalidCharacters, "sid_invalid_characters", "Sid"),
            RefusalCase(["Sid": "s1;drop"], .sidInvalidCharacters, "sid_invalid_characters", "Sid"),
            RefusalCase(["Sid": "服务器1"], .sidInvalidCharacters, "sid_invalid_characters", "Sid"),
            RefusalCase(["EXT": String(repeating: "x", count: 513)], .extTooLong, "ext_too_long", "EXT"),
        ])
    func refusedField(_ item: RefusalCase) {
        #expect(refusals(with(item.changes)) == [item.refusal])
        #expect(item.refusal.code == item.code)
        #expect(item.refusal.field == item.field)
        #expect(item.refusal.reason.contains(item.field))
    }

    @Test("Sid refuses every special character and accepts letters, digits, '-' and '_'")
    func sidCharacters() {
        for character in "!\"#$%&'()*+,./:;<=>?@[\\]^`{|}~ \t\n" {
            #expect(refusals(with(["Sid": "s\(character)1"])) == [.sidInvalidCharacters], "\(character)")
        }
        #expect(refusals(with(["Sid": "AZaz09-_"])) == [])
    }

    @Test("EXT may be 512 characters, counted as code points, not bytes")
    func extBoundary() {
        #expect(refusals(with(["EXT": String(repeating: "x", count: 512)])) == [])
        #expect(refusals(with(["EXT": String(repeating: "中", count: 512)])) == [])
        #expect(refusals(with(["EXT": String(repeating: "中", count: 513)])) == [.extTooLong])
        #expect(refusals(with(["EXT": String(repeating: "😀", count: 512)])) == [])
    }

    @Test("Role_Id and OrderId are optional")
    func optionalFields() {
        #expect(refusals(with(["Role_Id": nil, "OrderId": nil, "EXT": nil])) == [])
        #expect(refusals(with(["Role_Id": "", "OrderId": ""])) == [])
    }

    @Test("all refusals are reported together, in field order")
    func allAtOnce() {
        let all = refusals(["Product_Price": "1.5", "Sid": "a b", "EXT": String(repeating: "e", count: 600)])
        #expect(all == [.productNameMissing, .productIdMissing, .productPriceNotInteger, .sidInvalidCharacters, .extTooLong])
        if case .failure(let refused) = PurchaseRequest.validate(PurchaseRequest.Input()) {
            #expect(refused.refusals.count == 4)
            #expect(refused.reason.contains("Product_Name"))
        } else {
            Issue.record("an empty request was accepted")
        }
    }

    @Test("refusal codes are unique and stable")
    func uniqueCodes() {
        let codes = PurchaseRequest.Refusal.allCases.map(\.code)
        #expect(Set(codes).count == codes.count)
    }
}
