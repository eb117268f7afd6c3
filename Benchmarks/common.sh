# What the benchmark scripts share: sourced by run.sh, serve.sh and postgres.sh.

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

wait_for() { # url
  for _ in $(seq 1 200); do curl -s -o /dev/null --max-time 1 "$1" && return 0; sleep 0.05; done
  echo "nothing answers at $1" >&2; return 1
}

# Median wall time of each command, in ms: $RUNS runs each, taken in alternating blocks of 5 so that a
# slow spell of this shared machine falls on both sides of a ratio.
medians_ms() { # "cmd|arg|..." ...
  python3 - "$RUNS" "$@" <<'PY'
import subprocess, sys, statistics, time
runs = int(sys.argv[1]); commands = [c.split("|") for c in sys.argv[2:]]
times = [[] for _ in commands]
while len(times[0]) < runs:
    for command, xs in zip(commands, times):
        for _ in range(5):
            t = time.perf_counter()
            subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            xs.append((time.perf_counter() - t) * 1000)
print(" ".join(f"{statistics.median(xs):.2f}" for xs in times))
PY
}

# Signed callback bodies with fresh numeric order ids above every payment run's block
# (OrderNumbers.outsideRuns), made by PHP itself (ksort, http_build_query, md5), one a line.
make_bodies() { # count app key product
  php -n -r '
    [$_, $n, $app, $key, $product] = $argv;
    $out = fopen("php://stdout", "w");
    for ($i = 0; $i < $n; $i++) {
      $f = ["order_id" => (string)(9223372030000000000 + $i), "payment" => "appstore", "sub_payment" => "Sandbox",
            "user_id" => "u" . ($i % 1000), "client_id" => $app, "app" => "bench", "app_id" => "s1",
            "app_order_id" => "G$i", "role_id" => "r1", "product_id" => $product, "ext" => "{\"n\":$i}",
            "timestamp" => "1772352000"];
      $s = $f; ksort($s); $f["sign"] = md5(http_build_query($s) . $key);
      fwrite($out, http_build_query($f) . "\n");
    }' "$@"
}
