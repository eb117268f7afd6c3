<?php
// Cross-check vectors for StoreDesk's PHP reimplementation (PHPQuery, CallbackSignature, ServerCallback).
//
// The platform's callback signature is defined by PHP itself, so these vectors are produced by the real
// PHP (php-cli, default php.ini) and committed; the Swift tests must reproduce every string and verdict.
//
//     php Tests/StoreDeskCoreTests/Vectors/generate.php > Tests/StoreDeskCoreTests/Vectors/callback_vectors.json
//
// Byte strings that may not be UTF-8 are written as lower-case hex (`*_hex`, and parse_str results, see
// value_json); text fields are UTF-8.

declare(strict_types=1);
error_reporting(E_ALL & ~E_WARNING); // parse_str warns past max_input_vars; the vector records the result.

require __DIR__ . '/game_server.php';

/// What a PHP platform would send: sign the parsed body, then append `&sign=`.
function php_sign_body(string $unsignedBody, string $appKey): string
{
    parse_str($unsignedBody, $params);
    ksort($params);
    return $unsignedBody . '&sign=' . md5(http_build_query($params) . $appKey);
}

/// A PHP value as compact JSON: a string is its bytes in hex; an array is a list of [key, value] pairs,
/// a key being "i:<digits>" for an integer key or "s:<hex>" for a string key.
function value_json($value)
{
    if (is_array($value)) {
        $entries = [];
        foreach ($value as $key => $item) {
            $entries[] = [is_int($key) ? "i:$key" : 's:' . bin2hex($key), value_json($item)];
        }
        return $entries;
    }
    return bin2hex($value);
}

function utf8_or_null(string $bytes): ?string
{
    return preg_match('//u', $bytes) === 1 ? $bytes : null;
}

$vectors = [
    'php_version' => PHP_VERSION,
    'generator' => 'Tests/StoreDeskCoreTests/Vectors/generate.php',
];

// ---------------------------------------------------------------------------------------------------
// urlencode

$allBytes = '';
for ($i = 0; $i < 256; $i++) {
    $allBytes .= chr($i);
}
$urlencodeInputs = [
    'empty' => '',
    'unreserved' => 'AZaz09-_.',
    'space and plus' => 'a b+c',
    'specials' => "&=%~*'\"!()#?/:;@[]{}|\\^`<>,$",
    'chinese' => '中文扩展',
    'emoji' => '😀🎮',
    'newlines and tabs' => "line1\nline2\r\n\tend",
    'invalid utf-8' => "\xff\xfe\xc3",
    'nul byte' => "a\0b",
    'every byte' => $allBytes,
];
$vectors['urlencode'] = [];
foreach ($urlencodeInputs as $name => $input) {
    $vectors['urlencode'][] = ['name' => $name, 'input_hex' => bin2hex($input), 'output' => urlencode($input)];
}

// ---------------------------------------------------------------------------------------------------
// strcasecmp

$vectors['strcasecmp'] = [];
foreach ([['abc', 'ABC'], ['ab', 'abc'], ['abcd', 'a'], ['b', 'a'], ['A', 'b'], ['[', 'a'], ["\xe9", "\xc9"],
          ['d41d8cd98f00b204e9800998ecf8427e', 'D41D8CD98F00B204E9800998ECF8427E'], ['', '']] as [$a, $b]) {
    $vectors['strcasecmp'][] = ['a_hex' => bin2hex($a), 'b_hex' => bin2hex($b), 'result' => strcasecmp($a, $b)];
}

// ---------------------------------------------------------------------------------------------------
// parse_str, then http_build_query of the result as parsed and after ksort

