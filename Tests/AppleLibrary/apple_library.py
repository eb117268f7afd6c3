"""Apple's App Store Server Library for Python, driven by StoreDesk's interop tests.

    apple_library.py verify ROOT_DER ENVIRONMENT BUNDLE_ID APP_APPLE_ID < cases.json
        cases.json: [{"kind": "transaction" | "renewal" | "notification", "jws": "..."}]
        prints one JSON array: {"ok": true, "decoded": {...Apple's field names...}} or {"ok": false, "status": "..."}
        per case, as Apple's SignedDataVerifier (online checks off, OpenSSL strict checks on) decides.
    apple_library.py token KEY_PEM KEY_ID ISSUER_ID BUNDLE_ID
        prints the bearer JWT AppStoreServerAPIClient signs its requests with.
    apple_library.py api BASE_URL KEY_PEM KEY_ID ISSUER_ID ROOT_DER APP_APPLE_ID < calls.json
        calls.json: [{"call": "transaction_info" | "history" | "statuses" | "lookup" | "refunds" |
                      "test_notification" | "set_token" | "extend" | "raw_put" | "notification_history" |
                      "consumption" | "mass_extend" | "mass_status" | "app_transaction" | "burst", "bundle": "...", "environment": "Production" | "Sandbox",
                      "id": "...", "request": {...}, "token": "good" | "expired" | "other_key", "wait_seconds": s}]
        drives AppStoreServerAPIClient (nothing changed but its base URL) against BASE_URL, and verifies every
        signed transaction, renewal info and notification it returns with SignedDataVerifier (ROOT_DER, online
        checks off, the call's environment and bundle). Prints one JSON array: per call {"ok": true, "response":
        {...}, "pages": n, "verified": [{"kind", "ok", "decoded" | "status"}]} or {"ok": false, "httpStatus": N,
        "errorCode": N}.
    apple_library.py receive ROOT_DER BUNDLE_ID APP_APPLE_ID PORT_FILE OUT_FILE FAIL_FIRST
        an app's notification URL: a small http.server on 127.0.0.1 (a free port, written to PORT_FILE) that
        verifies each POSTed {"signedPayload": ...} with SignedDataVerifier (ROOT_DER, online checks off, the
        payload's environment, Production or Sandbox), appends one JSON line a POST to OUT_FILE ({"n": N,
        "ok": true, "decoded": {...}, "answered": 200} or {"n": N, "ok": false, "status": "..."}), and answers
        500 to the first FAIL_FIRST POSTs (to make the sender retry), 200 after them. Runs until killed.
"""
import json
import sys
import time

from appstoreserverlibrary.api_client import AppStoreServerAPIClient
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.models.LibraryUtility import _get_cattrs_converter
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException


def verify(root_path, environment, bundle_id, app_apple_id):
    with open(root_path, "rb") as handle:
        root = handle.read()
    verifier = SignedDataVerifier([root], False, Environment(environment), bundle_id, int(app_apple_id))
    decode = {
        "transaction": verifier.verify_and_decode_signed_transaction,
        "renewal": verifier.verify_and_decode_renewal_info,
        "notification": verifier.verify_and_decode_notification,
    }
    results = []
    for case in json.load(sys.stdin):
        try:
            decoded = decode[case["kind"]](case["jws"])
            results.append({"ok": True, "decoded": _get_cattrs_converter(type(decoded)).unstructure(decoded)})
        except VerificationException as error:
            results.append({"ok": False, "status": error.status.name})
    print(json.dumps(results))


def token(key_path, key_id, issuer_id, bundle_id):
    with open(key_path, "rb") as handle:
        key = handle.read()
    client = AppStoreServerAPIClient(key, key_id, issuer_id, bundle_id, Environment.SANDBOX)
    print(client._generate_token())


