/// The carrier one-click login's result codes, in the style of China Mobile's authentication SDK (the
/// numbers its SDK and server return for all three carriers), each with the carrier's own words and
/// what it means for the player. One table: the simulator returns only codes from it, and the Codes
/// screen, the One-tap screen and `storedesk login onetap codes` list it.
///
///     OneTapResultCode.named("103911")?.meaning
public struct OneTapResultCode: Hashable, Sendable, Identifiable {
    /// Six digits, as the SDK reports them (`resultCode`).
    public var code: String
    /// What the carrier's SDK says (`desc`).
    public var carrierText: String
    public var meaning: String

    public var id: String { code }
    public var isSuccess: Bool { code == Self.success.code }

    public static func named(_ code: String) -> OneTapResultCode? { table.first { $0.code == code } }

    /// The rows matching a query: the code exactly, or a case-insensitive piece of its words.
    public static func search(_ query: String) -> [OneTapResultCode] {
        let needle = query.trimmingCharacters(in: .whitespaces).lowercased()
        return table.filter { needle.isEmpty || $0.code == needle || ($0.carrierText + " " + $0.meaning).lowercased().contains(needle) }
    }

    static func row(_ code: String, _ carrierText: String, _ meaning: String) -> OneTapResultCode {
        OneTapResultCode(code: code, carrierText: carrierText, meaning: meaning)
    }

    public static let success = row("103000", "成功", "Success: the step did what was asked (a masked number, a token, the number from the server).")
    public static let noNetwork = row("102101", "无网络", "No network at all: the phone is offline.")
    public static let networkError = row("102102", "网络异常", "The network failed while talking to the carrier's gateway.")
    public static let dataNetworkOff = row(
        "102103", "未开启数据网络", "Cellular data is off (Wi-Fi only): one-click login needs the carrier's data network.")
    public static let loginTimeout = row(
        "102507", "登录超时（授权页点登录按钮时）", "The login after the button was pressed took longer than the timeout.")
    public static let badSignature = row("103101", "请求签名错误", "The request's signature is wrong: the appKey does not match the appId.")
    public static let wrongGateway = row(
        "103111", "网关IP错误", "The request reached the wrong carrier's gateway (network and SIM disagree).")
    public static let appIdInvalid = row("103119", "appid不存在", "The appId is not registered with the carrier.")
    public static let tooManyTokens = row(
        "103911", "token请求过于频繁，10分钟内获取token且未使用的数量不超过30个",
        "Too many token requests: at most 30 unused tokens per number in 10 minutes.")
    public static let tokenInvalid = row(
        "104201", "凭证已失效或不存在", "The token is expired (2 minutes), already used once, or unknown.")
    public static let tokenWrongKind = row(
        "105018", "token权限不足", "The token cannot give the number (it came from number verification, not login).")
    public static let noSIMRecognised = row("200010", "imsi获取失败或者没有sim卡", "The SIM card cannot be read.")
    public static let cancelled = row("200020", "用户取消登录", "The player closed the authorization page.")
    public static let parseError = row("200021", "数据解析异常", "The carrier's answer could not be read.")
    public static let noNetworkSDK = row("200022", "无网络", "No network when the SDK sent the request.")
    public static let timeout = row("200023", "请求超时", "The carrier did not answer within the timeout (8000 ms unless set).")
    public static let switchFailed = row(
        "200024", "数据网络切换失败", "Wi-Fi and cellular are both on and the switch to cellular data failed.")
    public static let otherError = row("200025", "其他错误", "Another error (socket, system); try again.")
    public static let badInput = row(
        "200026", "输入参数错误", "The SDK was not initialised with an appId and appKey, or a parameter is wrong.")
    public static let noDataNetwork = row("200027", "未开启数据网络或网络不稳定", "No usable data network.")
    public static let networkFailure = row("200028", "网络异常", "The network failed mid-request.")
    public static let otherCarrierFailed = row("200038", "异网取号网络请求失败", "Another carrier's gateway could not be reached.")
    public static let unsupportedCarrier = row(
        "200039", "异网取号网关取号失败", "The SIM's carrier does not support one-click login (a virtual or unknown operator).")
    public static let pageSetupFailed = row(
        "200040", "UI资源加载异常",
        "The authorization page could not be built: its login button must say 登录 or 注册.")
    public static let noSIM = row("200048", "用户未安装sim卡", "No SIM card in the phone.")
    public static let switchAccount = row("200060", "切换账号", "The player chose another way to log in: show the login panel.")
    public static let pageShown = row("200087", "授权页成功调起", "The authorization page is showing (not an outcome).")

    public static let table: [OneTapResultCode] = [
        success, noNetwork, networkError, dataNetworkOff, loginTimeout, badSignature, wrongGateway, appIdInvalid,
        tooManyTokens, tokenInvalid, tokenWrongKind, noSIMRecognised, cancelled, parseError, noNetworkSDK, timeout,
        switchFailed, otherError, badInput, noDataNetwork, networkFailure, otherCarrierFailed, unsupportedCarrier,
        pageSetupFailed, noSIM, switchAccount, pageShown,
    ]
}
