<?php
// The game server's side of a payment callback, as a PHP game server writes it: parse_str the body, take
// the sign out, ksort, http_build_query, md5 with the AppKey, strcasecmp. The verdict is the platform doc's
// `verify_sign` (the sign alone decides); `missing_field` is the first required field a genuine body lacks,
// a warning beside it.
// generate.php records its verdicts as vectors; verify_bodies.php answers the property tests with it.

declare(strict_types=1);

const REQUIRED = ['order_id', 'payment', 'user_id', 'client_id', 'app_id', 'product_id', 'timestamp'];

function php_verify(string $body, string $appKey): array
{
    parse_str($body, $params);
    $received = array_key_exists('sign', $params) ? $params['sign'] : null;
    unset($params['sign']);
    ksort($params);
    $query = http_build_query($params);
    $hashed = $query . $appKey;
    $expected = md5($hashed);

    $missing = null;
    if ($received === null || $received === '') {
        $verdict = 'missing_sign';
    } elseif (!is_string($received) || strcasecmp($expected, $received) !== 0) {
        $verdict = 'bad_signature';
    } else {
        $required = REQUIRED;
        if (($params['payment'] ?? null) !== 'appstore') {
            $required[] = 'gold';
        }
        foreach ($required as $field) {
            if (!isset($params[$field]) || !is_string($params[$field]) || $params[$field] === '') {
                $missing = $field;
                break;
            }
        }
        $verdict = 'valid';
    }
    return [
        'query' => $query,
        'hashed' => $hashed,
        'expected_sign' => $expected,
        'received_sign_hex' => is_string($received) ? bin2hex($received) : null,
        'received_is_array' => is_array($received),
        'verdict' => $verdict,
        'missing_field' => $missing,
    ];
}