/// A body of `$count` distinct keys drawn from numbers, tab-prefixed numbers and hex-looking strings, in
/// an order shuffled by a fixed linear congruential generator (so the vector does not depend on PHP's RNG).
function cyclic_keys(int $count, int $seed): string
{
    $keys = [];
    for ($i = 0; count($keys) < $count; $i++) {
        foreach (["$i", "%09$i", "0x$i", "{$i}e0", "a$i"] as $key) {
            if (count($keys) < $count) {
                $keys[] = $key;
            }
        }
    }
    $state = $seed;
    for ($i = count($keys) - 1; $i > 0; $i--) {
        $state = ($state * 1103515245 + 12345) % 2147483648;
        $j = $state % ($i + 1);
        [$keys[$i], $keys[$j]] = [$keys[$j], $keys[$i]];
    }
    return implode('&', array_map(fn ($k) => "$k=v", $keys));
}

$parseBodies = [
    'repeated key, last wins' => 'a=1&a=2',
    'repeated key keeps first position' => 'a=1&b=2&a=3',
    'dot in name' => 'a.b=1',
    'space in name' => 'a b=1',
    'plus in name' => 'a+b=1',
    'encoded dot in name' => 'a%2Eb=1',
    'leading spaces in name' => '%20%20a=1',
    'only spaces as name' => '%20%20=1',
    'invalid escape in name' => '%zz=1',
    'lower-case escapes' => 'x=%e4%b8%ad',
    'upper-case escapes' => 'x=%E4%B8%AD',
    'no value' => 'novalue',
    'empty pairs' => '&&',
    'leading and trailing separators' => '&a=1&&b=2&',
    'empty name' => '=1',
    'value with equals' => 'a=1=2',
    'plus and %20 in value' => 'x=a+b%20c%2B',
    'truncated escapes' => 'x=%2&y=%&z=%%41&w=%4g',
    'invalid utf-8 value' => 'x=%ff%fe',
    'nul escape in name and value' => 'a%00b=1&c=x%00y',
    'raw nul ends the body' => "a=1\0&b=2",
    'raw utf-8' => 'name=星际远征&ext=a b',
    'brackets: list' => 'a[]=1&a[]=2',
    'brackets: nested' => 'a[x]=1&a[y][z]=2',
    'brackets: encoded' => 'a%5Bb%5D=1',
    'brackets: unterminated' => 'a[=1&b[c=2&d[e.f g[h=3',
    'brackets: unterminated second level' => 'a[b][c=1',
    'brackets: dot before, kept inside' => 'a.b[c.d]=1',
    'brackets: space inside' => 'a[ ]=1&b[ x]=2',
    'brackets: junk after' => 'a[x]y=1&b[c]d[e]=2',
    'brackets: close only' => 'a]=1',
    'brackets: no name' => '[a]=1',
    'brackets: string replaced by array' => 'a=1&a[]=2',
    'brackets: array replaced by string' => 'a[]=1&a=2',
    'brackets: next index' => 'a[5]=1&a[x]=2&a[]=3&a[2]=4&a[]=5',
    'brackets: negative next index' => 'a[-5]=1&a[]=2',
    'brackets: next index exhausted' => 'a[9223372036854775807]=1&a[]=2',
    'brackets: list of lists' => 'a[][]=1&a[][]=2',
    'brackets: nesting limit' => 'keep=1&a=0&a[x]' . str_repeat('[y]', 70) . '=1&a2[x]' . str_repeat('[y]', 62) . '=1',
    'cookie prefixes' => '..Host-x=1&a[__Host-y]=2&__Host-z=3&__Secure-w[__Secure-v]=4&.__Secure-u=5',
    'numeric names' => '5=a&-3=b&05=c&-0=d&9223372036854775807=e&9223372036854775808=f&-9223372036854775808=g',
    'ksort: mixed keys' => 'b=1&a=2&10=3&9=4&1e1=5&B=6&_=7&%207=8&a1=9&-5=10&05=11',
    'ksort: numeric strings' => '%091=a&1%0A=b&0x1A=c&.5=d&1e3=e&1000=f&-1e3=g&9223372036854775808=h&9223372036854775809=i&1e400=j&1e401=k',
    'ksort: case and utf-8' => 'z=1&Z=2&%C3%A9=3&e=4&%E4%B8%AD=5&~=6&%7F=7&aa=8&a=9',
    'ksort: not transitive, order 1' => '1=a&%091=b&0x1A=c',
    'ksort: not transitive, order 2' => '0x1A=c&1=a&%091=b',
    'ksort: more than 16 keys' => implode('&', array_map(fn ($k) => "$k=v", ['q', 'w', 'e', 'r', 't', 'y', 'u', 'i', 'o', 'p', 'a', 's', 'd', 'f', 'g', 'h', 'j', 'k', 'l', 'z', 'x', 'c', 'v', 'b', 'n', 'm', '10', '9', '%091', '0x1A', '1e1'])),
    // Keys whose PHP comparison is not transitive ("\t1" == 1 numerically, but sorts before "0x1A" by bytes,
    // which sorts before 1): the result depends on zend_sort's exact steps, at every size it switches on.
    'ksort: not transitive, 6 keys' => cyclic_keys(6, 1),
    'ksort: not transitive, 9 keys' => cyclic_keys(9, 2),
    'ksort: not transitive, 16 keys' => cyclic_keys(16, 3),
    'ksort: not transitive, 17 keys' => cyclic_keys(17, 4),
    'ksort: not transitive, 40 keys' => cyclic_keys(40, 5),
    'ksort: not transitive, 120 keys' => cyclic_keys(120, 6),
    'max_input_vars' => implode('&', array_map(fn ($i) => "k$i=$i", range(1, 1003))),
];
$vectors['parse_str'] = [];
foreach ($parseBodies as $name => $body) {
    parse_str($body, $result);
    $sorted = $result;
    ksort($sorted);
    $vectors['parse_str'][] = [
        'name' => $name,
        'body_hex' => bin2hex($body),
        'result' => value_json($result),
        'query' => http_build_query($result),
        'ksorted_query' => http_build_query($sorted),
    ];
}

