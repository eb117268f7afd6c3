"""Apple's App Store Server Library for Python, driven by StoreDesk's interop tests.

    apple_library.py verify ROOT_DER ENVIRONMENT BUNDLE_ID APP_APPLE_ID < cases.json
        cases.json: [{"kind": "transaction" | "renewal" | "notification", "jws": "..."}]
        prints one JSON array: {"ok": true, "decoded": {...Apple's field names...}} or {"ok": false, "status": "..."}
        per case, as Apple's SignedDataVerifier (online checks off, OpenSSL strict checks on) decides.
    apple_library.py token KEY_PEM KEY_ID ISSUER_ID BUNDLE_ID
        prints the bearer JWT AppStoreServerAPIClient signs its requests with.
"""
import json
import sys

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


if __name__ == "__main__":
    {"verify": verify, "token": token}[sys.argv[1]](*sys.argv[2:])
