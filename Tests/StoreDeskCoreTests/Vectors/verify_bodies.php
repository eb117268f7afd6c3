<?php
// Answers StoreDesk's property tests with the real PHP: one JSON object per input line, one per output line.
//
//     {"verify": "<body hex>", "key": "<AppKey>"}  ->  {"verdict": "valid", "query": "..."}   (the game server's verdict)
//     {"count": "<body hex>"}                       ->  {"leaves": 3, "sign": false}         (what parse_str keeps)
//
// Reads until end of input; the test bounds how many lines it sends and how long it waits.

declare(strict_types=1);
error_reporting(E_ALL & ~E_WARNING);

require __DIR__ . '/game_server.php';

function leaves(array $array): int
{
    $count = 0;
    foreach ($array as $value) {
        $count += is_array($value) ? leaves($value) : 1;
    }
    return $count;
}

while (($line = fgets(STDIN)) !== false) {
    $request = json_decode($line, true, 8, JSON_THROW_ON_ERROR);
    if (isset($request['verify'])) {
        $result = php_verify(hex2bin($request['verify']), $request['key']);
        $answer = ['verdict' => $result['verdict'], 'query' => $result['query']];
    } else {
        parse_str(hex2bin($request['count']), $params);
        $answer = ['leaves' => leaves($params), 'sign' => array_key_exists('sign', $params)];
    }
    echo json_encode($answer, JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE), "\n";
}