// ---------------------------------------------------------------------------------------------------
// Signing: sign = md5(http_build_query(ksort(fields)) . AppKey), body = fields in sending order + sign

$base = [
    'order_id' => 'P20260301000123',
    'payment' => 'appstore',
    'sub_payment' => 'Production',
    'user_id' => 'u_10086',
    'client_id' => 'app_galaxy',
    'app' => 'Galaxy Quest',
    'app_id' => 's1',
    'app_order_id' => 'G-7788',
    'role_id' => 'r-42',
    'product_id' => 'com.example.gems.60',
    'ext' => '',
    'timestamp' => '1772352000',
];
$ext512 = '';
$pattern = preg_split('//u', '扩展ext+&=%~ 😀"\'', -1, PREG_SPLIT_NO_EMPTY);
for ($i = 0; $i < 512; $i++) {
    $ext512 .= $pattern[$i % count($pattern)];
}
$signCases = [
    ['plain ascii', 'k3y-S3cr3t-2026', []],
    ['chinese text', 'k3y-S3cr3t-2026', ['app' => '星际远征', 'ext' => '中文扩展 测试', 'role_id' => '角色一']],
    ['spaces and plus', 'k3y-S3cr3t-2026', ['ext' => 'a b+c  d', 'role_id' => ' lead']],
    ['ampersand equals percent', 'k3y-S3cr3t-2026', ['ext' => 'k=v&x=1%2&y=%zz', 'app_order_id' => 'a&b=c']],
    ['tilde and star', 'k3y-S3cr3t-2026', ['ext' => '~*~.-_', 'role_id' => '*']],
    ['quotes', 'k3y-S3cr3t-2026', ['ext' => "it's \"quoted\"", 'app' => "O'Brien \"Game\""]],
    ['emoji', 'k3y-S3cr3t-2026', ['ext' => '😀🎮👨‍👩‍👧', 'role_id' => '🐉']],
    ['newlines', 'k3y-S3cr3t-2026', ['ext' => "line1\nline2\r\nline3\ttab"]],
    ['empty values', 'k3y-S3cr3t-2026', ['role_id' => '', 'app_order_id' => '', 'ext' => '']],
    ['512-character ext', 'k3y-S3cr3t-2026', ['ext' => $ext512]],
    ['other payment with gold', 'k3y-S3cr3t-2026', ['payment' => 'wechat', 'sub_payment' => '', 'gold' => '6.00']],
    ['app key with specials', '密钥 Key#1&=+%', ['ext' => 'x']],
    ['short app key', 'abc', []],
    ['keys needing ksort', 'k3y-S3cr3t-2026', ['zeta' => 'last', 'Alpha' => 'upper', '_under' => 'u', 'a' => 'short', 'app_' => 'x', '10' => 'ten', '9' => 'nine', '1e1' => 'sci']],
];
$vectors['sign'] = [];
$vectors['verify'] = [];
$signed = [];
foreach ($signCases as [$name, $appKey, $overrides]) {
    $fields = $base;
    foreach ($overrides as $key => $value) {
        $fields[$key] = $value;
    }
    $pairs = [];
    foreach ($fields as $key => $value) {
        $pairs[] = [(string)$key, $value];
    }
    $sorted = $fields;
    ksort($sorted);
    $query = http_build_query($sorted);
    $sign = md5($query . $appKey);
    $sent = $fields;
    $sent['sign'] = $sign;
    $body = http_build_query($sent);
    $vectors['sign'][] = [
        'name' => $name,
        'app_key' => $appKey,
        'fields' => $pairs,
        'query' => $query,
        'hashed' => $query . $appKey,
        'sign' => $sign,
        'body' => $body,
    ];
    $signed[$name] = ['key' => $appKey, 'body' => $body, 'sign' => $sign, 'fields' => $fields];
}

