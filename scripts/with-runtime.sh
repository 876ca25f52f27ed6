#!/usr/bin/env bash
# Runs a TypeScript entry point on Node >= 22.17, installing what is missing first:
# Node 24 from the npm registry when the machine's Node is older, then the locked
# dependencies. Everything this prints goes to stderr so that commands such as
# `npm run --silent admin` keep stdout for their JSON.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

node_is_recent() {
  command -v node >/dev/null 2>&1 &&
    node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 17) ? 0 : 1)'
}

if ! node_is_recent; then
  tools_bin="$root/.tools/node_modules/.bin"
  if [ ! -x "$tools_bin/node" ]; then
    echo "Installing Node 24 into .tools/ (the machine's Node is older than 22.17)…" >&2
    npm install --prefix "$root/.tools" --no-save --no-audit --no-fund node@24 >&2
  fi
  export PATH="$tools_bin:$PATH"
fi

# npm ci is reproducible from package-lock.json; rerun it whenever the lock file changes.
stamp="node_modules/.package-lock.json"
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
  echo "Installing dependencies (npm ci)…" >&2
  npm ci --no-audit --no-fund >&2
fi

exec node --disable-warning=ExperimentalWarning "$@"
