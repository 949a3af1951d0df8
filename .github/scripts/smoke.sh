#!/usr/bin/env bash
# Smoke test of a built bot: the Palette simulator it carries, a stand-in Slack, and the bot itself
# (`start`, HTTP mode) against both; passes when /healthz and then /readyz answer 200.
#   .github/scripts/smoke.sh image <image-ref> [<database-url>]
#                                                the image, as the release workflow runs it; with a
#                                                postgres:// URL given as DATABASE_URL, the bot must
#                                                say it runs on PostgreSQL and write its tables there
#   .github/scripts/smoke.sh local               this checkout through tsx, to check the script
set -euo pipefail
cd "$(dirname "$0")/../.."
mode="${1:?usage: smoke.sh image <ref> [database-url] | local}"
image="${2:-}"
database_url="${3:-}"
SIM_PORT=18080 SLACK_PORT=18081 BOT_PORT=13000
pids=()
cleanup() {
  if [ "$mode" = image ]; then
    docker logs palette-chatops-smoke-bot 2>&1 | tail -n 40 || true
    docker rm -f palette-chatops-smoke-sim palette-chatops-smoke-bot >/dev/null 2>&1 || true
  fi
  if [ "$mode" = local ] && [ -n "${data:-}" ]; then
    tail -n 20 "$data/bot.log" || true
    rm -rf "$data"
  fi
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT

node .github/scripts/fake-slack.mjs "$SLACK_PORT" &
pids+=($!)

bot_env=(
  "SLACK_BOT_TOKEN=xoxb-smoke"
  "SLACK_SIGNING_SECRET=smoke-signing-secret"
  "SLACK_API_URL=http://127.0.0.1:$SLACK_PORT/api/"
  "PALETTE_API_URL=http://127.0.0.1:$SIM_PORT"
  "PALETTE_API_KEY=sim-api-key"
  "PORT=$BOT_PORT"
)

case "$mode" in
  image)
    [ -n "$image" ] || { echo "smoke.sh image wants an image reference" >&2; exit 2; }
    docker run -d --name palette-chatops-smoke-sim --network host "$image" \
      simulator --port "$SIM_PORT" --clusters 20 >/dev/null
    env_flags=()
    for pair in "${bot_env[@]}"; do env_flags+=(-e "$pair"); done
    # given to the image as an operator would: nothing of the image's own may outrank it
    if [ -n "$database_url" ]; then env_flags+=(-e "DATABASE_URL=$database_url"); fi
    # no command: the image's own ENTRYPOINT and CMD (start)
    docker run -d --name palette-chatops-smoke-bot --network host "${env_flags[@]}" "$image" >/dev/null
    ;;
  local)
    data="$(mktemp -d)"
    node --import tsx src/main.ts simulator --port "$SIM_PORT" --clusters 20 >/dev/null &
    pids+=($!)
    env "${bot_env[@]}" STATE_DB="$data/state.sqlite" node --import tsx src/main.ts start >"$data/bot.log" 2>&1 &
    pids+=($!)
    ;;
  *)
    echo "unknown mode $mode; usage: smoke.sh image <ref> | local" >&2
    exit 2
    ;;
esac

# 200 within the deadline, or fail with what the endpoint last said
wait_for() {
  local path="$1" deadline=$((SECONDS + 90)) body=""
  while [ "$SECONDS" -lt "$deadline" ]; do
    if body="$(curl -fsS "http://127.0.0.1:$BOT_PORT$path" 2>/dev/null)"; then
      echo "GET $path: 200 $body"
      return 0
    fi
    sleep 2
  done
  echo "GET $path did not answer 200 within 90 s; last answer:" >&2
  curl -sS "http://127.0.0.1:$BOT_PORT$path" >&2 || true
  return 1
}

wait_for /healthz
wait_for /readyz
if [ -n "$database_url" ]; then
  # the started line names the store; the migrations table is in PostgreSQL, not in /data
  docker logs palette-chatops-smoke-bot 2>&1 | grep -q '"store":"postgres"' \
    || { echo "the bot did not start on PostgreSQL" >&2; exit 1; }
  docker run --rm --network host --entrypoint node "$image" -e '
    const { Client } = require("pg");
    const client = new Client({ connectionString: process.argv[1] });
    client.connect()
      .then(() => client.query("SELECT MAX(id) AS id FROM schema_migrations"))
      .then((r) => { console.log("PostgreSQL migrated to", r.rows[0].id); return client.end(); })
      .catch((e) => { console.error("no migrations in PostgreSQL:", e.message); process.exit(1); });
  ' "$database_url"
fi
echo "smoke test passed"