// ---------------------------------------------------------------------------------------------------
// Verification: bodies as received, and PHP's own verdict

$verifyCases = [];
foreach ($signed as $name => $s) {
    $verifyCases[] = ["as sent: $name", $s['body'], $s['key']];
}
$plain = $signed['plain ascii'];
$chinese = $signed['chinese text'];
$spaces = $signed['spaces and plus'];
$key = $plain['key'];
$replaceSign = fn (array $s, string $new) => str_replace('sign=' . $s['sign'], 'sign=' . $new, $s['body']);
$withoutSign = fn (array $s) => str_replace('&sign=' . $s['sign'], '', $s['body']);
$build = function (array $fields, array $changes): string {
    foreach ($changes as $k => $v) {
        if ($v === null) {
            unset($fields[$k]);
        } else {
            $fields[$k] = $v;
        }
    }
    return http_build_query($fields);
};

$verifyCases[] = ['sign in upper case', $replaceSign($plain, strtoupper($plain['sign'])), $key];
$verifyCases[] = ['sign in mixed case', $replaceSign($plain, ucfirst(strtoupper(substr($plain['sign'], 0, 16))) . substr($plain['sign'], 16)), $key];
$verifyCases[] = ['%20 instead of +', str_replace('+', '%20', $spaces['body']), $key];
$verifyCases[] = ['lower-case hex escapes', preg_replace_callback('/%[0-9A-F]{2}/', fn ($m) => strtolower($m[0]), $chinese['body']), $key];
$verifyCases[] = ['raw utf-8 instead of escapes', preg_replace_callback('/%([89A-F][0-9A-F])/', fn ($m) => chr(hexdec($m[1])), $chinese['body']), $key];
$verifyCases[] = ['fields reordered', $build(array_reverse($plain['fields'], true), ['sign' => $plain['sign']]), $key];
$verifyCases[] = ['tampered product_id', str_replace('product_id=com.example.gems.60', 'product_id=com.example.gems.6480', $plain['body']), $key];
$verifyCases[] = ['tampered user_id', str_replace('user_id=u_10086', 'user_id=u_10087', $plain['body']), $key];
$verifyCases[] = ['tampered ext', str_replace('ext=%E4%B8%AD', 'ext=%E4%B8%AE', $chinese['body']), $key];
$verifyCases[] = ['tampered sign', $replaceSign($plain, substr($plain['sign'], 0, 31) . ($plain['sign'][31] === '0' ? '1' : '0')), $key];
$verifyCases[] = ['sign with a leading space', $replaceSign($plain, '+' . $plain['sign']), $key];
$verifyCases[] = ['sign truncated', $replaceSign($plain, substr($plain['sign'], 0, 30)), $key];
$verifyCases[] = ['wrong app key', $plain['body'], 'k3y-S3cr3t-2025'];
$verifyCases[] = ['missing sign', $withoutSign($plain), $key];
$verifyCases[] = ['empty sign', $replaceSign($plain, ''), $key];
$verifyCases[] = ['sign as an array', str_replace('&sign=', '&sign[]=', $plain['body']), $key];
$verifyCases[] = ['duplicate field, forged value last', $plain['body'] . '&product_id=com.example.gems.6480', $key];
$verifyCases[] = ['duplicate field, genuine value last', 'product_id=com.example.gems.6480&' . $plain['body'], $key];
$verifyCases[] = ['extra unsigned field', $plain['body'] . '&bonus=1000', $key];
$verifyCases[] = ['extra empty pairs', '&&' . str_replace('&', '&&', $plain['body']) . '&', $key];
$verifyCases[] = ['raw nul cuts off the sign', str_replace('&sign=', "\0&sign=", $plain['body']), $key];
$verifyCases[] = ['sign beyond max_input_vars', $withoutSign($plain) . str_repeat('&pad=1', 1000) . '&sign=' . $plain['sign'], $key];
$verifyCases[] = ['missing order_id, signed', php_sign_body($build($base, ['order_id' => null]), $key), $key];
$verifyCases[] = ['empty user_id, signed', php_sign_body($build($base, ['user_id' => '']), $key), $key];
$verifyCases[] = ['order_id as array, signed', php_sign_body($build($base, ['order_id' => null]) . '&order_id[]=P1', $key), $key];
$verifyCases[] = ['other payment without gold, signed', php_sign_body($build($base, ['payment' => 'wechat']), $key), $key];
$verifyCases[] = ['missing payment, signed', php_sign_body($build($base, ['payment' => null]), $key), $key];
$verifyCases[] = ['nested ext, signed', php_sign_body($build($base, ['ext' => null]) . '&ext[a]=1&ext[b][]=x&ext[b][]=y', $key), $key];
$verifyCases[] = ['invalid utf-8 ext, signed', php_sign_body($build($base, ['ext' => null]) . '&ext=%FF%FE', $key), $key];
$verifyCases[] = ['invalid escapes in ext, signed', php_sign_body($build($base, ['ext' => null]) . '&ext=%zz%2%', $key), $key];
$verifyCases[] = ['numeric keys, signed', php_sign_body('10=x&9=y&1e1=z&%091=t&' . $build($base, []), $key), $key];
$verifyCases[] = ['dotted key signed as sent', $build($base, []) . '&a.b=1&sign=' . md5(http_build_query((function () use ($base) {
    $f = $base + ['a.b' => '1'];
    ksort($f);
    return $f;
})()) . $key), $key];
$verifyCases[] = ['dotted key signed as parsed', php_sign_body($build($base, []) . '&a.b=1', $key), $key];
$verifyCases[] = ['empty body', '', $key];
$verifyCases[] = ['only a sign', 'sign=' . md5($key), $key];