def api(base_url, key_path, key_id, issuer_id, root_path, app_apple_id):
    import calendar
    import datetime

    import jwt
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from appstoreserverlibrary.api_client import APIException
    from appstoreserverlibrary.models.Status import Status
    from appstoreserverlibrary.models.TransactionHistoryRequest import Order, ProductType, TransactionHistoryRequest
    from appstoreserverlibrary.api_client import GetTransactionHistoryVersion
    from appstoreserverlibrary.models.UpdateAppAccountTokenRequest import UpdateAppAccountTokenRequest

    with open(key_path, "rb") as handle:
        key = handle.read()
    with open(root_path, "rb") as handle:
        root = handle.read()
    other_key = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())

    def client(case):
        bundle = case["bundle"]
        made = AppStoreServerAPIClient(other_key if case.get("token") == "other_key" else key, key_id, issuer_id, bundle,
                                       Environment.SANDBOX)
        made._base_url = base_url
        if case.get("token") == "expired":
            signing_key = made._signing_key

            def expired():
                past = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=5)
                return jwt.encode({"bid": bundle, "iss": issuer_id, "aud": "appstoreconnect-v1",
                                   "exp": calendar.timegm(past.timetuple())}, signing_key, algorithm="ES256",
                                  headers={"kid": key_id})
            made._generate_token = expired
        return made

    def history_request(fields):
        fields = dict(fields or {})
        if "sort" in fields:
            fields["sort"] = Order(fields["sort"])
        if "productTypes" in fields:
            fields["productTypes"] = [ProductType(value) for value in fields["productTypes"]]
        return TransactionHistoryRequest(**fields)

    results = []
    for case in json.load(sys.stdin):
        api_client = client(case)
        environment = Environment(case.get("environment", "Sandbox"))
        verifier = SignedDataVerifier([root], False, environment, case["bundle"], int(app_apple_id))
        signed = []
        pages = 1
        try:
            call = case["call"]
            if call == "transaction_info":
                response = api_client.get_transaction_info(case["id"])
                signed.append(("transaction", response.signedTransactionInfo))
            elif call == "history":
                request = history_request(case.get("request"))
                revision = case.get("revision")
                response = api_client.get_transaction_history(case["id"], revision, request, GetTransactionHistoryVersion.V2)
                signed += [("transaction", jws) for jws in response.signedTransactions or []]
                # Every page, bounded: the revision of each page asks for the next.
                while case.get("all_pages") and response.hasMore and pages < 200:
                    response = api_client.get_transaction_history(case["id"], response.revision, request,
                                                                  GetTransactionHistoryVersion.V2)
                    signed += [("transaction", jws) for jws in response.signedTransactions or []]
                    pages += 1
            elif call == "statuses":
                statuses = [Status(value) for value in case["status"]] if "status" in case else None
                response = api_client.get_all_subscription_statuses(case["id"], statuses)
                for group in response.data or []:
                    for item in group.lastTransactions or []:
                        signed.append(("transaction", item.signedTransactionInfo))
                        signed.append(("renewal", item.signedRenewalInfo))
            elif call == "lookup":
                response = api_client.look_up_order_id(case["id"])
                signed += [("transaction", jws) for jws in response.signedTransactions or []]
            elif call == "refunds":
                response = api_client.get_refund_history(case["id"], case.get("revision"))
                signed += [("transaction", jws) for jws in response.signedTransactions or []]
            elif call == "test_notification":
                sent = api_client.request_test_notification()
                response = api_client.get_test_notification_status(sent.testNotificationToken)
                # "wait_seconds": ask for the status again until it shows the send attempt (or the time is up).
                deadline = time.time() + float(case.get("wait_seconds", 0))
                while not response.sendAttempts and time.time() < deadline:
                    time.sleep(0.1)
                    response = api_client.get_test_notification_status(sent.testNotificationToken)
                signed.append(("notification", response.signedPayload))
            elif call == "extend":
                from appstoreserverlibrary.models.ExtendReasonCode import ExtendReasonCode
                from appstoreserverlibrary.models.ExtendRenewalDateRequest import ExtendRenewalDateRequest
                from appstoreserverlibrary.models.ExtendRenewalDateResponse import ExtendRenewalDateResponse
                reason = case["reason"]
                if reason in [code.value for code in ExtendReasonCode]:
                    response = api_client.extend_subscription_renewal_date(case["id"], ExtendRenewalDateRequest(
                        extendByDays=case["days"], extendReasonCode=ExtendReasonCode(reason),
                        requestIdentifier=case["request_id"]))
                else:
                    # A code the library's model cannot hold goes as raw JSON through the library's own request.
                    body = json.dumps({"extendByDays": case["days"], "extendReasonCode": reason,
                                       "requestIdentifier": case["request_id"]}).encode()
                    response = api_client._make_request("/inApps/v1/subscriptions/extend/" + case["id"], "PUT", {}, body,
                                                        ExtendRenewalDateResponse, "application/json")
            elif call == "notification_history":
                from appstoreserverlibrary.models.NotificationHistoryRequest import NotificationHistoryRequest
                from appstoreserverlibrary.models.NotificationTypeV2 import NotificationTypeV2
                fields = dict(case["request"])
                if "notificationType" in fields:
                    fields["notificationType"] = NotificationTypeV2(fields["notificationType"])
                request = NotificationHistoryRequest(**fields)
                response = api_client.get_notification_history(None, request)
                signed += [("notification", item.signedPayload) for item in response.notificationHistory or []]
                # Every page, bounded: each page's token asks for the next.
                while response.hasMore and pages < 200:
                    response = api_client.get_notification_history(response.paginationToken, request)
                    signed += [("notification", item.signedPayload) for item in response.notificationHistory or []]
                    pages += 1
            elif call == "consumption":
                from appstoreserverlibrary.models.ConsumptionRequestV1 import ConsumptionRequestV1
                # Enumerated fields go as their raw values (the library keeps a value it has no case for as it is).
                enumerated = ["consumptionStatus", "platform", "deliveryStatus", "accountTenure", "playTime",
                              "lifetimeDollarsRefunded", "lifetimeDollarsPurchased", "userStatus", "refundPreference"]
                fields = {("raw" + name[0].upper() + name[1:] if name in enumerated else name): value
                          for name, value in case["request"].items()}
                api_client.send_consumption_data(case["id"], ConsumptionRequestV1(**fields))
                response = None
            elif call == "mass_extend":
                from appstoreserverlibrary.models.ExtendReasonCode import ExtendReasonCode
                from appstoreserverlibrary.models.MassExtendRenewalDateRequest import MassExtendRenewalDateRequest
                sent = api_client.extend_renewal_date_for_all_active_subscribers(MassExtendRenewalDateRequest(
                    extendByDays=case["days"], extendReasonCode=ExtendReasonCode(case["reason"]),
                    requestIdentifier=case["request_id"], productId=case["product"], storefrontCountryCodes=["USA"]))
                response = api_client.get_status_of_subscription_renewal_date_extensions(sent.requestIdentifier, case["product"])
            elif call == "mass_status":
                response = api_client.get_status_of_subscription_renewal_date_extensions(case["request_id"], case["product"])
            elif call == "app_transaction":
                response = api_client.get_app_transaction_info(case["id"])
                signed.append(("app_transaction", response.signedAppTransactionInfo))
            elif call == "burst":
                # The same request again and again: the key's token bucket runs dry.
                response = None
                for _ in range(case["times"]):
                    api_client.get_transaction_info(case["id"])
            elif call == "raw_put":
                # A body the library's models cannot make (malformed JSON), sent by the library's own request.
                response = api_client._make_request(case["path"], "PUT", {}, case["body"].encode(), None, "application/json")
            elif call == "set_token":
                api_client.set_app_account_token(case["id"], UpdateAppAccountTokenRequest(appAccountToken=case["token_value"]))
                response = None
            else:
                raise ValueError("unknown call " + call)
        except APIException as error:
            results.append({"ok": False, "httpStatus": error.http_status_code, "errorCode": error.raw_api_error})
            continue
        decode = {
            "transaction": verifier.verify_and_decode_signed_transaction,
            "renewal": verifier.verify_and_decode_renewal_info,
            "notification": verifier.verify_and_decode_notification,
            "app_transaction": verifier.verify_and_decode_app_transaction,
        }
        verified = []
        for kind, jws in signed:
            try:
                decoded = decode[kind](jws)
                verified.append({"kind": kind, "ok": True,
                                 "decoded": _get_cattrs_converter(type(decoded)).unstructure(decoded)})
            except VerificationException as error:
                verified.append({"kind": kind, "ok": False, "status": error.status.name})
        unstructured = _get_cattrs_converter(type(response)).unstructure(response) if response is not None else None
        results.append({"ok": True, "response": unstructured, "pages": pages, "verified": verified})
    print(json.dumps(results))


