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

# wrk's script for POST /callback: the bodies of $BODIES_FILE, each thread from its own place ($OFFSET moves
# a second wrk elsewhere), ending with one line "RESULT req/s p50 p99 requests non-2xx".
write_post_lua() { # file
  cat >"$1" <<'LUA'
local bodies, n = {}, 0
for line in io.lines(os.getenv("BODIES_FILE")) do n = n + 1; bodies[n] = line end
local counter = 0
function setup(thread) thread:set("offset", counter + tonumber(os.getenv("OFFSET") or "0")); counter = counter + 1 end
local i = 0
request = function()
  i = i + 1
  return wrk.format("POST", "/callback", {["Content-Type"] = "application/x-www-form-urlencoded"}, bodies[((offset * 7919 + i) % n) + 1])
end
done = function(summary, latency, requests)
  io.write(string.format("RESULT %.0f %.3f %.3f %d %d\n", summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, summary.requests, summary.errors.status))
end
LUA
}

# Loads URL with wrk for $SECONDS_LOAD s: prints "req/s p50 p99 requests non-2xx".
wrk_post() { # lua bodies url connections offset
  OFFSET=$5 BODIES_FILE="$2" wrk -t2 -c"$4" -d"${SECONDS_LOAD}s" --latency -s "$1" "$3" 2>/dev/null \
    | awk '/^RESULT/ {print $2, $3, $4, $5, $6}'
}

# nginx (this machine's HTTP ceiling), as many workers as cores, with its files in FOLDER, answering /healthz
# and what SERVER says inside its server block (default: a static `success` to POST /callback; e.g.
# `root DIR;` to serve files); sets nginx_port and adds its pid to `pids`.
start_nginx() { # folder [server]
  nginx_port=$(free_port)
  local server=${2:-'location /callback { return 200 "success"; }'}
  mkdir -p "$1"
  cat >"$1/nginx.conf" <<CONF
worker_processes auto;
pid $1/nginx.pid;
error_log $1/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $1/body;
  server { listen 127.0.0.1:$nginx_port; $server location /healthz { return 200 "ok"; } }
}
CONF
  nginx -c "$1/nginx.conf" -g 'daemon off;' &
  pids+=($!)
  wait_for "http://127.0.0.1:$nginx_port/healthz"
}

# `BINARY serve` on STORE at a free port, logging to LOG; sets started_pid and started_port (no subshell,
# so the caller can `wait` for it) and adds the pid to `pids`.
start_serve() { # binary store log
  started_port=$(free_port)
  "$1" serve --listen "127.0.0.1:$started_port" --db "$2" --log "$3" >/dev/null &
  started_pid=$!
  pids+=($started_pid)
  wait_for "http://127.0.0.1:$started_port/healthz"
}
