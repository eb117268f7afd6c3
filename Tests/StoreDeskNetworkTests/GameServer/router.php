<?php
// A game server's payment callback handler, as the platform's documentation writes it, for the tests
// to run under `php -n -d display_errors=0 -S 127.0.0.1:PORT router.php`:
//
//   verify_sign: parse the body, take the sign out, ksort, http_build_query, md5 with the AppKey,
//   strcasecmp with the sign; then de-duplicate by order_id, grant once, and answer "success" (also to a
//   repeat), or anything else so the platform retries.
//
// Environment: STOREDESK_KEYS (JSON: client_id => AppKey), STOREDESK_LEDGER (a folder: one file per
// granted order in orders/, one JSON line per grant in ledger.jsonl), STOREDESK_BREAK (optional: one
// rule broken on purpose, for the conformance check's own tests; see `broken()`).

declare(strict_types=1);

function broken(string $rule): bool
{
    return (getenv('STOREDESK_BREAK') ?: '') === $rule;
}

/// The platform doc's verify_sign.
function verify_sign(array $params, string $appKey): bool
{
    if (!isset($params['sign']) || !is_string($params['sign']) || $params['sign'] === '') {
        return broken('no-sign-required');
    }
    $sign = $params['sign'];
    unset($params['sign']);
    if (!broken('no-ksort')) {
        ksort($params);
    }
    $query = broken('rfc3986') ? http_build_query($params, '', '&', PHP_QUERY_RFC3986) : http_build_query($params);
    $expected = md5($query . $appKey);
    return broken('case-sensitive') ? $expected === $sign : strcasecmp($expected, $sign) === 0;
}

function answer(string $text, int $status = 200): void
{
    http_response_code($status);
    header('Content-Type: text/plain');
    echo broken('trailing-newline') && $text === 'success' ? "success\n" : $text;
}

if (($_SERVER['REQUEST_URI'] ?? '') === '/healthz') {
    answer('ok');
    return;
}
if ($_SERVER['REQUEST_METHOD'] !== 'POST' || parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH) !== '/callback') {
    answer('not found', 404);
    return;
}

$keys = json_decode(getenv('STOREDESK_KEYS') ?: '{}', true);
$ledger = getenv('STOREDESK_LEDGER') ?: sys_get_temp_dir();
parse_str(file_get_contents('php://input'), $params);
$clientId = is_string($params['client_id'] ?? null) ? $params['client_id'] : '';
if (!isset($keys[$clientId])) {
    answer('fail: unknown app');
    return;
}
if (!broken('no-check') && !verify_sign($params, $keys[$clientId])) {
    error_log('callback rejected: bad sign for order ' . json_encode($params['order_id'] ?? null));
    answer('fail: bad sign');
    return;
}
$orderId = is_string($params['order_id'] ?? null) ? $params['order_id'] : '';
if ($orderId === '') {
    answer('fail: no order_id');
    return;
}
@mkdir("$ledger/orders", 0777, true);
$marker = @fopen("$ledger/orders/" . md5($clientId . '|' . $orderId), 'x');
if ($marker === false) {
    // Already granted: a repeat is answered success and grants nothing.
    answer(broken('no-repeat-success') ? 'fail: duplicate order' : 'success');
    return;
}
fclose($marker);
$grant = [
    'order_id' => $orderId,
    'client_id' => $clientId,
    'user_id' => $params['user_id'] ?? '',
    'sid' => $params['app_id'] ?? '',
    'role_id' => $params['role_id'] ?? '',
    'product_id' => $params['product_id'] ?? '',
    'payment' => $params['payment'] ?? '',
    'gold' => $params['gold'] ?? null,
];
file_put_contents("$ledger/ledger.jsonl", json_encode($grant, JSON_UNESCAPED_UNICODE) . "\n", FILE_APPEND | LOCK_EX);
answer('success');