def receive(root_path, bundle_id, app_apple_id, port_file, out_file, fail_first):
    import signal
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    # A test runner may start it with SIGTERM blocked: unblocked, so its stop is a SIGTERM.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})

    with open(root_path, "rb") as handle:
        root = handle.read()
    verifiers = [SignedDataVerifier([root], False, environment, bundle_id, int(app_apple_id))
                 for environment in (Environment.PRODUCTION, Environment.SANDBOX)]
    lock = threading.Lock()
    state = {"n": 0}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            with lock:
                state["n"] += 1
                n = state["n"]
            status = 500 if n <= int(fail_first) else 200
            line = {"n": n, "answered": status, "content_type": self.headers.get("Content-Type")}
            try:
                signed = json.loads(body)["signedPayload"]
                failures = []
                for verifier in verifiers:
                    try:
                        decoded = verifier.verify_and_decode_notification(signed)
                        line.update({"ok": True, "decoded": _get_cattrs_converter(type(decoded)).unstructure(decoded)})
                        break
                    except VerificationException as error:
                        failures.append(error.status.name)
                else:
                    line.update({"ok": False, "status": ",".join(failures)})
            except Exception as error:  # a body that is not {"signedPayload": ...}
                line.update({"ok": False, "status": "BAD_BODY " + repr(error)})
            with lock:
                with open(out_file, "a") as handle:
                    handle.write(json.dumps(line) + "\n")
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(port_file + ".tmp", "w") as handle:
        handle.write(str(server.server_address[1]))
    import os
    os.rename(port_file + ".tmp", port_file)
    server.serve_forever()


if __name__ == "__main__":
    {"verify": verify, "token": token, "api": api, "receive": receive}[sys.argv[1]](*sys.argv[2:])