foreach ($verifyCases as [$name, $body, $appKey]) {
    $vectors['verify'][] = [
        'name' => $name,
        'app_key' => $appKey,
        'body_hex' => bin2hex($body),
        'body' => utf8_or_null($body),
    ] + php_verify($body, $appKey);
}

// ---------------------------------------------------------------------------------------------------
// ServerCallback: the body the platform builds from an order and an app

function gold_text(int $cents): string
{
    return sprintf('%s%d.%02d', $cents < 0 ? '-' : '', intdiv(abs($cents), 100), abs($cents) % 100);
}

$callbackCases = [
    [
        'name' => 'app store order',
        'order' => ['id' => 'P20260301000123', 'payment' => 'appstore', 'sub_payment' => 'Sandbox', 'user_id' => 'u_10086',
            'product_id' => 'com.example.gems.60', 'amount_cents' => 600, 'sid' => 's1', 'role_id' => '角色 42',
            'app_order_id' => 'G-7788&x=1', 'ext' => '{"note":"中文 + emoji 😀","n":1}'],
        'app' => ['id' => 'app_galaxy', 'name' => '星际远征', 'app_key' => 'k3y-S3cr3t-2026'],
        'timestamp_millis' => 1772352000999,
    ],
    [
        'name' => 'wechat order with gold',
        'order' => ['id' => 'W1', 'payment' => 'wechat', 'sub_payment' => 'Production', 'user_id' => 'u_1',
            'product_id' => 'com.example.gems.300', 'amount_cents' => 3000, 'sid' => 'cn-east_2', 'role_id' => '',
            'app_order_id' => '', 'ext' => ''],
        'app' => ['id' => 'app_galaxy', 'name' => 'Galaxy Quest', 'app_key' => 'k3y-S3cr3t-2026'],
        'timestamp_millis' => 1772352000000,
    ],
    [
        'name' => 'alipay order with cents',
        'order' => ['id' => 'A9', 'payment' => 'alipay', 'sub_payment' => 'Production', 'user_id' => 'u_2',
            'product_id' => 'com.example.tip', 'amount_cents' => 99, 'sid' => 's2', 'role_id' => 'r',
            'app_order_id' => 'o', 'ext' => "multi\nline"],
        'app' => ['id' => 'app_galaxy', 'name' => 'Galaxy Quest', 'app_key' => 'abc'],
        'timestamp_millis' => 1772352001500,
    ],
];
$vectors['callbacks'] = [];
foreach ($callbackCases as $case) {
    $o = $case['order'];
    $a = $case['app'];
    $fields = [
        'order_id' => $o['id'],
        'payment' => $o['payment'],
        'sub_payment' => $o['sub_payment'],
        'user_id' => $o['user_id'],
        'client_id' => $a['id'],
        'app' => $a['name'],
        'app_id' => $o['sid'],
        'app_order_id' => $o['app_order_id'],
        'role_id' => $o['role_id'],
        'product_id' => $o['product_id'],
    ];
    if ($o['payment'] !== 'appstore') {
        $fields['gold'] = gold_text($o['amount_cents']);
    }
    $fields['ext'] = $o['ext'];
    $fields['timestamp'] = (string)intdiv($case['timestamp_millis'], 1000);
    $sorted = $fields;
    ksort($sorted);
    $sign = md5(http_build_query($sorted) . $a['app_key']);
    $fields['sign'] = $sign;
    $vectors['callbacks'][] = $case + ['sign' => $sign, 'body' => http_build_query($fields)];
}

// One vector per line: diffs stay readable and deep arrays do not explode into indentation.
$flags = JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES | JSON_THROW_ON_ERROR;
$sections = [];
foreach ($vectors as $name => $section) {
    if (!is_array($section)) {
        $sections[] = '  ' . json_encode($name, $flags) . ': ' . json_encode($section, $flags);
        continue;
    }
    $lines = array_map(fn ($vector) => '    ' . json_encode($vector, $flags), $section);
    $sections[] = '  ' . json_encode($name, $flags) . ": [\n" . implode(",\n", $lines) . "\n  ]";
}
echo "{\n", implode(",\n", $sections), "\n}\n";
